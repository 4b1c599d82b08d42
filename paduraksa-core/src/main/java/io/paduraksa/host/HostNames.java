package io.paduraksa.host;

import io.paduraksa.net.IpParser;
import java.net.IDN;
import java.util.Locale;

/**
 * Turns a configured host name into the one form {@link HostTable} keys on. Runs at compile time
 * only (allocates freely); the per-request side is {@link HostTable#find}.
 *
 * <p>Rules: one trailing dot is dropped; Unicode names become punycode ({@link IDN#toASCII} with
 * {@link IDN#ALLOW_UNASSIGNED}), so {@code bücher.test} and {@code xn--bcher-kva.test} are the same
 * name; ASCII is lower-cased; labels are letters, digits and hyphens (RFC 1123: 1-63 characters, no
 * hyphen first or last), the name at most 253 characters. {@code *.parent} is a wildcard for any
 * name of one or more labels under {@code parent} (not {@code parent} itself); a bare {@code *} is
 * the catch-all, for every valid name no other entry takes; {@code *} anywhere else ({@code a*.test},
 * {@code *.*.test}, {@code a.*.test}, {@code *.}) is an error. A single-label parent ({@code *.test})
 * is allowed: local setups use names like {@code *.localhost}. A name
 * whose last label is all digits must be a valid dotted quad ({@code 192.0.2.10}), kept as an
 * exact name; IPv6 literals are written in brackets ({@code [2001:db8::1]}), and keyed on their
 * 128-bit value, so every spelling of one address is the same name. Ports are not part of a
 * configured name.
 */
public final class HostNames {
    private static final String EXPECTED =
            "expected a DNS name, *.parent, * for every other host, an IPv4 address or an IPv6 address in brackets";

    /** What kind of entry a configured name becomes. */
    public enum Kind { EXACT, WILDCARD, IPV6_LITERAL, CATCH_ALL }

    /** The canonical text of the catch-all entry. */
    public static final String CATCH_ALL = "*";

    /**
     * A normalised name. {@code canonical} is unique per entry: {@code example.test},
     * {@code *.example.test}, {@code 192.0.2.10}, {@code [2001:db8::1]} or {@code *}; {@code ipHigh} and
     * {@code ipLow} hold the address of an IPv6 literal (0 otherwise).
     */
    public record Name(Kind kind, String canonical, long ipHigh, long ipLow) {
        /** The text looked up per request: the parent for a wildcard, the name for an exact entry. */
        public String lookupKey() {
            return kind == Kind.WILDCARD ? canonical.substring(2) : canonical;
        }
    }

    private HostNames() {
    }

    /** The canonical text of {@code configured}; throws {@link IllegalArgumentException} naming the problem. */
    public static String normalize(String configured) {
        return parse(configured).canonical();
    }

    /** Normalises and classifies {@code configured}; throws {@link IllegalArgumentException} naming the problem. */
    public static Name parse(String configured) {
        if (configured == null || configured.isEmpty()) {
            throw invalid(configured, "it is empty");
        }
        if (configured.charAt(0) == '[') {
            return ipv6Literal(configured);
        }
        if (configured.equals(CATCH_ALL)) {
            return new Name(Kind.CATCH_ALL, CATCH_ALL, 0, 0);
        }
        String name = configured.endsWith(".") ? configured.substring(0, configured.length() - 1) : configured;
        boolean wildcard = name.startsWith("*.");
        String body = wildcard ? name.substring(2) : name;
        if (body.indexOf('*') >= 0 || body.isEmpty() && (wildcard || name.equals("*"))) {
            throw invalid(configured, "'*' may only be the whole name (the catch-all) or the whole first label,"
                    + " followed by a parent name, as in *.example.test");
        }
        if (body.indexOf(':') >= 0) {
            throw invalid(configured, "a configured host name has no port, and an IPv6 address is written in brackets, as in [2001:db8::1]");
        }
        String ascii = toAscii(configured, body).toLowerCase(Locale.ROOT);
        checkLabels(configured, ascii, wildcard);
        String canonical = wildcard ? "*." + ascii : ascii;
        if (canonical.length() > 253) {
            throw invalid(configured, "it is " + canonical.length() + " characters long; a host name has at most 253");
        }
        return new Name(wildcard ? Kind.WILDCARD : Kind.EXACT, canonical, 0, 0);
    }

    private static Name ipv6Literal(String configured) {
        long[] ip = new long[2];
        int close = configured.length() - 1;
        if (configured.charAt(close) != ']' || configured.indexOf(':') < 0 || configured.indexOf(':') > close
                || !IpParser.parse(configured, 1, close, ip)) {
            throw invalid(configured, "expected an IPv6 address in brackets, as in [2001:db8::1], without a port or zone");
        }
        String text = IpParser.format(ip[0], ip[1]);
        if (IpParser.isMappedIpv4(ip[0], ip[1])) {
            text = "::ffff:" + text;
        }
        return new Name(Kind.IPV6_LITERAL, "[" + text + "]", ip[0], ip[1]);
    }

    private static String toAscii(String configured, String name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                try {
                    return IDN.toASCII(name, IDN.ALLOW_UNASSIGNED);
                } catch (IllegalArgumentException e) {
                    throw invalid(configured, "it is not a valid internationalised name: " + e.getMessage());
                }
            }
        }
        return name;
    }

    private static void checkLabels(String configured, String name, boolean wildcard) {
        int start = 0;
        while (true) {
            int dot = name.indexOf('.', start);
            int end = dot < 0 ? name.length() : dot;
            checkLabel(configured, name, start, end);
            if (dot < 0) {
                break;
            }
            start = dot + 1;
        }
        String last = name.substring(start);
        if (last.chars().allMatch(c -> c >= '0' && c <= '9')) {
            long[] ip = new long[2];
            if (wildcard || !IpParser.parse(name, ip)) {
                throw invalid(configured, "a name ending in an all-digit label must be an IPv4 address of four decimal parts 0-255 without leading zeros");
            }
        }
    }

    private static void checkLabel(String configured, String name, int start, int end) {
        int length = end - start;
        if (length == 0) {
            throw invalid(configured, "it has an empty label");
        }
        if (length > 63) {
            throw invalid(configured, "label '" + name.substring(start, end) + "' is " + length + " characters long; a label has at most 63");
        }
        for (int i = start; i < end; i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')) {
                throw invalid(configured, "'" + c + "' is not allowed; labels hold letters, digits and hyphens");
            }
        }
        if (name.charAt(start) == '-' || name.charAt(end - 1) == '-') {
            throw invalid(configured, "label '" + name.substring(start, end) + "' starts or ends with a hyphen");
        }
    }

    static IllegalArgumentException invalid(String configured, String problem) {
        String shown = configured == null ? "null" : "'" + configured + "'";
        return new IllegalArgumentException("invalid host name " + shown + ": " + problem + " (" + EXPECTED + ")");
    }
}
