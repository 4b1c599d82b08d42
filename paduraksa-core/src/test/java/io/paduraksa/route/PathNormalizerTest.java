package io.paduraksa.route;

import static io.paduraksa.route.PathNormalizer.BACKSLASH_DECODE;
import static io.paduraksa.route.PathNormalizer.BACKSLASH_KEEP;
import static io.paduraksa.route.PathNormalizer.DEFAULT_OPTIONS;
import static io.paduraksa.route.PathNormalizer.ENCODED_SLASH_DECODE;
import static io.paduraksa.route.PathNormalizer.ENCODED_SLASH_KEEP;
import static io.paduraksa.route.PathNormalizer.PATH_PARAMETERS_KEEP;
import static io.paduraksa.route.PathNormalizer.PATH_PARAMETERS_REJECT;
import static io.paduraksa.route.PathNormalizer.REJECT_ABOVE_ROOT;
import static io.paduraksa.route.PathNormalizer.REJECT_BACKSLASH;
import static io.paduraksa.route.PathNormalizer.REJECT_BAD_ESCAPE;
import static io.paduraksa.route.PathNormalizer.REJECT_CONTROL_OR_NON_ASCII;
import static io.paduraksa.route.PathNormalizer.REJECT_ENCODED_SLASH;
import static io.paduraksa.route.PathNormalizer.REJECT_FRAGMENT_OR_QUERY;
import static io.paduraksa.route.PathNormalizer.REJECT_NOT_ORIGIN_FORM;
import static io.paduraksa.route.PathNormalizer.REJECT_NUL;
import static io.paduraksa.route.PathNormalizer.REJECT_PATH_PARAMETER;
import static io.paduraksa.route.PathNormalizer.REJECT_TOO_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.AsciiString;
import io.paduraksa.config.NormalizeSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PathNormalizerTest {

    private static final int SLASH_DECODE = ENCODED_SLASH_DECODE;
    private static final int SLASH_KEEP = ENCODED_SLASH_KEEP;
    private static final int PARAMS_REJECT = PATH_PARAMETERS_REJECT;
    private static final int PARAMS_KEEP = PATH_PARAMETERS_KEEP;
    private static final int[] ALL_OPTIONS = allOptions();

    /** Every combination: 3 encoded-slash x 3 backslash x 3 path-parameter settings. */
    private static int[] allOptions() {
        int[] slash = {0, SLASH_DECODE, SLASH_KEEP};
        int[] backslash = {0, BACKSLASH_DECODE, BACKSLASH_KEEP};
        int[] params = {0, PARAMS_REJECT, PARAMS_KEEP};
        int[] all = new int[27];
        int n = 0;
        for (int a : slash) {
            for (int b : backslash) {
                for (int c : params) {
                    all[n++] = a | b | c;
                }
            }
        }
        return all;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // clean paths pass unchanged
                ok("/", "/"),
                ok("/index.html", "/index.html"),
                ok("/a/b/c", "/a/b/c"),
                ok("/a/b/", "/a/b/"),
                ok("/api/v1/users;id=7", "/api/v1/users;id=7", PARAMS_KEEP),
                ok("/a:b@c!$&'()*+,=", "/a:b@c!$&'()*+,="),
                ok("/.well-known/acme", "/.well-known/acme"),
                ok("/...", "/..."),
                ok("/a/.b/..c/...", "/a/.b/..c/..."),
                // unreserved escapes decode, others keep upper-case hex
                ok("/%61dmin", "/admin"),
                ok("/%41%5a%30%2D%2e%5F%7E", "/AZ0-._~"),
                ok("/a%3ab", "/a%3Ab"),
                ok("/a%3Ab", "/a%3Ab"),
                ok("/caf%c3%a9", "/caf%C3%A9"),
                ok("/a%20b", "/a%20b"),
                ok("/a%25b", "/a%25b"),
                ok("/a%2fb%3F", "/a%2Fb%3F", SLASH_KEEP),
                ok("/%0a", "/%0A"),
                // slashes merge
                ok("//admin", "/admin"),
                ok("///a//b///", "/a/b/"),
                // dot segments
                ok("/./admin", "/admin"),
                ok("/admin/./", "/admin/"),
                ok("/admin/.", "/admin/"),
                ok("/a/b/../../admin", "/admin"),
                ok("/a/..", "/"),
                ok("/a/b/..", "/a/"),
                ok("/a/b/../", "/a/"),
                ok("/a/./b/./c", "/a/b/c"),
                ok("/.", "/"),
                ok("/./", "/"),
                ok("/a//../b", "/b"),
                ok("/static/%2e%2E/admin", "/admin"),
                ok("/static/.%2e/admin", "/admin"),
                ok("/static/%2e/admin", "/static/admin"),
                ok("/a/%2e%2e", "/"),
                // traversal attempts through encoded slashes, per option
                err("/static/..%2fadmin", REJECT_ENCODED_SLASH),
                ok("/static/..%2fadmin", "/admin", SLASH_DECODE),
                ok("/static/..%2fadmin", "/static/..%2Fadmin", SLASH_KEEP),
                ok("/static/%2e%2e%2fadmin", "/admin", SLASH_DECODE),
                ok("/a%2f%2fb", "/a/b", SLASH_DECODE),
                ok("/a%2F", "/a/", SLASH_DECODE),
                err("/%2F..", REJECT_ABOVE_ROOT, SLASH_DECODE),
                ok("/%2F..", "/%2F..", SLASH_KEEP),
                // backslashes, per option
                err("/a\\b", REJECT_BACKSLASH),
                err("/a%5cb", REJECT_BACKSLASH),
                ok("/a\\b", "/a/b", BACKSLASH_DECODE),
                ok("/a%5Cb", "/a/b", BACKSLASH_DECODE),
                ok("/static\\..\\admin", "/admin", BACKSLASH_DECODE),
                ok("/a\\b", "/a%5Cb", BACKSLASH_KEEP),
                ok("/a%5cb", "/a%5Cb", BACKSLASH_KEEP),
                ok("/static\\..\\admin", "/static%5C..%5Cadmin", BACKSLASH_KEEP),
                err("/a\\b", REJECT_BACKSLASH, SLASH_DECODE | SLASH_KEEP),
                err("/a%2fb", REJECT_ENCODED_SLASH, BACKSLASH_DECODE),
                // above the root
                err("/..", REJECT_ABOVE_ROOT),
                err("/../a", REJECT_ABOVE_ROOT),
                err("/a/../..", REJECT_ABOVE_ROOT),
                err("/a/../../b", REJECT_ABOVE_ROOT),
                err("/%2e%2e/etc/passwd", REJECT_ABOVE_ROOT),
                err("//..", REJECT_ABOVE_ROOT),
                // not origin-form
                err("", REJECT_NOT_ORIGIN_FORM),
                err("*", REJECT_NOT_ORIGIN_FORM),
                err("admin", REJECT_NOT_ORIGIN_FORM),
                err("http://example.test/", REJECT_NOT_ORIGIN_FORM),
                err("%2Fadmin", REJECT_NOT_ORIGIN_FORM, SLASH_DECODE),
                err("\\admin", REJECT_NOT_ORIGIN_FORM, BACKSLASH_DECODE),
                // bad escapes
                err("/%", REJECT_BAD_ESCAPE),
                err("/%4", REJECT_BAD_ESCAPE),
                err("/%zz", REJECT_BAD_ESCAPE),
                err("/%4g", REJECT_BAD_ESCAPE),
                err("/%g4", REJECT_BAD_ESCAPE),
                err("/a%%41", REJECT_BAD_ESCAPE),
                err("/%\u0664\u0661", REJECT_BAD_ESCAPE),
                // NUL, controls, non-ASCII, fragment
                err("/a%00b", REJECT_NUL),
                err("/a%00b", REJECT_NUL, SLASH_DECODE | BACKSLASH_DECODE),
                err("/a\u0000b", REJECT_NUL),
                err("/a b", REJECT_CONTROL_OR_NON_ASCII),
                err("/a\tb", REJECT_CONTROL_OR_NON_ASCII),
                err("/a\rb", REJECT_CONTROL_OR_NON_ASCII),
                err("/a\u007fb", REJECT_CONTROL_OR_NON_ASCII),
                err("/caf\u00e9", REJECT_CONTROL_OR_NON_ASCII),
                err("/caf\u00c3\u00a9", REJECT_CONTROL_OR_NON_ASCII),
                err("/\u2215admin", REJECT_CONTROL_OR_NON_ASCII),
                err("/a#frag", REJECT_FRAGMENT_OR_QUERY),
                err("/a?q", REJECT_FRAGMENT_OR_QUERY),
                // the first problem from the left wins
                err("/../%zz", REJECT_ABOVE_ROOT),
                err("/%zz/..", REJECT_BAD_ESCAPE));
    }

    /**
     * Segment parameters, spelled every way we know servlet containers read as {@code /admin}:
     * stripped (the default), rejected, or kept as before.
     */
    static Stream<Arguments> parameterCases() {
        return Stream.of(
                // strip (default): ';' and the rest of its segment go, then dot segments resolve
                ok("/admin;x=1", "/admin"),
                ok("/admin;", "/admin"),
                ok("/admin;/", "/admin/"),
                ok("/admin;jsessionid=1/x", "/admin/x"),
                ok("/admin;a=1;b=2/x", "/admin/x"),
                ok("/a;x/b;y/admin;z", "/a/b/admin"),
                ok("/;x/admin", "/admin"),
                ok("/;/admin", "/admin"),
                ok("/;", "/"),
                ok("//admin;", "/admin"),
                ok("/admin/;x", "/admin/"),
                ok("/admin/;", "/admin/"),
                ok("/x/..;/admin", "/admin"),
                ok("/x/..;x=1/admin", "/admin"),
                ok("/x/%2e%2e;/admin", "/admin"),
                ok("/x/.%2E;y/admin", "/admin"),
                ok("/.;/admin", "/admin"),
                ok("/.;x/admin", "/admin"),
                ok("/x/..;", "/"),
                ok("/admin/.;", "/admin/"),
                err("/static/..;/..;/admin", REJECT_ABOVE_ROOT),
                ok("/a/b/..;/..;/admin", "/admin"),
                ok("/ADMIN;x", "/ADMIN"),
                ok("/%61dmin;x", "/admin"),
                ok("/admin;..", "/admin"),
                ok("/admin;/..", "/"),
                ok("/admin;x=/..", "/"),
                ok("/admin;x=%41", "/admin"),
                ok("/admin;x=%2e%2e", "/admin"),
                // %3B: servlet containers differ (Tomcat keeps it, decode-first stacks split on it); strip splits on it
                ok("/admin%3Bx=1", "/admin"),
                ok("/admin%3bx=1/y", "/admin/y"),
                ok("/x/..%3B/admin", "/admin"),
                ok("/x/%2e%2e%3b/admin", "/admin"),
                ok("/admin;x%3By", "/admin"),
                // %253B is a literal '%3B' after one decode and stays that way
                ok("/admin%253Bx", "/admin%253Bx"),
                // parameters are still checked byte by byte
                err("/admin;%00", REJECT_NUL),
                err("/admin;%zz", REJECT_BAD_ESCAPE),
                err("/admin;a b", REJECT_CONTROL_OR_NON_ASCII),
                err("/admin;x#y", REJECT_FRAGMENT_OR_QUERY),
                err("/admin;x%2F..", REJECT_ENCODED_SLASH),
                err("/admin;x\\..", REJECT_BACKSLASH),
                ok("/x/..;%2F/admin", "/admin", SLASH_DECODE),
                ok("/admin;x%2F/..", "/", SLASH_DECODE),
                ok("/admin;x%2Fy", "/admin", SLASH_KEEP),
                ok("/admin;x\\..\\y", "/y", BACKSLASH_DECODE),
                ok("/admin;x\\y", "/admin", BACKSLASH_KEEP),
                err("/..;/admin", REJECT_ABOVE_ROOT),
                // reject: any ';' or %3B is a 400, wherever it is
                err("/admin;x=1", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/admin;", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/;x/admin", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/x/..;/admin", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/admin%3Bx", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/admin%3b", REJECT_PATH_PARAMETER, PARAMS_REJECT),
                err("/a/b/c;", REJECT_PATH_PARAMETER, PARAMS_REJECT | SLASH_DECODE | BACKSLASH_KEEP),
                ok("/admin%253B", "/admin%253B", PARAMS_REJECT),
                ok("/admin/x", "/admin/x", PARAMS_REJECT),
                // keep: today's behaviour, ';' is a byte of the segment (unsafe before servlet backends)
                ok("/admin;x=1", "/admin;x=1", PARAMS_KEEP),
                ok("/x/..;/admin", "/x/..;/admin", PARAMS_KEEP),
                ok("/admin%3bx", "/admin%3Bx", PARAMS_KEEP),
                ok("/a;x/../b", "/b", PARAMS_KEEP));
    }

    @ParameterizedTest(name = "[{index}] {0} options={2}")
    @MethodSource("parameterCases")
    void handlesSegmentParameters(String input, String expected, int options) {
        normalisesOrRejects(input, expected, options);
        assertAgrees(input, options);
    }

    @Test
    void strippedParametersDoNotCountTowardsTheLength() {
        String path = "/admin;jsessionid=0123456789ABCDEF0123456789ABCDEF";
        byte[] out = new byte[6];
        assertThat(PathNormalizer.normalize(path, 0, path.length(), out, DEFAULT_OPTIONS)).isEqualTo(6);
        assertThat(new String(out, StandardCharsets.US_ASCII)).isEqualTo("/admin");
    }

    @ParameterizedTest(name = "[{index}] {0} options={2}")
    @MethodSource("cases")
    void normalisesOrRejects(String input, String expected, int options) {
        assertThat(run(input, options)).isEqualTo(expected);
        if (input.chars().allMatch(c -> c <= 0xFF)) {
            assertThat(run(new AsciiString(input.getBytes(StandardCharsets.ISO_8859_1)), options))
                    .as("same answer for an AsciiString").isEqualTo(expected);
        }
    }

    @Test
    void readsOnlyTheGivenRange() {
        String target = "GET /x/../admin/?q=/.. HTTP/1.1";
        int from = 4;
        int end = PathNormalizer.pathEnd(target, from, target.indexOf(" HTTP"));
        byte[] out = new byte[64];
        int n = PathNormalizer.normalize(target, from, end, out, DEFAULT_OPTIONS);
        assertThat(new String(out, 0, n, StandardCharsets.US_ASCII)).isEqualTo("/admin/");
    }

    @ParameterizedTest
    @CsvSource({"/a?b,2", "/a,2", "/?,1", "?,0", "/a#b?c,4", "'',0"})
    void pathEndStopsAtTheFirstQuestionMark(String target, int expected) {
        assertThat(PathNormalizer.pathEnd(target, 0, target.length())).isEqualTo(expected);
    }

    @Test
    void rejectsWhenTheOutputDoesNotFit() {
        byte[] exact = new byte[6];
        assertThat(PathNormalizer.normalize("/admin", 0, 6, exact, DEFAULT_OPTIONS)).isEqualTo(6);
        assertThat(PathNormalizer.normalize("/admin", 0, 6, new byte[5], DEFAULT_OPTIONS)).isEqualTo(REJECT_TOO_LONG);
        assertThat(PathNormalizer.normalize("/a/b", 0, 4, new byte[3], DEFAULT_OPTIONS)).isEqualTo(REJECT_TOO_LONG);
        assertThat(PathNormalizer.normalize("/", 0, 1, new byte[0], DEFAULT_OPTIONS)).isEqualTo(REJECT_TOO_LONG);
        assertThat(PathNormalizer.normalize("/a%3a", 0, 5, new byte[4], DEFAULT_OPTIONS)).isEqualTo(REJECT_TOO_LONG);
        assertThat(PathNormalizer.normalize("/a\\", 0, 3, new byte[4], BACKSLASH_KEEP)).isEqualTo(REJECT_TOO_LONG);
        assertThat(PathNormalizer.normalize("/a\\", 0, 3, new byte[5], BACKSLASH_KEEP)).isEqualTo(5);
    }

    @ParameterizedTest
    @CsvSource({
        "reject,reject,strip,0", "decode,reject,strip,1", "keep,reject,strip,2",
        "reject,decode,strip,4", "reject,keep,strip,8", "decode,keep,strip,9", "keep,decode,strip,6",
        "reject,reject,reject,16", "reject,reject,keep,32", "decode,keep,reject,25"
    })
    void optionsComeFromTheSpec(String encodedSlash, String backslash, String parameters, int expected) {
        assertThat(options(new NormalizeSpec(encodedSlash, backslash, parameters))).isEqualTo(expected);
    }

    @Test
    void defaultSpecRejectsBothAndStripsParameters() {
        assertThat(options(NormalizeSpec.DEFAULT)).isEqualTo(DEFAULT_OPTIONS);
        assertThat(options(new NormalizeSpec(null, null, null))).isEqualTo(DEFAULT_OPTIONS);
        assertThat(run("/admin;x=1", options(NormalizeSpec.DEFAULT))).isEqualTo("/admin");
    }

    @Test
    void unknownSpecValuesAreNamed() {
        assertThatThrownBy(() -> options(new NormalizeSpec("allow", "reject", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("normalize.encoded_slash: unknown value 'allow' (expected one of: reject, decode, keep)");
        assertThatThrownBy(() -> options(new NormalizeSpec("reject", "Decode", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("normalize.backslash: unknown value 'Decode'");
        assertThatThrownBy(() -> options(new NormalizeSpec("reject", "reject", "decode")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("normalize.path_parameters: unknown value 'decode' (expected one of: strip, reject, keep)");
    }

    @Test
    void everyCodeIsDescribed() {
        for (int code = REJECT_PATH_PARAMETER; code < 0; code++) {
            assertThat(PathNormalizer.describe(code)).doesNotStartWith("unknown");
        }
        assertThat(PathNormalizer.describe(REJECT_ABOVE_ROOT)).isEqualTo("'..' above the root");
        assertThat(PathNormalizer.describe(-99)).isEqualTo("unknown error code -99");
    }

    /** Every sequence of up to five units of the small alphabet, under every option setting. */
    @Test
    void agreesWithTheReferenceOnEveryShortPath() {
        String[] alphabet = {"/", ".", "a", "%2e", "%2F", "%5c", "%41", ";", "%3B"};
        List<String> paths = new ArrayList<>();
        paths.add("");
        for (int length = 1; length <= 5; length++) {
            int total = (int) Math.pow(alphabet.length, length);
            for (int n = 0; n < total; n++) {
                StringBuilder sb = new StringBuilder("/");
                for (int k = 0, rest = n; k < length; k++, rest /= alphabet.length) {
                    sb.append(alphabet[rest % alphabet.length]);
                }
                paths.add(sb.toString());
            }
        }
        for (int options : ALL_OPTIONS) {
            for (String path : paths) {
                assertAgrees(path, options);
            }
        }
    }

    /** Longer random paths over a wider alphabet (including the rejections), with and without a leading slash. */
    @Test
    void agreesWithTheReferenceOnRandomPaths() {
        String[] alphabet = {
            "/", "/", ".", ".", "a", "b", "%2e", "%2E", "%2F", "%2f", "%5c", "%5C", "%41", "\\",
            "%3a", "%00", "%", "%g1", "#", " ", "~", "%7e", "\u00e9", ";", ";", "%3b", "..;", "=1"
        };
        SplittableRandom random = new SplittableRandom(20240917);
        for (int round = 0; round < 60_000; round++) {
            StringBuilder sb = new StringBuilder(random.nextInt(10) == 0 ? "" : "/");
            int units = random.nextInt(16);
            for (int k = 0; k < units; k++) {
                // weight the common units so that long paths are not almost always rejected
                int pick = random.nextInt(4) == 0 ? random.nextInt(alphabet.length) : random.nextInt(8);
                sb.append(alphabet[pick]);
            }
            assertAgrees(sb.toString(), ALL_OPTIONS[random.nextInt(ALL_OPTIONS.length)]);
        }
    }

    private static void assertAgrees(String path, int options) {
        String expected = Reference.normalize(path, options);
        // embed the path in a larger target to prove the range is honoured
        String target = "GET " + path + "?x=/../";
        int end = PathNormalizer.pathEnd(target, 4, target.length());
        byte[] out = new byte[3 * path.length() + 1];
        int n = PathNormalizer.normalize(target, 4, end, out, options);
        String actual = n < 0 ? name(n) : new String(out, 0, n, StandardCharsets.ISO_8859_1);
        if (end != 4 + path.length() || !actual.equals(expected)) {
            // AssertJ only on a mismatch: the loops above run a few hundred thousand cases
            assertThat(end).as("path end of %s", target).isEqualTo(4 + path.length());
            assertThat(actual).as("%s with options %s", path, options).isEqualTo(expected);
        }
    }

    private static String run(CharSequence input, int options) {
        byte[] out = new byte[3 * input.length() + 1];
        int n = PathNormalizer.normalize(input, 0, input.length(), out, options);
        return n < 0 ? name(n) : new String(out, 0, n, StandardCharsets.ISO_8859_1);
    }

    private static Arguments ok(String input, String expected) {
        return ok(input, expected, DEFAULT_OPTIONS);
    }

    private static Arguments ok(String input, String expected, int options) {
        return Arguments.of(input, expected, options);
    }

    private static Arguments err(String input, int code) {
        return err(input, code, DEFAULT_OPTIONS);
    }

    private static Arguments err(String input, int code, int options) {
        return Arguments.of(input, name(code), options);
    }

    private static String name(int code) {
        return switch (code) {
            case REJECT_NOT_ORIGIN_FORM -> "REJECT_NOT_ORIGIN_FORM";
            case REJECT_BAD_ESCAPE -> "REJECT_BAD_ESCAPE";
            case REJECT_ENCODED_SLASH -> "REJECT_ENCODED_SLASH";
            case REJECT_BACKSLASH -> "REJECT_BACKSLASH";
            case REJECT_NUL -> "REJECT_NUL";
            case REJECT_CONTROL_OR_NON_ASCII -> "REJECT_CONTROL_OR_NON_ASCII";
            case REJECT_ABOVE_ROOT -> "REJECT_ABOVE_ROOT";
            case REJECT_TOO_LONG -> "REJECT_TOO_LONG";
            case REJECT_FRAGMENT_OR_QUERY -> "REJECT_FRAGMENT_OR_QUERY";
            case REJECT_PATH_PARAMETER -> "REJECT_PATH_PARAMETER";
            default -> "code " + code;
        };
    }

    /**
     * The rules written the slow, plain way: split into decoded segments, keep a stack of
     * segments, join. Problems are reported in the order met from the left.
     */
    static final class Reference {
        private static final String UNRESERVED =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
        private static final String HEX = "0123456789abcdefABCDEF";
        private static final String BOUNDARY = "<boundary>";
        private static final String PARAMETERS = "<parameters>";

        static String normalize(String path, int options) {
            if (path.isEmpty() || path.charAt(0) != '/') {
                return "REJECT_NOT_ORIGIN_FORM";
            }
            List<String> stack = new ArrayList<>();
            StringBuilder segment = new StringBuilder();
            boolean inParameters = false;
            int i = 1;
            while (i < path.length()) {
                String unit;
                char c = path.charAt(i);
                if (c == '%') {
                    if (i + 2 >= path.length() || HEX.indexOf(path.charAt(i + 1)) < 0 || HEX.indexOf(path.charAt(i + 2)) < 0) {
                        return "REJECT_BAD_ESCAPE";
                    }
                    String hex = path.substring(i + 1, i + 3);
                    unit = decodeEscape(hex, options);
                    i += 3;
                } else {
                    unit = raw(c, options);
                    i++;
                }
                if (unit.startsWith("REJECT")) {
                    return unit;
                }
                if (unit.equals(BOUNDARY)) {
                    String problem = close(segment.toString(), stack);
                    if (problem != null) {
                        return problem;
                    }
                    segment.setLength(0);
                    inParameters = false;
                } else if (unit.equals(PARAMETERS)) {
                    inParameters = true;
                } else if (!inParameters) {
                    segment.append(unit);
                }
            }
            String last = segment.toString();
            String problem = close(last, stack);
            if (problem != null) {
                return problem;
            }
            boolean trailing = last.isEmpty() || last.equals(".") || last.equals("..");
            String joined = "/" + String.join("/", stack);
            return trailing && !stack.isEmpty() ? joined + "/" : joined;
        }

        private static String close(String segment, List<String> stack) {
            if (segment.isEmpty() || segment.equals(".")) {
                return null;
            }
            if (segment.equals("..")) {
                if (stack.isEmpty()) {
                    return "REJECT_ABOVE_ROOT";
                }
                stack.remove(stack.size() - 1);
                return null;
            }
            stack.add(segment);
            return null;
        }

        private static String decodeEscape(String hex, int options) {
            int value = Integer.parseInt(hex, 16);
            if (value == 0) {
                return "REJECT_NUL";
            }
            if (value == '/') {
                return mode(options, ENCODED_SLASH_DECODE, ENCODED_SLASH_KEEP, "%2F", "REJECT_ENCODED_SLASH");
            }
            if (value == '\\') {
                return mode(options, BACKSLASH_DECODE, BACKSLASH_KEEP, "%5C", "REJECT_BACKSLASH");
            }
            if (value == ';') {
                return parameters(options, "%3B");
            }
            if (UNRESERVED.indexOf(value) >= 0) {
                return String.valueOf((char) value);
            }
            return "%" + hex.toUpperCase(java.util.Locale.ROOT);
        }

        private static String raw(char c, int options) {
            if (c == '/') {
                return BOUNDARY;
            }
            if (c == '\\') {
                return mode(options, BACKSLASH_DECODE, BACKSLASH_KEEP, "%5C", "REJECT_BACKSLASH");
            }
            if (c == 0) {
                return "REJECT_NUL";
            }
            if (c <= ' ' || c >= 0x7F) {
                return "REJECT_CONTROL_OR_NON_ASCII";
            }
            if (c == '#' || c == '?') {
                return "REJECT_FRAGMENT_OR_QUERY";
            }
            if (c == ';') {
                return parameters(options, ";");
            }
            return String.valueOf(c);
        }

        private static String parameters(int options, String kept) {
            if ((options & PATH_PARAMETERS_KEEP) != 0) {
                return kept;
            }
            return (options & PATH_PARAMETERS_REJECT) != 0 ? "REJECT_PATH_PARAMETER" : PARAMETERS;
        }

        private static String mode(int options, int decodeBit, int keepBit, String kept, String rejected) {
            if ((options & decodeBit) != 0) {
                return BOUNDARY;
            }
            return (options & keepBit) != 0 ? kept : rejected;
        }
    }

    /** The options the snapshot compiler passes for {@code spec}. */
    private static int options(NormalizeSpec spec) {
        return PathNormalizer.options(spec.encodedSlash(), spec.backslash(), spec.pathParameters());
    }
}
