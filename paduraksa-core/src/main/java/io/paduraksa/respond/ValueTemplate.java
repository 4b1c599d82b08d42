package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A header value with placeholders that are filled per request, compiled once with the snapshot:
 * a redirect's {@code location} such as {@code https://${host}${request_uri}}. Writing it costs two
 * passes over the request's bytes ({@link #length}, then {@link #write}) and allocates nothing.
 *
 * <p>Placeholders, and what each writes:
 * <ul>
 *   <li>{@code ${scheme}}: {@code https} when the client's connection to us is TLS, else {@code http}
 *       (the connection's, never a client-sent {@code X-Forwarded-Proto});</li>
 *   <li>{@code ${host}}: the request's own host ({@code Host} or {@code :authority}) without port
 *       and trailing dot, in lower case; only ever a valid DNS name or an IPv6 literal in brackets:
 *       any other host makes the gate answer 400 instead ({@link #expands});</li>
 *   <li>{@code ${port}}: the port the request named in its host, else the default port of
 *       {@code ${scheme}} (443 or 80);</li>
 *   <li>{@code ${path}}: the normalised path, the one routes and policies matched (never
 *       {@code //} at its start; characters outside RFC 3986's {@code pchar} and {@code \} escaped);</li>
 *   <li>{@code ${query}}: {@code ?} and the query as received when the target has a non-empty one,
 *       else nothing (characters outside RFC 3986's query set escaped);</li>
 *   <li>{@code ${request_uri}}: {@code ${path}${query}}.</li>
 * </ul>
 *
 * <p>No value can break out of the header: request bytes that are not allowed as they are (control
 * bytes, space, quotes, angle brackets, backslash, non-ASCII) are percent-encoded, so CR and LF
 * never reach the wire. No value can move the redirect to another site: {@link #compile} refuses
 * a path or query placeholder where the authority goes ({@code https://${path}}, {@code //${query}}),
 * and {@code ${host}} is the request's own, validated host.
 */
public final class ValueTemplate {
    /** The placeholders, in the order of their kind numbers. */
    public static final List<String> VARIABLES = List.of("${scheme}", "${host}", "${port}", "${path}", "${query}",
            "${request_uri}");
    private static final int LITERAL = -1;
    private static final int SCHEME = 0;
    private static final int HOST = 1;
    private static final int PORT = 2;
    private static final int PATH = 3;
    private static final int QUERY = 4;
    private static final int REQUEST_URI = 5;
    /** Longest host {@code ${host}} writes: a DNS name (253) or a bracketed IPv6 literal. */
    private static final int MAX_HOST = 255;

    private static final byte[] HTTPS = "https".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP = "http".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    /** Bytes written as they are in a path: RFC 3986 pchar (unreserved, sub-delims, ':', '@'), '/' and '%'. */
    private static final boolean[] PATH_SAFE = new boolean[128];
    /** Bytes written as they are in a query: the path's, '?' too. */
    private static final boolean[] QUERY_SAFE = new boolean[128];

    static {
        String safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/%";
        for (int i = 0; i < safe.length(); i++) {
            PATH_SAFE[safe.charAt(i)] = true;
            QUERY_SAFE[safe.charAt(i)] = true;
        }
        QUERY_SAFE['?'] = true;
    }

    /** What a template reads of the request (implemented by the gate's recycled request state). */
    public interface Input {
        /** {@code Host} or {@code :authority} as received, or null. */
        CharSequence authority();

        /** The normalised path, {@code [0, pathLength())}. */
        byte[] path();

        int pathLength();

        /** The request target as received; the query is {@code [queryStart(), queryEnd())} of it. */
        CharSequence target();

        /** After the {@code ?}, or -1 without a query. */
        int queryStart();

        int queryEnd();

        /** The client's connection to us is TLS. */
        boolean isTls();
    }

    private final String text;
    private final int[] kinds;
    private final byte[][] literals;
    private final boolean usesHost;
    private final boolean usesPath;

    private ValueTemplate(String text, int[] kinds, byte[][] literals) {
        this.text = text;
        this.kinds = kinds;
        this.literals = literals;
        boolean host = false;
        boolean path = false;
        for (int k : kinds) {
            host |= k == HOST || k == PORT;
            path |= k == PATH || k == REQUEST_URI;
        }
        this.usesHost = host;
        this.usesPath = path;
    }

    /** True when {@code text} has a placeholder and must be compiled (a plain value is sent as it is). */
    public static boolean hasPlaceholder(String text) {
        return text.contains("${");
    }

    /**
     * Compiles {@code text}; compile time only.
     *
     * @throws IllegalArgumentException for an unknown or unclosed placeholder, a path or query
     *     placeholder where the authority goes, or a character a header value cannot carry
     */
    public static ValueTemplate compile(String text) {
        List<Integer> kinds = new ArrayList<>();
        List<byte[]> literals = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            int open = text.indexOf("${", i);
            if (open < 0) {
                literal.append(text, i, text.length());
                break;
            }
            literal.append(text, i, open);
            int close = text.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("'" + text + "' has a '${' without its '}' (expected placeholders like ${host})");
            }
            String name = text.substring(open, close + 1);
            int kind = VARIABLES.indexOf(name);
            if (kind < 0) {
                throw new IllegalArgumentException("unknown placeholder " + name + " (expected one of: "
                        + String.join(", ", VARIABLES) + ")");
            }
            if (literal.length() > 0) {
                kinds.add(LITERAL);
                literals.add(checkedLiteral(literal.toString()));
                literal.setLength(0);
            }
            kinds.add(kind);
            literals.add(null);
            i = close + 1;
        }
        if (literal.length() > 0) {
            kinds.add(LITERAL);
            literals.add(checkedLiteral(literal.toString()));
        }
        int[] k = new int[kinds.size()];
        for (int j = 0; j < k.length; j++) {
            k[j] = kinds.get(j);
        }
        checkAuthority(text, k, literals);
        return new ValueTemplate(text, k, literals.toArray(new byte[0][]));
    }

    /**
     * The authority of an absolute ({@code scheme://}) or network-path ({@code //}) reference ends at
     * the first {@code /}, {@code ?} or {@code #} or at a path or query placeholder; it must not be
     * empty and may hold only literal text, {@code ${host}} and {@code ${port}}. Checked on the
     * template's shape: literal text as it is, each placeholder as one marker character.
     */
    private static void checkAuthority(String text, int[] kinds, List<byte[]> literals) {
        StringBuilder shape = new StringBuilder();
        for (int i = 0; i < kinds.length; i++) {
            shape.append(kinds[i] == LITERAL ? new String(literals.get(i), StandardCharsets.US_ASCII) : marker(kinds[i]));
        }
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("^(?:(?:[A-Za-z][A-Za-z0-9+.-]*|" + marker(SCHEME) + "):)?//").matcher(shape);
        if (!m.find()) {
            return; // a relative reference (a path or a query first): there is no authority to move
        }
        int end = m.end();
        while (end < shape.length() && "/?#".indexOf(shape.charAt(end)) < 0
                && shape.charAt(end) != marker(PATH) && shape.charAt(end) != marker(QUERY)
                && shape.charAt(end) != marker(REQUEST_URI)) {
            end++;
        }
        String authority = shape.substring(m.end(), end);
        if (authority.isEmpty() || authority.indexOf(marker(SCHEME)) >= 0) {
            String what = end < shape.length() && shape.charAt(end) < ' ' ? VARIABLES.get(shape.charAt(end) - 1)
                    : authority.isEmpty() ? "nothing" : "${scheme}";
            throw new IllegalArgumentException("'" + text + "' puts " + what
                    + " where the host goes, so a request could send the redirect to another site"
                    + " (expected e.g. https://${host}${request_uri})");
        }
    }

    /** The character that stands for placeholder {@code kind} in a template's shape (a control character). */
    private static char marker(int kind) {
        return (char) (kind + 1);
    }

    private static byte[] checkedLiteral(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c > 0x7E) {
                throw new IllegalArgumentException("'" + s + "' has a space, control or non-ASCII character at index " + i
                        + " (expected a URL; percent-encode it)");
            }
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The template as written. */
    public String text() {
        return text;
    }

    /** True when a placeholder needs the normalised path (the gate normalises it first). */
    public boolean needsPath() {
        return usesPath;
    }

    /** False when {@code in}'s host cannot be written safely (the gate answers 400 then). */
    public boolean expands(Input in) {
        return !usesHost || hostEnd(in.authority()) >= 0;
    }

    /** Bytes {@link #write} writes for {@code in}; {@link #expands} must be true. */
    public int length(Input in) {
        int n = 0;
        for (int i = 0; i < kinds.length; i++) {
            switch (kinds[i]) {
                case LITERAL -> n += literals[i].length;
                case SCHEME -> n += in.isTls() ? HTTPS.length : HTTP.length;
                case HOST -> n += hostEnd(in.authority());
                case PORT -> n += portLength(in);
                case PATH -> n += pathLength(in);
                case QUERY -> n += queryLength(in);
                default -> n += pathLength(in) + queryLength(in);
            }
        }
        return n;
    }

    /** Writes the value for {@code in}; {@link #expands} must be true. */
    public void write(ByteBuf out, Input in) {
        for (int i = 0; i < kinds.length; i++) {
            switch (kinds[i]) {
                case LITERAL -> out.writeBytes(literals[i]);
                case SCHEME -> out.writeBytes(in.isTls() ? HTTPS : HTTP);
                case HOST -> writeHost(out, in.authority());
                case PORT -> writePort(out, in);
                case PATH -> writePath(out, in);
                case QUERY -> writeQuery(out, in);
                default -> {
                    writePath(out, in);
                    writeQuery(out, in);
                }
            }
        }
    }

    /**
     * Where the host name of {@code authority} ends (before {@code :port} and a trailing dot), or -1
     * unless it is a valid DNS name (labels of 1-63 letters, digits and hyphens, not starting or
     * ending with a hyphen) or a bracketed literal of hex digits, colons and dots, at most
     * {@value #MAX_HOST} characters, with a port of 1-5 digits if any.
     */
    private static int hostEnd(CharSequence a) {
        int part = hostPartEnd(a);
        if (part < 0 || part < a.length() && !validPort(a, part, a.length())) {
            return -1;
        }
        if (a.charAt(0) == '[') {
            return part;
        }
        int end = a.charAt(part - 1) == '.' ? part - 1 : part;
        return end == 0 || end > MAX_HOST - 2 || !validName(a, end) ? -1 : end;
    }

    /**
     * Where the host part ends: at the {@code :} of a port, or the length; after the {@code ]} of a
     * literal (whose characters are checked here). -1 for an empty authority or a broken literal.
     */
    private static int hostPartEnd(CharSequence a) {
        if (a == null || a.length() == 0) {
            return -1;
        }
        int n = a.length();
        if (a.charAt(0) == '[') {
            for (int i = 1; i < n && i <= MAX_HOST; i++) {
                char c = a.charAt(i);
                if (c == ']') {
                    return i < 2 ? -1 : i + 1;
                }
                if (!(isHex(c) || c == ':' || c == '.')) {
                    return -1;
                }
            }
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (a.charAt(i) == ':') {
                return i;
            }
        }
        return n;
    }

    private static boolean validName(CharSequence a, int end) {
        int labelStart = 0;
        for (int i = 0; i <= end; i++) {
            char c = i < end ? a.charAt(i) : '.';
            if (c == '.') {
                int len = i - labelStart;
                if (len == 0 || len > 63 || a.charAt(labelStart) == '-' || a.charAt(i - 1) == '-') {
                    return false;
                }
                labelStart = i + 1;
            } else if (!(isAlnum(c) || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** {@code a[from, to)} is {@code :} and 1-5 digits. */
    private static boolean validPort(CharSequence a, int from, int to) {
        if (a.charAt(from) != ':' || to - from < 2 || to - from > 6) {
            return false;
        }
        for (int i = from + 1; i < to; i++) {
            char c = a.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static void writeHost(ByteBuf out, CharSequence a) {
        int end = hostEnd(a);
        for (int i = 0; i < end; i++) {
            char c = a.charAt(i);
            out.writeByte(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
        }
    }

    /** Start of the port digits in the authority, or -1 when it names none. */
    private static int portStart(CharSequence a) {
        int part = hostPartEnd(a);
        return part < a.length() ? part + 1 : -1;
    }

    private static int portLength(Input in) {
        CharSequence a = in.authority();
        int start = portStart(a);
        return start < 0 ? (in.isTls() ? 3 : 2) : a.length() - start;
    }

    private static void writePort(ByteBuf out, Input in) {
        CharSequence a = in.authority();
        int start = portStart(a);
        if (start < 0) {
            out.writeByte(in.isTls() ? '4' : '8');
            out.writeByte(in.isTls() ? '4' : '0');
            if (in.isTls()) {
                out.writeByte('3');
            }
            return;
        }
        for (int i = start; i < a.length(); i++) {
            out.writeByte(a.charAt(i));
        }
    }

    private static int pathLength(Input in) {
        byte[] p = in.path();
        int n = in.pathLength();
        int len = 0;
        for (int i = 0; i < n; i++) {
            int b = p[i] & 0xFF;
            len += b < 128 && PATH_SAFE[b] ? 1 : 3;
        }
        return len;
    }

    private static void writePath(ByteBuf out, Input in) {
        byte[] p = in.path();
        int n = in.pathLength();
        for (int i = 0; i < n; i++) {
            int b = p[i] & 0xFF;
            if (b < 128 && PATH_SAFE[b]) {
                out.writeByte(b);
            } else {
                escape(out, b);
            }
        }
    }

    private static int queryLength(Input in) {
        int from = in.queryStart();
        int to = in.queryEnd();
        if (from < 0 || to <= from) {
            return 0;
        }
        CharSequence t = in.target();
        int len = 1;
        for (int i = from; i < to; i++) {
            char c = t.charAt(i);
            len += c < 128 && QUERY_SAFE[c] ? 1 : 3;
        }
        return len;
    }

    private static void writeQuery(ByteBuf out, Input in) {
        int from = in.queryStart();
        int to = in.queryEnd();
        if (from < 0 || to <= from) {
            return;
        }
        CharSequence t = in.target();
        out.writeByte('?');
        for (int i = from; i < to; i++) {
            char c = t.charAt(i);
            if (c < 128 && QUERY_SAFE[c]) {
                out.writeByte(c);
            } else {
                escape(out, c & 0xFF);
            }
        }
    }

    private static void escape(ByteBuf out, int b) {
        out.writeByte('%');
        out.writeByte(HEX[b >>> 4]);
        out.writeByte(HEX[b & 0xF]);
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || (c | 0x20) >= 'a' && (c | 0x20) <= 'f';
    }

    private static boolean isAlnum(char c) {
        return c >= '0' && c <= '9' || (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    }

    @Override
    public String toString() {
        return text;
    }
}
