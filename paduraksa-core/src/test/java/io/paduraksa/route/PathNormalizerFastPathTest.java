package io.paduraksa.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.BulkText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast path of {@link PathNormalizer#normalize} (a path proven normal in one pass, copied
 * unchanged) takes the same decision, byte for byte and code for code, as the full pass
 * ({@link PathNormalizer#normalizeInFull}), under every option combination.
 */
class PathNormalizerFastPathTest {

    private static final int[] OPTIONS = {
        PathNormalizer.DEFAULT_OPTIONS,
        PathNormalizer.ENCODED_SLASH_DECODE | PathNormalizer.BACKSLASH_DECODE,
        PathNormalizer.ENCODED_SLASH_KEEP | PathNormalizer.BACKSLASH_KEEP | PathNormalizer.PATH_PARAMETERS_KEEP,
        PathNormalizer.PATH_PARAMETERS_REJECT,
        PathNormalizer.ENCODED_SLASH_DECODE | PathNormalizer.PATH_PARAMETERS_KEEP,
    };

    /** Mostly units of normal paths, so that about half the paths reach the copy; the rest is hostile. */
    private static final String[] UNITS = {
        "/", "/", "/", "a", "b", "Z", "0", "-", "_", "~", ".", "api", "v1", "static", "img.png", "x=y", "@", "!",
        "'", "*", "+", ",", ":", "\"", "<", "[", "{", "|", "^", "`",
        // hostile: dot segments raw and escaped, encoded slash and backslash, parameters, overlong UTF-8, controls
        "..", "%2e", "%2E", "%2e%2e", "%2f", "%2F", "%5c", "\\", ";", "..;", ";x", "%3b", "%3B", "%00", "%", "%4", "%zz",
        "%c0%ae", "%c0%af", "%e0%80%ae", "%41", "%7e", "#", "?", " ", "\t", "\u007f", "\u00e9", "\u00ff", "//",
    };

    @Test
    void fastPathAgreesWithTheFullPassOnGeneratedPaths() {
        SplittableRandom random = new SplittableRandom(14_100);
        int copied = 0;
        for (int round = 0; round < 150_000; round++) {
            StringBuilder sb = new StringBuilder(random.nextInt(50) == 0 ? "" : "/");
            for (int units = random.nextInt(12); units > 0; units--) {
                // two in three units from the normal part of the alphabet
                sb.append(UNITS[random.nextInt(3) == 0 ? random.nextInt(UNITS.length) : random.nextInt(30)]);
            }
            String path = sb.toString();
            int options = OPTIONS[random.nextInt(OPTIONS.length)];
            int room = random.nextInt(8) == 0 ? random.nextInt(path.length() + 1) : 3 * path.length() + 1;
            copied += assertSameDecision(path, options, room) ? 1 : 0;
        }
        assertThat(copied).as("paths the fast path copied unchanged").isBetween(30_000, 120_000);
    }

    /**
     * {@link PathNormalizer#copyIfNormalPath} (path end and fast copy in one pass) against {@code pathEnd}
     * then {@code normalize}: generated targets with and without a query (whose bytes may be anything a
     * path may not hold), as an AsciiString alone and inside a bigger array, in rooms that fit and that do
     * not, and as a request view ({@link BulkText}, read in bulk only, copied into the room when it fits).
     * Whenever it copies, it returns the path's end, and the bytes and length normalize writes.
     */
    @Test
    void copyIfNormalPathAgreesWithPathEndThenNormalize() {
        SplittableRandom random = new SplittableRandom(14_101);
        int copied = 0;
        for (int round = 0; round < 150_000; round++) {
            StringBuilder sb = new StringBuilder(random.nextInt(50) == 0 ? "" : "/");
            for (int units = random.nextInt(12); units > 0; units--) {
                sb.append(UNITS[random.nextInt(3) == 0 ? random.nextInt(UNITS.length) : random.nextInt(30)]);
            }
            if (random.nextBoolean()) {
                sb.append('?');
                for (int units = random.nextInt(4); units > 0; units--) {
                    sb.append(UNITS[random.nextInt(UNITS.length)]);
                }
            }
            String target = sb.toString();
            int end = PathNormalizer.pathEnd(target, 0, target.length());
            int room = random.nextInt(8) == 0 ? random.nextInt(end + 1) : 3 * end + 1;
            byte[] expected = new byte[room];
            int expectedLength = PathNormalizer.normalize(target, 0, end, expected, PathNormalizer.DEFAULT_OPTIONS);
            assertThat(PathNormalizer.copyIfNormalPath(target, new byte[room])).as("a String: not read here").isEqualTo(-1);
            byte[] line = ("GET " + target + " HTTP/1.1").getBytes(StandardCharsets.ISO_8859_1);
            AsciiString inLine = new AsciiString(line, 4, target.length(), false);
            for (CharSequence form : new CharSequence[] {ascii(target), inLine, BulkText.of(target)}) {
                byte[] out = new byte[room];
                int n = PathNormalizer.copyIfNormalPath(form, out);
                if (n >= 0) {
                    assertThat(n).as("'%s': the path's end", target).isEqualTo(end).isEqualTo(expectedLength);
                    // A view is copied whole into the room first: past the path's end it holds the query, not zeros.
                    boolean view = form instanceof BulkText;
                    assertThat(view ? Arrays.copyOf(out, n) : out).as("'%s'", target)
                            .isEqualTo(view ? Arrays.copyOf(expected, n) : expected);
                }
                copied += n >= 0 ? 1 : 0;
            }
        }
        assertThat(copied).as("targets copied in one pass (three forms each)").isBetween(60_000, 360_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/", "/a", "/a/", "/a/b.c/d-e_f~g", "/...", "/.a", "/a.", "/a/.../b", "/a/..b", "/a/b..", "/A/B",
        "//", "/a//b", "/./", "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b", "/a/%2e/b", "/a/%2E%2e/b",
        "/a%2fb", "/a%2Fb", "/a\\b", "/a%5cb", "/a;x/b", "/a/..;/b", "/a%3bb", "/%c0%ae%c0%ae/etc", "/%00",
        "/a b", "/a\u0000", "/\u00e9", "/a#b", "/a?b", "", "a", "a/b", "/\u0161",
    })
    void fastPathAgreesWithTheFullPassOnHostileShapes(String path) {
        for (int options : OPTIONS) {
            for (int room : new int[] {0, 1, path.length() - 1, path.length(), 3 * path.length() + 1}) {
                if (room >= 0) {
                    assertSameDecision(path, options, room);
                }
            }
        }
    }

    /** Runs both passes on the path as a String, an AsciiString and an AsciiString inside a bigger array; true when it was left unchanged. */
    private static boolean assertSameDecision(String path, int options, int room) {
        byte[] slow = new byte[room];
        int expected = PathNormalizer.normalizeInFull(path, 0, path.length(), slow, options);
        CharSequence[] forms = {path, ascii(path), inside("GET ", path, "?q=/../ HTTP/1.1")};
        for (CharSequence form : forms) {
            int from = form.length() > path.length() ? 2 : 0;
            byte[] fast = new byte[room];
            int actual = PathNormalizer.normalize(form, from, from + path.length(), fast, options);
            if (actual != expected || expected > 0 && !Arrays.equals(fast, 0, actual, slow, 0, expected)) {
                assertThat(actual).as("%s (%s, options %s, room %s)", path, form.getClass().getSimpleName(), options, room)
                        .isEqualTo(expected);
                assertThat(new String(fast, 0, actual, StandardCharsets.ISO_8859_1))
                        .isEqualTo(new String(slow, 0, expected, StandardCharsets.ISO_8859_1));
            }
        }
        return expected == path.length() && path.chars().allMatch(c -> c < 0x80)
                && path.equals(new String(slow, 0, expected, StandardCharsets.ISO_8859_1));
    }

    /** One char per byte: a char above 255 cannot come from the wire, so it is left out of the byte forms. */
    private static CharSequence ascii(String path) {
        return path.chars().allMatch(c -> c < 256) ? new AsciiString(path.getBytes(StandardCharsets.ISO_8859_1), false) : path;
    }

    private static CharSequence inside(String before, String path, String after) {
        if (!path.chars().allMatch(c -> c < 256)) {
            return path;
        }
        byte[] all = (before + path + after).getBytes(StandardCharsets.ISO_8859_1);
        return new AsciiString(all, 2, all.length - 2, false); // an array offset too
    }
}
