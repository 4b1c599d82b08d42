package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import io.paduraksa.text.AsciiText;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link IpParser} against the JDK over generated canonical, non-canonical and mutated text.
 *
 * <p>For every input, either both accept with the same 128 bits, or both reject, or we reject and
 * the input falls in one of the classes where we are stricter on purpose ({@link Stricter}).
 *
 * <p>The JDK is asked only about strings made of hex digits, dots and colons, and never in a way
 * that can reach DNS: {@code InetAddress.getByName} resolves any name its literal parsers refuse
 * unless the text contains a colon and starts with a hex digit or a colon (then an invalid literal
 * is an {@code UnknownHostException} without a lookup), so colon-free text goes to
 * {@code Inet4Address.ofLiteral} (JDK 22+, never resolves) or, on JDK 21, to
 * {@code getByName("::ffff:" + text)}.
 */
class IpParserDifferentialTest {
    private static final int INPUTS = 1_000_000;
    private static final long SEED = 0x9AD0_2A75_AL;
    private static final MethodHandle IPV4_OF_LITERAL = ipv4OfLiteral();
    private static final String MUTATION_CHARS = "0123456789abcdefABCDEF::::....%[] g/\u00e9\u0661";

    /** Where we refuse what the JDK accepts, on purpose (see IpParser's javadoc). */
    enum Stricter {
        /** {@code 010.0.0.1}: inet_aton reads octal, the JDK decimal; we refuse the ambiguity. */
        LEADING_ZERO_IN_DOTTED_PART,
        /** {@code 192.0.513}, {@code 3221225985}: BSD short forms, never seen in headers. */
        DOTTED_WITH_FEWER_THAN_FOUR_PARTS,
        /** {@code 00001::}: RFC 4291 allows one to four hex digits per group; the JDK reads more. */
        HEX_GROUP_LONGER_THAN_FOUR_DIGITS
    }

    enum Outcome { BOTH_ACCEPT, BOTH_REJECT, NOT_ADDRESS_CHARACTERS, STRICTER }

    @Test
    void agreesWithTheJdkOnAMillionGeneratedInputs() {
        Random random = new Random(SEED);
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        Map<Stricter, Integer> stricter = new EnumMap<>(Stricter.class);
        long[] ours = new long[2];
        long[] inRange = new long[2];
        long[] asBytes = new long[2];
        long started = System.nanoTime();
        for (int n = 0; n < INPUTS; n++) {
            String text = generate(random);
            boolean accepted = IpParser.parse(text, ours);
            String framed = "[" + text + "]";
            boolean acceptedInRange = IpParser.parse(framed, 1, framed.length() - 1, inRange);
            if (acceptedInRange != accepted || (accepted && (inRange[0] != ours[0] || inRange[1] != ours[1]))) {
                fail("input #%d '%s': parsing it inside a longer sequence gave a different answer", n, text);
            }
            AsciiString bytes = insideLongerArray(text);
            boolean acceptedAsBytes = IpParser.parse(bytes, 0, bytes.length(), asBytes);
            if (acceptedAsBytes != accepted || (accepted && (asBytes[0] != ours[0] || asBytes[1] != ours[1]))) {
                fail("input #%d '%s': the byte path (AsciiString) gave a different answer than charAt", n, text);
            }
            BulkText bulk = BulkText.of("1:." + text + "9.:");
            boolean acceptedInBulk = IpParser.parse(bulk, 3, 3 + text.length(), asBytes);
            if (acceptedInBulk != accepted || (accepted && (asBytes[0] != ours[0] || asBytes[1] != ours[1]))) {
                fail("input #%d '%s': the bulk-copy path (AsciiText) gave a different answer than charAt", n, text);
            }
            Outcome outcome = judge(n, text, accepted, ours, stricter);
            outcomes.merge(outcome, 1, Integer::sum);
            if (accepted && n % 8 == 0) {
                long[] again = new long[2];
                String canonical = IpParser.format(ours[0], ours[1]);
                assertThat(IpParser.parse(canonical, again)).as("format of '%s' parses", text).isTrue();
                assertThat(again).as("format of '%s' round-trips", text).containsExactly(ours[0], ours[1]);
            }
        }
        System.out.printf(Locale.ROOT, "IpParserDifferentialTest: %d inputs in %d ms, seed %x: %s, stricter: %s%n",
                INPUTS, (System.nanoTime() - started) / 1_000_000, SEED, outcomes, stricter);
        // The generator must reach every outcome and every stricter class in useful numbers.
        assertThat(outcomes.getOrDefault(Outcome.BOTH_ACCEPT, 0)).isGreaterThan(INPUTS / 3);
        assertThat(outcomes.getOrDefault(Outcome.BOTH_REJECT, 0)).isGreaterThan(INPUTS / 20);
        assertThat(outcomes.getOrDefault(Outcome.NOT_ADDRESS_CHARACTERS, 0)).isGreaterThan(INPUTS / 50);
        for (Stricter s : Stricter.values()) {
            assertThat(stricter.getOrDefault(s, 0)).as("%s cases", s).isGreaterThan(1_000);
        }
    }

    /**
     * {@code text} as an {@link AsciiString} in the middle of a longer array, between hex digits, dots
     * and colons, so that a read past either end changes the answer. A char above 255 becomes
     * {@code ?} (AsciiString's own conversion): both paths reject either.
     */
    static AsciiString insideLongerArray(String text) {
        byte[] all = ("1:." + text + "9.:").getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(all, 3, text.length(), false);
    }

    private static Outcome judge(int n, String text, boolean accepted, long[] ours, Map<Stricter, Integer> stricter) {
        if (!onlyAddressCharacters(text)) {
            if (accepted) {
                fail("input #%d '%s' has characters no address has, yet was accepted", n, text);
            }
            return Outcome.NOT_ADDRESS_CHARACTERS;
        }
        long[] jdk = jdk(text);
        if (accepted) {
            if (jdk == null) {
                fail("input #%d '%s': we accepted %s, the JDK rejected it", n, text, IpParser.format(ours[0], ours[1]));
            }
            if (jdk[0] != ours[0] || jdk[1] != ours[1]) {
                fail("input #%d '%s': we read %s, the JDK %s", n, text, IpParser.format(ours[0], ours[1]),
                        IpParser.format(jdk[0], jdk[1]));
            }
            return Outcome.BOTH_ACCEPT;
        }
        if (jdk == null) {
            return Outcome.BOTH_REJECT;
        }
        Stricter why = stricterClass(text);
        if (why == null) {
            fail("input #%d '%s': the JDK accepted it as %s, we rejected it, and it is in no stricter class",
                    n, text, IpParser.format(jdk[0], jdk[1]));
        }
        stricter.merge(why, 1, Integer::sum);
        return Outcome.STRICTER;
    }

    /** The class an input falls in when we refuse it on purpose, found without our parser. */
    static Stricter stricterClass(String text) {
        String[] pieces = text.split(":", -1);
        String last = pieces[pieces.length - 1];
        if (last.indexOf('.') >= 0) {
            for (String part : last.split("\\.", -1)) {
                if (part.length() > 1 && part.charAt(0) == '0') {
                    return Stricter.LEADING_ZERO_IN_DOTTED_PART;
                }
            }
        }
        if (pieces.length == 1 && last.split("\\.", -1).length < 4) {
            return Stricter.DOTTED_WITH_FEWER_THAN_FOUR_PARTS;
        }
        for (String piece : pieces) {
            if (piece.indexOf('.') < 0 && piece.length() > 4) {
                return Stricter.HEX_GROUP_LONGER_THAN_FOUR_DIGITS;
            }
        }
        return null;
    }

    static boolean onlyAddressCharacters(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '.' && c != ':' && Character.digit(c, 16) < 0 || c > 'f') {
                return false;
            }
        }
        return true;
    }

    /** The JDK's 128 bits for {@code text} (IPv4 mapped), or null when it refuses. */
    static long[] jdk(String text) {
        if (text.isEmpty()) {
            return null; // getByName("") is the loopback address, not a parse
        }
        try {
            InetAddress address;
            if (text.indexOf(':') >= 0) {
                char first = text.charAt(0);
                if (first != ':' && Character.digit(first, 16) < 0) {
                    return null; // e.g. ".1::2": getByName would treat it as a DNS name
                }
                address = InetAddress.getByName(text);
            } else if (IPV4_OF_LITERAL != null) {
                address = (InetAddress) IPV4_OF_LITERAL.invoke(text);
            } else {
                address = InetAddress.getByName("::ffff:" + text);
            }
            return toLongs(address.getAddress());
        } catch (UnknownHostException | IllegalArgumentException e) {
            return null;
        } catch (Throwable e) {
            throw new AssertionError("the JDK failed on '" + text + "'", e);
        }
    }

    private static long[] toLongs(byte[] bytes) {
        if (bytes.length == 4) {
            return new long[] {0, IpParser.MAPPED_IPV4_PREFIX | (readLong(bytes, 0, 4) & 0xFFFF_FFFFL)};
        }
        return new long[] {readLong(bytes, 0, 8), readLong(bytes, 8, 16)};
    }

    private static long readLong(byte[] bytes, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            value = (value << 8) | (bytes[i] & 0xFF);
        }
        return value;
    }

    private static MethodHandle ipv4OfLiteral() {
        try {
            return MethodHandles.publicLookup().findStatic(Inet4Address.class, "ofLiteral",
                    MethodType.methodType(Inet4Address.class, String.class));
        } catch (ReflectiveOperationException e) {
            return null; // JDK 21
        }
    }

    // ---- generator ----

    static String generate(Random r) {
        int kind = r.nextInt(10);
        if (kind < 2) {
            return ipv4Text(r, r.nextInt(256), r.nextInt(256), r.nextInt(256), r.nextInt(256));
        }
        if (kind < 7) {
            return ipv6Text(r);
        }
        String base = r.nextBoolean() ? ipv6Text(r) : ipv4Text(r, octet(r), octet(r), octet(r), octet(r));
        int mutations = 1 + r.nextInt(2);
        for (int i = 0; i < mutations; i++) {
            base = mutate(r, base);
        }
        return base;
    }

    private static int octet(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> 255;
            default -> r.nextInt(256);
        };
    }

    private static String ipv4Text(Random r, int a, int b, int c, int d) {
        int[] parts = {a, b, c, d};
        int count = r.nextInt(40) == 0 ? 1 + r.nextInt(3) : 4;
        StringBuilder sb = new StringBuilder(15);
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append('.');
            }
            if (r.nextInt(40) == 0) {
                sb.append('0');
            }
            sb.append(parts[i]);
        }
        return sb.toString();
    }

    private static String ipv6Text(Random r) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = switch (r.nextInt(6)) {
                case 0, 1, 2 -> 0;
                case 3 -> r.nextInt(16);
                case 4 -> 0xFFFF;
                default -> r.nextInt(0x10000);
            };
        }
        int shape = r.nextInt(8);
        if (shape == 0) { // IPv4-mapped
            java.util.Arrays.fill(groups, 0, 5, 0);
            groups[5] = 0xFFFF;
        } else if (shape == 1) { // NAT64 well-known prefix
            groups[0] = 0x64;
            groups[1] = 0xFF9B;
            java.util.Arrays.fill(groups, 2, 6, 0);
        } else if (shape == 2 && r.nextBoolean()) {
            groups[0] = 0x2001;
            groups[1] = 0xDB8;
        }
        boolean v4Tail = shape <= 1 ? r.nextInt(4) != 0 : r.nextInt(8) == 0;
        int groupCount = v4Tail ? 6 : 8;
        int gapStart = -1;
        int gapLength = 0;
        if (r.nextInt(10) < 7) {
            int start = r.nextInt(groupCount);
            if (groups[start] == 0) {
                int runEnd = start;
                while (runEnd < groupCount && groups[runEnd] == 0) {
                    runEnd++;
                }
                gapStart = start;
                gapLength = 1 + r.nextInt(runEnd - start);
            }
        }
        StringBuilder sb = new StringBuilder(45);
        for (int i = 0; i < groupCount; i++) {
            if (i == gapStart) {
                sb.append("::");
                i += gapLength - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            appendGroup(r, sb, groups[i]);
        }
        if (v4Tail) {
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(ipv4Text(r, groups[6] >>> 8, groups[6] & 0xFF, groups[7] >>> 8, groups[7] & 0xFF));
        }
        return sb.toString();
    }

    private static void appendGroup(Random r, StringBuilder sb, int value) {
        String hex = Integer.toHexString(value);
        int pad = switch (r.nextInt(10)) {
            case 0 -> 4 - hex.length();
            case 1 -> r.nextInt(5 - hex.length());
            default -> 0;
        };
        if (r.nextInt(100) == 0) {
            pad = 5 - hex.length();
        }
        for (int i = 0; i < pad; i++) {
            sb.append('0');
        }
        int caseMode = r.nextInt(4);
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            boolean upper = caseMode == 1 || (caseMode == 2 && r.nextBoolean());
            sb.append(upper ? Character.toUpperCase(c) : c);
        }
    }

    private static String mutate(Random r, String s) {
        int at = s.isEmpty() ? 0 : r.nextInt(s.length());
        char random = MUTATION_CHARS.charAt(r.nextInt(MUTATION_CHARS.length()));
        return switch (r.nextInt(s.isEmpty() ? 1 : 5)) {
            case 0 -> s.substring(0, at) + random + s.substring(at);
            case 1 -> s.substring(0, at) + s.substring(at + 1);
            case 2 -> s.substring(0, at) + s.charAt(at) + s.substring(at);
            case 3 -> s.substring(0, at) + random + s.substring(at + 1);
            default -> at + 1 < s.length() ? s.substring(0, at) + s.charAt(at + 1) + s.charAt(at) + s.substring(at + 2) : s + random;
        };
    }
}
