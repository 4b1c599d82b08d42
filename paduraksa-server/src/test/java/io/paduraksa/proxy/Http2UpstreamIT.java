package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 upstreams (cluster protocol h2c and h2) behind HTTP/1.1 and HTTP/2 clients: request
 * translation, gRPC with trailers end to end, TLS with ALPN, and the failures: refused connection,
 * a stream reset mid-response, GOAWAY (in-flight streams finish, unprocessed ones are retried) and
 * SETTINGS_MAX_CONCURRENT_STREAMS = 1 forcing a second connection.
 */
class Http2UpstreamIT {
    private static H2Origin h2c;
    private static H2Origin tls;
    private static H2Origin http11Only;
    private static H2Origin single;
    private static H2Origin goAway;
    private static H2Origin refuse;
    private static int closedPort;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        h2c = new H2Origin(100);
        tls = new H2Origin(100, new String[] {"h2", "http/1.1"});
        http11Only = new H2Origin(100, new String[] {"http/1.1"});
        single = new H2Origin(1);
        goAway = new H2Origin(100);
        refuse = new H2Origin(100);
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String ca = H2Client.testFile("ca.pem").toString();
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                  - {name: admin, address: "127.0.0.1:0", admin: true}
                clusters:
                  h2c: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                  tls:
                    protocol: h2
                    destinations: [{url: "https://127.0.0.1:%d"}]
                    tls: {verify: true, ca: "%s", sni: a.test}
                  alpn:
                    protocol: h2
                    destinations: [{url: "https://127.0.0.1:%d"}]
                    tls: {verify: true, ca: "%s", sni: a.test}
                  refused: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                  single: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                  goaway: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                  refuse: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                hosts:
                  - {names: [grpc.test], routes: [{path: /, forward: h2c}]}
                  - {names: [tls.test], routes: [{path: /, forward: tls}]}
                  - {names: [alpn.test], routes: [{path: /, forward: alpn}]}
                  - {names: [refused.test], routes: [{path: /, forward: refused}]}
                  - {names: [single.test], routes: [{path: /, forward: single}]}
                  - {names: [goaway.test], routes: [{path: /, forward: goaway}]}
                  - {names: [refuse.test], routes: [{path: /, forward: refuse}]}
                """.formatted(h2c.port(), tls.port(), ca, http11Only.port(), ca, closedPort, single.port(), goAway.port(),
                refuse.port()));
    }

    @AfterAll
    static void stop() {
        server.close();
        for (H2Origin o : new H2Origin[] {h2c, tls, http11Only, single, goAway, refuse}) {
            o.close();
        }
    }

    /** A gRPC message: compressed flag 0, 4-byte length, payload. */
    private static String grpcMessage(String payload) {
        byte[] p = payload.getBytes(StandardCharsets.ISO_8859_1);
        return new String(new byte[] {0, 0, 0, 0, (byte) p.length}, StandardCharsets.ISO_8859_1) + payload;
    }

    @Test
    void grpcUnaryCallPassesWithHeadersDataAndTrailers() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers h = H2Client.headers("POST", "grpc.test", "/grpc");
            h.add("content-type", "application/grpc");
            h.add("te", "trailers");
            h.add("content-length", "10");
            String message = grpcMessage("hello");
            H2Client.Stream s = c.send(h, message, true);
            H2Client.Response r = s.done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("application/grpc");
            assertThat(r.body()).isEqualTo(message);
            assertThat(s.trailers).isNotNull();
            assertThat(s.trailers.get("grpc-status").toString()).isEqualTo("0");
            assertThat(s.trailers.get("grpc-message").toString()).isEqualTo("ok");
        }
        Http2Headers seen = last(h2c);
        assertThat(seen.get("te").toString()).isEqualTo("trailers");
        assertThat(seen.scheme().toString()).isEqualTo("http");
        assertThat(seen.authority().toString()).isEqualTo("grpc.test");
        assertThat(seen.get("x-forwarded-for").toString()).isEqualTo("127.0.0.1");
        assertThat(seen.get("content-length").toString()).isEqualTo("10");
    }

    private static Http2Headers last(H2Origin o) {
        Http2Headers last = null;
        for (Http2Headers h : o.requests) {
            last = h;
        }
        return last;
    }

    @Test
    void http1ClientIsTranslatedWithTheNormalisedPath() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /a/../echo?x=1 HTTP/1.1\r\nHost: grpc.test\r\nConnection: keep-alive, x-drop\r\n"
                    + "X-Drop: 1\r\nX-Kept: yes\r\nKeep-Alive: 5\r\nTE: trailers\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains(":method: GET\n", ":path: /echo?x=1\n", ":authority: grpc.test\n", "x-kept: yes\n",
                    "te: trailers\n", "x-forwarded-proto: http\n", "x-request-id: ");
            assertThat(r.body()).doesNotContain("x-drop", "keep-alive", "connection: keep");
            assertThat(r.header("server")).isEqualTo("h2origin");
        }
    }

    @Test
    void http1ClientGetsGrpcTrailersAsChunkedTrailers() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("POST /grpc HTTP/1.1\r\nHost: grpc.test\r\nConnection: close\r\nContent-Length: 10\r\nTE: trailers\r\n\r\n" + grpcMessage("hello"));
            String all = c.readAll();
            assertThat(all).startsWith("HTTP/1.1 200 ").containsIgnoringCase("transfer-encoding: chunked")
                    .contains("0\r\ngrpc-status: 0\r\ngrpc-message: ok\r\n\r\n");
        }
    }

    @Test
    void bigResponseFollowsASlowClientThroughFlowControl() throws Exception {
        int size = 16 << 20;
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port("public"))) {
            s.setReceiveBufferSize(16 * 1024);
            s.getOutputStream().write(("GET /big/" + size + " HTTP/1.1\r\nHost: grpc.test\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            long total = 0;
            int reads = 0;
            int n;
            while ((n = in.read(buf)) > 0) {
                total += n;
                if (++reads < 50) {
                    Thread.sleep(2); // slow at first, so that the proxy's client side fills and the upstream stream pauses
                }
            }
            assertThat(total).isGreaterThan(size).isLessThan(size + 1024L); // the head plus exactly the body
        }
    }

    @Test
    void h2OverTlsWithAlpn() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response r = c.get("GET", "tls.test", "/echo");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains(":scheme: https\n", ":authority: tls.test\n");
        }
    }

    @Test
    void upstreamChoosingHttp11ByAlpnIs502() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.get("GET", "alpn.test", "/echo").status()).isEqualTo(502);
        }
    }

    @Test
    void connectionRefusedIs502() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.get("GET", "refused.test", "/").status()).isEqualTo(502);
        }
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: refused.test\r\n\r\n").status()).isEqualTo(502);
        }
    }

    @Test
    void anInterimHeadIsFollowedByTheFinalOne() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response r = c.get("GET", "grpc.test", "/interim");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains(":path: /interim");
        }
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("GET /interim HTTP/1.1\r\nHost: grpc.test\r\nConnection: close\r\n\r\n");
            String all = c.readAll();
            assertThat(all).startsWith("HTTP/1.1 200 ").contains(":path: /interim"); // an HTTP/1.1 client gets no 103
        }
    }

    @Test
    void aMalformedResponseHeadIs502AndTheConnectionServesTheNext() throws Exception {
        double invalid = invalidResponses();
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.get("GET", "grpc.test", "/bad-status").status()).isEqualTo(502);
            assertThat(c.get("GET", "grpc.test", "/echo").status()).isEqualTo(200);
        }
        assertThat(invalidResponses() - invalid).as("counted as an invalid response, not a reset").isEqualTo(1);
    }

    /** paduraksa_upstream_errors_total of cluster h2c, kind invalid_response (0 before the first). */
    private static double invalidResponses() throws Exception {
        try (RawHttp admin = new RawHttp(server.port("admin"))) {
            String body = admin.exchange("GET /metrics HTTP/1.1\r\nHost: admin\r\n\r\n").body();
            double sum = 0;
            for (String line : body.split("\n")) {
                if (line.startsWith("paduraksa_upstream_errors_total{") && line.contains("cluster=\"h2c\"")
                        && line.contains("kind=\"invalid_response\"")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        }
    }

    @Test
    void aPingFromTheUpstreamIsAnsweredAndTheResponseArrives() throws Exception {
        int acks = h2c.pingAcks.get();
        try (H2Client c = H2Client.connect(server.port("public"))) {
            assertThat(c.get("GET", "grpc.test", "/ping").status()).isEqualTo(200);
            assertThat(c.get("GET", "grpc.test", "/echo").status()).isEqualTo(200);
        }
        assertThat(h2c.pingAcks.get()).as("PING acks the upstream received").isEqualTo(acks + 1);
    }

    @Test
    void streamResetMidResponseResetsTheClientStreamOnly() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response cut = c.get("GET", "grpc.test", "/reset-mid");
            assertThat(cut.status()).isEqualTo(200);
            assertThat(cut.reset()).isEqualTo(2L); // INTERNAL_ERROR
            assertThat(c.get("GET", "grpc.test", "/echo").status()).isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("GET /reset-mid HTTP/1.1\r\nHost: grpc.test\r\n\r\n");
            String all = c.readAll(); // ends with the close
            assertThat(all).startsWith("HTTP/1.1 200 ").doesNotEndWith("0\r\n\r\n");
        }
    }

    @Test
    void goAwayLetsTheStreamFinishAndTheNextRequestUsesANewConnection() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response first = c.get("GET", "goaway.test", "/goaway-after");
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).contains("connection: 1\n");
            H2Client.Response second = c.get("GET", "goaway.test", "/echo");
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).contains("connection: 2\n");
        }
        assertThat(goAway.connections.get()).isEqualTo(2);
    }

    @Test
    void streamAboveGoAwayLastStreamIdIsRetried() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response r = c.get("GET", "refuse.test", "/goaway-refuse");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("connection: 2\n");
        }
    }

    @Test
    void maxConcurrentStreamsOfOneOpensASecondConnection() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Stream a = c.send(H2Client.headers("GET", "single.test", "/slow"), null, true);
            H2Client.Stream b = c.send(H2Client.headers("GET", "single.test", "/slow"), null, true);
            H2Client.Response ra = a.done.get(5, TimeUnit.SECONDS);
            H2Client.Response rb = b.done.get(5, TimeUnit.SECONDS);
            assertThat(ra.status()).isEqualTo(200);
            assertThat(rb.status()).isEqualTo(200);
            assertThat(ra.body() + rb.body()).contains("connection: 1\n", "connection: 2\n");
        }
        assertThat(single.connections.get()).isEqualTo(2);
    }
}
