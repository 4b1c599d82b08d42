package io.paduraksa.server.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gate over HTTP/2 with prior knowledge (h2c), on a listener that also speaks HTTP/1.1 (the
 * protocol detector picks h2 by the preface) and on an h2c-only one: every answer kind, HEAD, many
 * streams at once, drops as stream resets, request bodies, authority and CONNECT.
 */
class Http2GateIT {
    static final String YAML = """
            listeners:
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
              - {name: h2only, address: "127.0.0.1:0", protocols: [h2c]}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            policies:
              no-admin: {type: path, deny: [/admin]}
              trap: {type: path, deny: [/trap], action: {drop: true}}
            hosts:
              - names: [a.test, "*.a.test"]
                policies: [no-admin, trap]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n", content_type: "text/plain; charset=utf-8"}}
                  - {path: /old, redirect: {location: "https://a.test/new", status: 301}}
                  - {path: /gone, drop: true}
                  - {path: /, forward: app}
            """;

    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void answersWithStatusHeadersAndBody(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            H2Client.Response ok = c.get("GET", "a.test", "/static?x=1");
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.header("content-type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(ok.header("content-length")).isEqualTo("7");
            assertThat(ok.header("date")).hasSize(29).endsWith(" GMT");
            assertThat(ok.body()).isEqualTo("static\n");
            assertThat(ok.reset()).isEqualTo(-1);

            H2Client.Response moved = c.get("GET", "www.a.test", "/old/page");
            assertThat(moved.status()).isEqualTo(301);
            assertThat(moved.header("location")).isEqualTo("https://a.test/new");
            assertThat(moved.header("content-length")).isEqualTo(String.valueOf(moved.body().length()));

            H2Client.Response denied = c.get("GET", "a.test", "/admin/users");
            assertThat(denied.status()).isEqualTo(403);
            assertThat(denied.header("content-length")).isEqualTo(String.valueOf(denied.body().length()));
            assertThat(denied.header("date")).endsWith(" GMT");

            H2Client.Response unknown = c.get("GET", "nope.example", "/");
            assertThat(unknown.status()).isEqualTo(421);
            assertThat(unknown.header("content-length")).isEqualTo(String.valueOf(unknown.body().length()));

            // A connection-level header never appears in an HTTP/2 answer (RFC 9113 8.2.2).
            assertThat(ok.header("connection")).isNull();
            assertThat(c.isOpenAfter(0)).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void headAnswersHeadersOnly(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            H2Client.Response head = c.get("HEAD", "a.test", "/static");
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-length")).isEqualTo("7");
            assertThat(head.body()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void answersOneHundredConcurrentStreamsOnOneConnection(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            assertThat(c.remoteSettings().maxConcurrentStreams()).isEqualTo(100L);
            String[] paths = {"/static", "/old", "/admin"};
            int[] expected = {200, 301, 403};
            for (int round = 0; round < 3; round++) {
                List<H2Client.Stream> streams = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    streams.add(c.send(H2Client.headers("GET", "a.test", paths[i % 3] + "?i=" + i), null, true));
                }
                for (int i = 0; i < 100; i++) {
                    H2Client.Response r = streams.get(i).done.get(5, TimeUnit.SECONDS);
                    assertThat(r.status()).as("stream %d", r.streamId()).isEqualTo(expected[i % 3]);
                    assertThat(r.reset()).isEqualTo(-1);
                    if (i % 3 == 0) {
                        assertThat(r.body()).isEqualTo("static\n");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/gone", "/trap/x"})
    void dropResetsTheStreamWithoutAnswerAndKeepsTheConnection(String path) throws Exception {
        try (H2Client c = H2Client.connect(server.port("h2only"))) {
            H2Client.Stream dropped = c.send(H2Client.headers("GET", "a.test", path), null, true);
            H2Client.Response r = dropped.done.get(5, TimeUnit.SECONDS);
            assertThat(r.headers()).as("no answer before the reset").isNull();
            assertThat(r.reset()).isEqualTo(Http2Error.CANCEL.code());
            assertThat(c.get("GET", "a.test", "/static").status()).isEqualTo(200);
            assertThat(c.isOpenAfter(0)).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void unfinishedBodyGetsTheAnswerThenResetNoError(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            Http2Headers post = H2Client.headers("POST", "a.test", "/static").set("content-length", "100");
            H2Client.Stream s = c.send(post, "first part", false);
            H2Client.Response r = s.done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("static\n");
            assertThat(s.reset.get(5, TimeUnit.SECONDS)).isEqualTo(Http2Error.NO_ERROR.code());
            // The gate answers on the headers, so a body in a later DATA frame is unfinished at that
            // moment even when that frame ends the stream: answer, then perhaps a reset (a race).
            H2Client.Stream full = c.send(H2Client.headers("POST", "a.test", "/static"), "all of it", true);
            assertThat(full.done.get(5, TimeUnit.SECONDS).body()).isEqualTo("static\n");
            // A request ended with its headers is never reset.
            H2Client.Stream get = c.send(H2Client.headers("GET", "a.test", "/static"), null, true);
            assertThat(get.done.get(5, TimeUnit.SECONDS).body()).isEqualTo("static\n");
            assertThat(c.get("GET", "a.test", "/static").status()).isEqualTo(200);
            assertThat(get.reset.isDone()).isFalse();
            // HEAD with an unfinished body: headers only (END_STREAM), then the reset.
            H2Client.Stream head = c.send(H2Client.headers("HEAD", "a.test", "/static"), "x", false);
            assertThat(head.done.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(head.reset.get(5, TimeUnit.SECONDS)).isEqualTo(Http2Error.NO_ERROR.code());
        }
    }

    /**
     * A request with a body and trailers is answered once, on its first HEADERS; the trailers that
     * follow in the same read are not taken for a new request, while a request whose first HEADERS
     * ends the stream is (the handler tells the two apart from Netty's stream marks).
     */
    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void trailersAreNotASecondRequest(String listener) throws Exception {
        try (H2Frames c = H2Frames.connect(server.port(listener))) {
            Http2Headers trailers = new DefaultHttp2Headers(false).add("x-checksum", "abc");
            c.batch(() -> {
                c.headers(1, H2Frames.headers("POST", "a.test", "/static"), false);
                c.data(1, "payload", false);
                c.headers(1, trailers, true);
                c.headers(3, H2Frames.headers("GET", "a.test", "/old"), true);
            });
            // Frames of the two streams interleave: read until both have ended.
            List<H2Frames.Frame> seen = new ArrayList<>();
            boolean[] ended = new boolean[4];
            while (!ended[1] || !ended[3]) {
                H2Frames.Frame f = c.next();
                assertThat(f).as("frames so far: %s", seen).isNotNull().isNotEqualTo(H2Frames.CLOSED);
                seen.add(f);
                if (f.streamId() == 1 || f.streamId() == 3) {
                    ended[f.streamId()] |= f.endStream() || f.isRst();
                }
            }
            assertThat(seen).filteredOn(f -> f.streamId() == 1 && f.headers() != null).singleElement()
                    .satisfies(f -> assertThat(f.status()).isEqualTo(200));
            assertThat(seen).filteredOn(f -> f.streamId() == 3 && f.headers() != null).singleElement()
                    .satisfies(f -> assertThat(f.status()).isEqualTo(301));
            assertThat(seen).noneMatch(H2Frames.Frame::isGoAway);
            assertThat(c.isOpen()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void hostStandsInForAMissingAuthorityAndMustAgreeWithIt(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            Http2Headers hostOnly = H2Client.headers("GET", null, "/static").set("host", "a.test");
            assertThat(c.send(hostOnly, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);

            Http2Headers same = H2Client.headers("GET", "a.test", "/static").set("host", "A.TEST");
            assertThat(c.send(same, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);

            Http2Headers differ = H2Client.headers("GET", "a.test", "/static").set("host", "nope.example");
            assertThat(c.send(differ, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(400);

            Http2Headers differOther = H2Client.headers("GET", "nope.example", "/static").set("host", "a.test");
            assertThat(c.send(differOther, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(400);

            Http2Headers neither = H2Client.headers("GET", null, "/static");
            assertThat(c.send(neither, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(421);

            Http2Headers withPort = H2Client.headers("GET", "A.Test:8443", "/static");
            assertThat(c.send(withPort, null, true).done.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mixed", "h2only"})
    void connectIsRefused(String listener) throws Exception {
        try (H2Client c = H2Client.connect(server.port(listener))) {
            Http2Headers connect = new DefaultHttp2Headers().method("CONNECT").authority("a.test:443");
            H2Client.Response r = c.send(connect, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(501);
            assertThat(c.get("GET", "a.test", "/static").status()).isEqualTo(200);
        }
    }
}
