package io.paduraksa.server.testing;

import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Grammar pieces and byte mutations shared by the HTTP/1.1 request and response fuzzers. */
public final class Http1Fuzz {
    private static final String TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final byte[] INSERTS = {'\r', '\n', 0, ' ', '\t', ':', ';', '0', (byte) 0x80, 0x7F};

    private Http1Fuzz() {
    }


    public static String token(SplittableRandom r, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(TCHAR.charAt(r.nextInt(TCHAR.length())));
        }
        return s.toString();
    }

    /** A field value with optional leading/trailing OWS, inner SP/HTAB, VCHAR and obs-text, sometimes long. */
    public static String value(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        if (r.nextBoolean()) {
            s.append(r.nextBoolean() ? " " : "\t");
        }
        int n = r.nextInt(1000) == 0 ? 7000 + r.nextInt(2000) : r.nextInt(20);
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(40);
            s.append(k == 0 ? ' ' : k == 1 ? '\t' : k == 2 ? (char) (0x80 + r.nextInt(0x80)) : (char) (0x21 + r.nextInt(0x5E)));
        }
        if (r.nextInt(4) == 0) {
            s.append(r.nextBoolean() ? " " : "\t");
        }
        return s.toString();
    }

    public static String bodyBytes(SplittableRandom r, int n) {
        StringBuilder s = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            s.append((char) (r.nextInt(4) == 0 ? r.nextInt(256) : 'a' + r.nextInt(26)));
        }
        return s.toString();
    }

    /** One to three chunks with odd sizes and extensions, the last chunk, and trailer fields. */
    public static String chunked(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        int chunks = r.nextInt(4);
        for (int i = 0; i < chunks; i++) {
            String data = bodyBytes(r, 1 + r.nextInt(20));
            s.append(chunkSize(r, data.length())).append(extensions(r)).append("\r\n").append(data).append("\r\n");
        }
        s.append(r.nextInt(10) == 0 ? "000" : "0").append(extensions(r)).append("\r\n");
        int trailers = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0;
        for (int i = 0; i < trailers; i++) {
            s.append(token(r, 1 + r.nextInt(8))).append(':').append(value(r)).append("\r\n");
        }
        return s.append("\r\n").toString();
    }

    public static String chunkSize(SplittableRandom r, int n) {
        String hex = Integer.toHexString(n);
        return switch (r.nextInt(12)) {
            case 0 -> hex.toUpperCase(Locale.ROOT);
            case 1 -> "0".repeat(1 + r.nextInt(17)) + hex;
            case 2 -> hex + " ";
            case 3 -> Integer.toHexString(n + 1);
            case 4 -> "-" + hex;
            default -> hex;
        };
    }

    public static String extensions(SplittableRandom r) {
        return switch (r.nextInt(16)) {
            case 0 -> ";a=b";
            case 1 -> ";name";
            case 2 -> ";a=\"q s\"";
            case 3 -> " ;a=b";
            case 4 -> ";a=\"unterminated";
            case 5 -> ";a=b;c=d";
            case 6 -> r.nextInt(20) == 0 ? ";" + "x".repeat(1000 + r.nextInt(100)) : ";x=\"a\\\"b\"";
            case 7 -> ";=";
            default -> "";
        };
    }

    public static void shuffle(SplittableRandom r, List<String> list) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            String t = list.get(i);
            list.set(i, list.get(j));
            list.set(j, t);
        }
    }

    /** Zero to three byte-level mutations: flip, insert a framing byte, delete, obs-fold, duplicate a line, bare LF. */
    public static String mutate(SplittableRandom r, String s) {
        int n = r.nextInt(5) < 2 ? 0 : 1 + r.nextInt(3);
        for (int i = 0; i < n && !s.isEmpty(); i++) {
            int at = r.nextInt(s.length());
            s = switch (r.nextInt(7)) {
                case 0 -> s.substring(0, at) + (char) (s.charAt(at) ^ (1 << r.nextInt(8))) + s.substring(at + 1);
                case 1 -> s.substring(0, at) + (char) (INSERTS[r.nextInt(INSERTS.length)] & 0xFF) + s.substring(at);
                case 2 -> s.substring(0, at) + s.substring(at + 1);
                case 3 -> lineOp(r, s, "\r\n" + (r.nextBoolean() ? " " : "\t") + "folded");
                case 4 -> duplicateLine(r, s);
                case 5 -> bareLineEnd(r, s);
                default -> s.substring(0, at) + "\r\n" + s.substring(at);
            };
        }
        return s;
    }

    /** Inserts {@code text} before a random CRLF (an obs-fold continuation after a field line). */
    private static String lineOp(SplittableRandom r, String s, String text) {
        int at = nthLineEnd(r, s);
        return at < 0 ? s : s.substring(0, at) + text + s.substring(at);
    }

    private static final Pattern CHUNK_EXT_LINE = Pattern.compile("(?m)^[0-9A-Fa-f]+[ \t]*;[^\r\n]*");
    private static final Pattern BWS = Pattern.compile("[ \t]*([;=])[ \t]*");

    /**
     * {@code s} with the whitespace around {@code ;} and {@code =} removed from every line that looks
     * like a chunk-size line with extensions: BWS there is valid (RFC 9112 section 7.1.1, and RFC 9110
     * section 5.6.3 says a recipient MUST parse it), but Netty's decoder refuses it between extensions.
     */
    public static String withoutChunkExtensionBws(String s) {
        Matcher m = CHUNK_EXT_LINE.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(BWS.matcher(m.group()).replaceAll("$1")));
        }
        return m.appendTail(out).toString();
    }

    /** Turns a random CRLF into a bare LF or, sometimes, a bare CR. */
    private static String bareLineEnd(SplittableRandom r, String s) {
        int at = nthLineEnd(r, s);
        if (at < 0) {
            return s;
        }
        return s.substring(0, at) + (r.nextInt(4) == 0 ? "\r" : "\n") + s.substring(at + 2);
    }

    /** Repeats a random line (a framing field, typically) right after itself. */
    private static String duplicateLine(SplittableRandom r, String s) {
        int end = nthLineEnd(r, s);
        if (end < 0) {
            return s;
        }
        int start = s.lastIndexOf("\r\n", end - 1);
        start = start < 0 ? 0 : start + 2;
        return s.substring(0, end + 2) + s.substring(start, end + 2) + s.substring(end + 2);
    }

    private static int nthLineEnd(SplittableRandom r, String s) {
        int lines = 0;
        for (int i = s.indexOf("\r\n"); i >= 0; i = s.indexOf("\r\n", i + 2)) {
            lines++;
        }
        if (lines == 0) {
            return -1;
        }
        int k = r.nextInt(lines);
        int i = s.indexOf("\r\n");
        while (k-- > 0) {
            i = s.indexOf("\r\n", i + 2);
        }
        return i;
    }
}
