package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.BulkText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link HeaderNameSet}'s outline (a bit per length, first and last char) answers "not in the set"
 * only for names the set does not hold: {@code contains} with it against the names compared in full,
 * for random sets (with and without {@code proxy-*} and separator folding) and names made from them.
 */
class HeaderNameSetTest {
    private static final String TOKEN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&'*+.^`|~";

    @Test
    void theOutlineNeverHidesAMember() {
        Random random = new Random(20261206);
        for (int set = 0; set < 200; set++) {
            List<String> names = new ArrayList<>();
            for (int k = random.nextInt(40); k >= 0; k--) {
                names.add(random(random, 1 + random.nextInt(24)));
            }
            boolean proxy = random.nextBoolean();
            boolean fold = random.nextBoolean();
            HeaderNameSet s = HeaderNameSet.of(names, proxy, fold);
            for (int i = 0; i < 2_000; i++) {
                StringBuilder name = new StringBuilder(random.nextInt(4) == 0 ? random(random, 1 + random.nextInt(24))
                        : names.get(random.nextInt(names.size())));
                scramble(random, name);
                if (random.nextInt(6) == 0) {
                    name.insert(0, "Proxy-");
                }
                String n = name.toString();
                byte[] bytes = n.getBytes(StandardCharsets.ISO_8859_1);
                boolean expected = s.contains(bytes, 0, bytes.length);
                assertThat(s.contains(n)).as("%s in %s", n, s).isEqualTo(expected);
                assertThat(s.contains(BulkText.of(n))).as("%s as a view", n).isEqualTo(expected);
            }
        }
    }

    @Test
    void aCharAboveLatin1WhoseLowByteMatchesAMembersEndIsNoMember() {
        HeaderNameSet s = HeaderNameSet.of(List.of("X-Real-IP", "proxy-authorization"), true, true);
        assertThat(s.contains("x-real-ip")).isTrue();
        assertThat(s.contains("\u0178-Real-IP")).as("U+0178: low byte 'x'").isFalse();
        assertThat(s.contains("X-Real-I\u0150")).as("U+0150: low byte 'P'").isFalse();
        assertThat(s.contains("\u0170roxy-authorization")).as("U+0170: low byte 'p', the proxy- rule's way in").isFalse();
        assertThat(s.contains("proxy-x\u0100")).as("proxy- and anything after it").isTrue();
    }

    /** Flips the case of about a third of the chars and swaps about a third of the {@code -} and {@code _}. */
    static void scramble(Random random, StringBuilder name) {
        for (int k = 0; k < name.length(); k++) {
            char c = name.charAt(k);
            if (random.nextInt(3) == 0) {
                name.setCharAt(k, Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c));
            }
            if ((c == '-' || c == '_') && random.nextInt(3) == 0) {
                name.setCharAt(k, c == '-' ? '_' : '-');
            }
        }
    }

    private static String random(Random random, int length) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            b.append(TOKEN.charAt(random.nextInt(TOKEN.length())));
        }
        return b.toString();
    }
}
