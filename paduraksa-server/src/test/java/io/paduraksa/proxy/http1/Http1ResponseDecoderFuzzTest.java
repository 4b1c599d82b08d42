package io.paduraksa.proxy.http1;

import static io.paduraksa.server.testing.Http1Fuzz.bodyBytes;
import static io.paduraksa.server.testing.Http1Fuzz.chunked;
import static io.paduraksa.server.testing.Http1Fuzz.mutate;
import static io.paduraksa.server.testing.Http1Fuzz.shuffle;
import static io.paduraksa.server.testing.Http1Fuzz.token;
import static io.paduraksa.server.testing.Http1Fuzz.value;
import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.server.testing.FuzzCases;
import io.paduraksa.server.testing.Http1Fuzz;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded differential fuzzing of {@link Http1ResponseDecoder}, our defence against response
 * splitting and desync from a hostile upstream, against Netty's {@link HttpResponseDecoder} told
 * which responses answer a HEAD (as {@code HttpClientCodec} does). Each case is one to three
 * responses to GET or HEAD requests, grammar-built over the framing rules of RFC 9112 section 6.3
 * (HEAD, 1xx interim responses such as 100 and 103 before a final one, 204 and 304 even with
 * Content-Length, close-delimited bodies, chunked with trailers, Transfer-Encoding with
 * Content-Length, duplicate Content-Length), often mutated (bare LF, obs-fold, NUL, byte flips,
 * inserted CR/LF/SP/HTAB, duplicated lines), fed to both split at the same random points, then
 * the connection closes.
 *
 * <p>The property: every response ours completes, Netty completes too, with equal status,
 * version, reason, fields in order, body and trailers; interim heads count as responses. Ours may
 * complete fewer (it is stricter, and refuses bytes after the responses it expects). Two differences
 * where ours accepts what Netty refuses are explained: {@link #DUPLICATE_CONTENT_LENGTH} and
 * {@link #CHUNK_EXTENSION_BWS}.
 *
 * <p>Replay: {@code -Dfuzz.seed=}, {@code -Dfuzz.cases=}, {@code -Dfuzz.case=} as {@link FuzzCases} says.
 */
class Http1ResponseDecoderFuzzTest {
    private static final int[] STATUSES = {200, 200, 200, 201, 204, 206, 301, 304, 400, 404, 500, 503};
    private static final String[] REASONS = {"OK", "", "Not Modified", "Some Reason With Spaces", "caf\u00e9", "x\ty"};
    private static final String[] COMMON = {"Server: origin.test", "Content-Type: text/html; charset=utf-8",
            "Set-Cookie: a=1; Path=/", "Cache-Control: no-store", "Connection: keep-alive", "Connection: close",
            "Vary: Accept-Encoding", "Trailer: X-Sum", "Keep-Alive: timeout=5"};

    /**
     * A response as both decoders can show it. The reason phrase is compared without leading and
     * trailing SP/HTAB: RFC 9112 section 4 lets it start with HTAB, Netty trims it; it is not framing.
     */
    record Response(int status, int version, String reason, List<String> headers, String body, String trailers) {
        Response {
            reason = trimOws(reason);
        }
    }

    private static String trimOws(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return s.substring(from, to);
    }

    @Test
    void oursNeverCompletesAResponseNettyRefusesOrReadsDifferently() {
        FuzzCases.run("Http1ResponseDecoderFuzzTest", Http1ResponseDecoderFuzzTest::check);
    }

    static String check(SplittableRandom r, FuzzCases.Case c) {
        List<Boolean> heads = new ArrayList<>();
        byte[] bytes = mutate(r, generate(r, heads)).getBytes(ISO_8859_1);
        byte[][] chunks = FuzzCases.split(r, bytes);
        c.describe(chunks);
        List<Object> events = decode(heads, FuzzCases.copy(chunks));
        List<Response> mine = completed(events);
        List<Response> netty = netty(heads, FuzzCases.copy(chunks), false);
        if (!isPrefix(mine, netty, false)) {
            byte[][] withoutBws = {Http1Fuzz.withoutChunkExtensionBws(new String(bytes, ISO_8859_1)).getBytes(ISO_8859_1)};
            if (isPrefix(mine, netty(heads, FuzzCases.copy(chunks), true), true)) {
                c.count(DUPLICATE_CONTENT_LENGTH);
                return null;
            }
            if (isPrefix(mine, netty(heads, withoutBws, false), false)) {
                c.count(CHUNK_EXTENSION_BWS);
                return null;
            }
            if (isPrefix(mine, netty(heads, withoutBws, true), true)) {
                c.count(DUPLICATE_CONTENT_LENGTH + " and " + CHUNK_EXTENSION_BWS);
                return null;
            }
        }
        for (int i = 0; i < mine.size(); i++) {
            if (i >= netty.size()) {
                return "ours completed response " + i + " which Netty refused or did not complete (HEAD: " + heads + ")\n  ours:  "
                        + mine + "\n  netty: " + netty + "\n  our events: " + events;
            }
            if (!mine.get(i).equals(netty.get(i))) {
                return "response " + i + " differs (HEAD: " + heads + ")\n  ours:  " + mine.get(i) + "\n  netty: " + netty.get(i);
            }
        }
        boolean error = !events.isEmpty() && events.get(events.size() - 1) instanceof Http1Error;
        c.count(mine.size() == netty.size() ? "same" : error ? "ours stricter" : "ours stopped");
        return null;
    }

    /**
     * The one explained difference: ours accepts a Content-Length repeated with the same value (as
     * field lines or a list), which RFC 9110 section 8.6 lets a recipient do since where the body
     * ends is still unambiguous; Netty refuses it unless {@code allowDuplicateContentLengths}. Such a
     * case passes when Netty with that option agrees (Content-Length fields aside, which Netty folds
     * into one).
     */
    static final String DUPLICATE_CONTENT_LENGTH = "explained: repeated equal Content-Length (RFC 9110 8.6)";

    /**
     * The other: whitespace around {@code ;} and {@code =} between chunk extensions, valid BWS per RFC
     * 9112 section 7.1.1 (RFC 9110 section 5.6.3: a recipient MUST parse it) that Netty refuses. The
     * client never sees upstream chunk lines: the body is framed again. Such a case passes when Netty,
     * fed the bytes without that whitespace ({@code Http1Fuzz.withoutChunkExtensionBws}), agrees.
     */
    static final String CHUNK_EXTENSION_BWS = "explained: BWS in chunk extensions (RFC 9112 7.1.1)";

    private static boolean isPrefix(List<Response> mine, List<Response> netty, boolean ignoreContentLength) {
        if (mine.size() > netty.size()) {
            return false;
        }
        for (int i = 0; i < mine.size(); i++) {
            Response a = mine.get(i);
            Response b = netty.get(i);
            if (ignoreContentLength) {
                a = new Response(a.status(), a.version(), a.reason(), without(a.headers(), "Content-Length:"), a.body(), a.trailers());
                b = new Response(b.status(), b.version(), b.reason(), without(b.headers(), "Content-Length:"), b.body(), b.trailers());
            }
            if (!a.equals(b)) {
                return false;
            }
        }
        return true;
    }

    // ---- the grammar

    /** One to three responses; {@code heads} receives, per final response, whether its request was a HEAD. */
    static String generate(SplittableRandom r, List<Boolean> heads) {
        StringBuilder sb = new StringBuilder();
        int n = 1 + (r.nextInt(4) == 0 ? r.nextInt(3) : 0);
        for (int i = 0; i < n; i++) {
            boolean head = r.nextInt(5) == 0;
            heads.add(head);
            int interim = r.nextInt(6) == 0 ? 1 + r.nextInt(2) : 0;
            for (int k = 0; k < interim; k++) {
                sb.append(r.nextBoolean() ? "HTTP/1.1 100 Continue\r\n" : "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n");
                if (r.nextInt(20) == 0) {
                    sb.append("Content-Length: 3\r\n");
                }
                sb.append("\r\n");
            }
            response(r, sb, head, i == n - 1);
        }
        return sb.toString();
    }

    private static void response(SplittableRandom r, StringBuilder sb, boolean head, boolean last) {
        int status = STATUSES[r.nextInt(STATUSES.length)];
        boolean http10 = r.nextInt(12) == 0;
        sb.append(http10 ? "HTTP/1.0 " : "HTTP/1.1 ").append(status).append(' ').append(REASONS[r.nextInt(REASONS.length)]).append("\r\n");
        List<String> fields = new ArrayList<>();
        int extra = r.nextInt(5);
        for (int i = 0; i < extra; i++) {
            fields.add(r.nextBoolean() ? COMMON[r.nextInt(COMMON.length)] : token(r, 1 + r.nextInt(12)) + ":" + value(r));
        }
        boolean noBody = head || status == 204 || status == 304;
        int framing = r.nextInt(last ? 6 : 5); // 0-1 Content-Length, 2-3 chunked, 4 both or odd, 5 close-delimited
        String body = "";
        if (framing <= 1 || framing == 4 && r.nextBoolean()) {
            String content = bodyBytes(r, r.nextInt(40));
            fields.add(r.nextInt(fields.size() + 1), "Content-Length: " + (r.nextInt(12) == 0 ? content.length() + 1 : content.length()));
            if (r.nextInt(10) == 0) {
                fields.add("Content-Length: " + content.length());
            }
            body = noBody && r.nextInt(4) != 0 ? "" : content;
        }
        if (framing == 2 || framing == 3 || framing == 4) {
            fields.add(r.nextInt(fields.size() + 1), "Transfer-Encoding: " + (r.nextInt(10) == 0 ? "gzip, chunked" : "chunked"));
            if (r.nextInt(12) == 0) {
                fields.add("Transfer-Encoding: chunked");
            }
            body = noBody && r.nextInt(4) != 0 ? "" : chunked(r);
        }
        if (framing == 5) {
            body = bodyBytes(r, r.nextInt(40));
            if (r.nextBoolean()) {
                fields.add("Connection: close");
            }
        }
        if (r.nextInt(8) == 0) {
            shuffle(r, fields);
        }
        for (String f : fields) {
            sb.append(f).append("\r\n");
        }
        sb.append("\r\n").append(body);
    }

    // ---- the two decoders

    private static List<Object> decode(List<Boolean> heads, byte[][] chunks) {
        StringBuilder expect = new StringBuilder();
        for (boolean head : heads) {
            expect.append(head ? 'H' : 'G');
        }
        return Http1ResponseCollector.decode(expect.toString(), true, chunks);
    }

    /** Responses ours ended: interim heads at once, final ones at their end marker. */
    private static List<Response> completed(List<Object> events) {
        List<Response> out = new ArrayList<>();
        Http1ResponseCollector.Head head = null;
        StringBuilder body = new StringBuilder();
        String trailers = "[]";
        for (Object e : events) {
            if (e instanceof Http1ResponseCollector.Head h) {
                if (h.informational()) {
                    out.add(new Response(h.status(), h.version(), h.reason(), withoutTransferEncoding(h.headers()), "", "[]"));
                } else {
                    head = h;
                    body.setLength(0);
                    trailers = "[]";
                }
            } else if (e instanceof String s && s.startsWith("data:")) {
                body.append(s, 5, s.length());
            } else if (e instanceof String s && s.startsWith("trailers:")) {
                trailers = s.substring("trailers:".length()); // the collector's List.toString(), as below
            } else if (Http1ResponseCollector.END.equals(e) && head != null) {
                List<String> fields = head.hasBody() ? head.headers() : withoutTransferEncoding(head.headers());
                out.add(new Response(head.status(), head.version(), head.reason(), fields, body.toString(), trailers));
                head = null;
            }
        }
        return out;
    }

    /**
     * For a response without a body (1xx, 204, 304, an answer to HEAD) Netty removes {@code chunked}
     * from Transfer-Encoding ({@code HttpUtil.setTransferEncodingChunked(msg, false)}), rewriting the
     * field; that is how it represents the head, not a framing difference, so both sides drop the field.
     */
    private static List<String> withoutTransferEncoding(List<String> headers) {
        return without(headers, "Transfer-Encoding:");
    }

    private static List<String> without(List<String> headers, String namePrefix) {
        List<String> out = new ArrayList<>();
        for (String h : headers) {
            if (!h.regionMatches(true, 0, namePrefix, 0, namePrefix.length())) {
                out.add(h);
            }
        }
        return List.copyOf(out);
    }

    /** Netty's decoder, told per final response whether it answers a HEAD (1xx heads do not consume one). */
    static List<Response> netty(List<Boolean> heads, byte[][] chunks, boolean allowDuplicateContentLengths) {
        ArrayDeque<Boolean> queue = new ArrayDeque<>(heads);
        HttpDecoderConfig config = new HttpDecoderConfig().setMaxHeaderSize(Http1ResponseDecoder.DEFAULT_MAX_HEAD_SIZE)
                .setMaxInitialLineLength(Http1ResponseDecoder.DEFAULT_MAX_HEAD_SIZE)
                .setAllowDuplicateContentLengths(allowDuplicateContentLengths);
        EmbeddedChannel ch = new EmbeddedChannel(new HttpResponseDecoder(config) {
            @Override
            protected boolean isContentAlwaysEmpty(HttpMessage msg) {
                if (((HttpResponse) msg).status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                    return super.isContentAlwaysEmpty(msg);
                }
                Boolean head = queue.poll();
                return head != null && head || super.isContentAlwaysEmpty(msg);
            }
        });
        List<Response> seen = new ArrayList<>();
        try {
            for (byte[] chunk : chunks) {
                ch.writeInbound(Unpooled.wrappedBuffer(chunk));
            }
            ch.finish();
            HttpResponse current = null;
            boolean noBody = false;
            int finals = 0;
            StringBuilder body = new StringBuilder();
            for (Object m; (m = ch.readInbound()) != null; ) {
                try {
                    if (!(m instanceof HttpObject) || ((HttpObject) m).decoderResult().isFailure()) {
                        return seen; // a failure, or raw bytes after a 101 (Netty's upgraded state)
                    }
                    if (m instanceof HttpResponse res) {
                        current = res;
                        body.setLength(0);
                        int code = res.status().code();
                        noBody = code < 200 || code == 204 || code == 304 || finals < heads.size() && heads.get(finals);
                        finals += code < 200 ? 0 : 1;
                    }
                    if (m instanceof HttpContent content) {
                        body.append(content.content().toString(ISO_8859_1));
                    }
                    if (m instanceof LastHttpContent last && current != null) {
                        List<String> trailers = new ArrayList<>();
                        for (Map.Entry<String, String> t : last.trailingHeaders()) {
                            trailers.add(t.getKey() + ": " + t.getValue());
                        }
                        seen.add(response(current, noBody, body.toString(), trailers.toString()));
                        current = null;
                    }
                } finally {
                    ReferenceCountUtil.release(m);
                }
            }
        } finally {
            ch.finishAndReleaseAll();
        }
        return seen;
    }

    private static Response response(HttpResponse res, boolean noBody, String body, String trailers) {
        List<String> headers = new ArrayList<>();
        for (Map.Entry<String, String> h : res.headers()) {
            headers.add(h.getKey() + ": " + h.getValue());
        }
        headers = noBody ? withoutTransferEncoding(headers) : headers;
        return new Response(res.status().code(), res.protocolVersion().majorVersion() * 10 + res.protocolVersion().minorVersion(),
                res.status().reasonPhrase(), List.copyOf(headers), body, trailers);
    }
}
