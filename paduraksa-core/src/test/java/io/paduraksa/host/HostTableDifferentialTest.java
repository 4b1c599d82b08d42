package io.paduraksa.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The exact-name lookup (four characters per hash step, an {@link AsciiString} read from its array four
 * bytes at a time with case folded on all four at once) against a plain reference: strip a valid port
 * and one trailing dot, lower-case ASCII letters only, look the text up in a {@link HashMap}. 150,000
 * seeded inputs: configured names in random letter case, with ports and trailing dots, near misses
 * (one character changed, added or dropped), bytes next to the letter ranges ({@code @ [ ` {}), Latin-1
 * letters whose bit 0x20 is their case (never folded), chars above 255; each as a String, an AsciiString,
 * an AsciiString inside a bigger array and a request view inside a bigger text ({@link BulkText}, copied out,
 * and read in place in its array).
 */
class HostTableDifferentialTest {

    private static final char[] LABEL = "abcdefghijklmnopqrstuvwxyz0123456789-".toCharArray();
    private static final char[] ODD = "@[`{\u00c0\u00e0\u00c9\u00e9\u00ff\u0161 _:.".toCharArray();

    @Test
    void exactLookupAgreesWithAPlainReference() {
        SplittableRandom random = new SplittableRandom(14_014);
        Map<String, Integer> reference = new HashMap<>();
        List<String> names = new ArrayList<>();
        HostTable.Builder<Integer> builder = HostTable.builder();
        while (names.size() < 600) {
            String name = randomName(random);
            if (!reference.containsKey(name)) {
                reference.put(name, names.size());
                builder.add(name, names.size());
                names.add(name);
            }
        }
        HostTable<Integer> table = builder.build();
        int hits = 0;
        for (int round = 0; round < 150_000; round++) {
            String host = mutate(random, names.get(random.nextInt(names.size())));
            Integer expected = reference.get(referenceKey(host));
            hits += expected != null ? 1 : 0;
            Integer asString = table.find(host);
            Integer asAscii = isLatin1(host) ? table.find(new AsciiString(host.getBytes(StandardCharsets.ISO_8859_1), false)) : expected;
            Integer inside = isLatin1(host) ? table.find(inside(host), 3, 3 + host.length()) : expected;
            Integer view = isLatin1(host) ? table.find(BulkText.of("1:." + host + "9.:"), 3, 3 + host.length()) : expected;
            Integer array = isLatin1(host) ? table.find(BulkText.inArray("1:." + host + "9.:"), 3, 3 + host.length()) : expected;
            if (!Objects.equals(asString, expected) || !Objects.equals(asAscii, expected) || !Objects.equals(inside, expected)
                    || !Objects.equals(view, expected) || !Objects.equals(array, expected)) {
                assertThat(new Integer[] {asString, asAscii, inside, view, array}).as("'%s'", host).containsOnly(expected);
            }
        }
        assertThat(hits).as("inputs that name a configured host").isBetween(40_000, 110_000);
    }

    private static String randomName(SplittableRandom random) {
        StringBuilder sb = new StringBuilder();
        for (int labels = random.nextInt(1, 5); labels > 0; labels--) {
            int length = random.nextInt(1, 20);
            for (int i = 0; i < length; i++) {
                char c = LABEL[random.nextInt(LABEL.length)];
                sb.append(c == '-' && (i == 0 || i == length - 1) ? 'x' : c);
            }
            sb.append('.');
        }
        return sb.append(random.nextBoolean() ? "test" : "example").toString();
    }

    private static String mutate(SplittableRandom random, String name) {
        StringBuilder sb = new StringBuilder(name);
        for (int i = 0; i < sb.length(); i++) {
            if (random.nextInt(3) == 0) {
                sb.setCharAt(i, Character.toUpperCase(sb.charAt(i)));
            }
        }
        switch (random.nextInt(8)) {
            case 0 -> sb.setCharAt(random.nextInt(sb.length()), LABEL[random.nextInt(LABEL.length)]);
            case 1 -> sb.insert(random.nextInt(sb.length() + 1), LABEL[random.nextInt(LABEL.length)]);
            case 2 -> sb.deleteCharAt(random.nextInt(sb.length()));
            case 3 -> sb.setCharAt(random.nextInt(sb.length()), ODD[random.nextInt(ODD.length)]);
            default -> {
                // as sent: in random case only
            }
        }
        if (random.nextInt(4) == 0) {
            sb.append('.');
        }
        if (random.nextInt(4) == 0) {
            sb.append(':').append(random.nextInt(4) == 0 ? "" : Integer.toString(random.nextInt(70_000)));
        }
        return sb.toString();
    }

    /** What the table should look up: a port of at most five digits up to 65535 and one trailing dot removed, ASCII letters lower-cased. */
    private static String referenceKey(String host) {
        int colon = host.lastIndexOf(':');
        if (colon >= 0) {
            String port = host.substring(colon + 1);
            if (port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9')
                    && (port.isEmpty() || Integer.parseInt(port) <= 65535)) {
                host = host.substring(0, colon);
            }
        }
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        char[] chars = host.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = chars[i] >= 'A' && chars[i] <= 'Z' ? (char) (chars[i] | 0x20) : chars[i];
        }
        return new String(chars);
    }

    private static boolean isLatin1(String s) {
        return s.chars().allMatch(c -> c < 256);
    }

    /** The host at index 3 of a bigger AsciiString with an array offset, so that reads past either end would see other bytes. */
    private static AsciiString inside(String host) {
        byte[] all = ("xyHOS" + host + "ZA:8").getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(all, 2, all.length - 2, false);
    }
}
