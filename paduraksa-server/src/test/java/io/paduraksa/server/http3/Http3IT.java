package io.paduraksa.server.http3;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http3.Http3Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.AccessLogLines;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/3 with Netty's own client against the real server: gate answers, policies, rate limits and
 * forwarding to an HTTP/1.1 upstream (request body, a response larger than the stream window, the
 * QUIC peer as the client, a failed forward's access-log line), hostile requests, and the
 * {@code Alt-Svc} advertisement on the same listener's HTTP/1.1 and HTTP/2 answers.
 */
class Http3IT {
    @TempDir
    static Path dir;
    static Path log;
    static TestOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        log = dir.resolve("access.log");
        server = TestServer.start("""
                listeners:
                  - name: tls
                    address: "127.0.0.1:0"
                    protocols: [http1, h2, h3]
                    tls:
                      certificates:
                        - {cert: "%s", key: "%s"}
                    http3: {max_streams: 64, max_field_section_size: 8KiB, alt_svc_max_age: 1h}
                limits: {max_body_size: 200KiB}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                  dead: {destinations: [{url: "http://127.0.0.1:1"}], retry: {attempts: 0}}
                access_log: {enabled: true, path: "%s", format: json}
                policies:
                  no-admin: {type: path, deny: [/admin]}
                  limited: {type: rate_limit, key: "header:X-Client", rate: 1/h, burst: 3, headers: true}
                  waf: {type: attacks, inspect: {body: {max: 64KiB}}}
                  # 920170 excluded: this client's FIN can follow the HEADERS frame apart, and a GET whose stream did not
                  # end with its HEADERS counts as one with a body (920170, GET or HEAD with a body).
                  waf-all: {type: attacks, inspect: {all_headers: true}, exclusions: [{rules: [920170]}]}
                hosts:
                  - names: [a.test]
                    policies: [no-admin]
                    routes:
                      - {path: /limited, policies: [limited], respond: {status: 200, body: "counted\\n"}}
                      - {path: /app, forward: app}
                      - {path: /waf, policies: [waf], forward: app}
                      - {path: /all-headers, policies: [waf-all], forward: app}
                      - {path: /big, forward: app}
                      - {path: /dead, forward: dead}
                      - {path: /, respond: {status: 200, body: "hello h3\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url(), log));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void theGateAnswersOverHttp3() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response ok = c.send("GET", "a.test", "/").await();
            assertThat(ok.end).isEqualTo("fin");
            assertThat(ok.status).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("hello h3\n");
            assertThat(ok.header("date")).endsWith(" GMT");
            assertThat(ok.header("content-length")).isEqualTo("9");
            H3Client.Response head = c.send("HEAD", "a.test", "/").await();
            assertThat(head.status).isEqualTo(200);
            assertThat(head.bodyBytes).isZero();
            assertThat(c.send("GET", "nope.example", "/").await().status).isEqualTo(421);
            assertThat(c.send("GET", "a.test", "/admin/x").await().status).isEqualTo(403);
        }
    }

    @Test
    void aFailedForwardIsLoggedWithItsUpstreamError() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            assertThat(c.send("GET", "a.test", "/dead/h3").await().status).isEqualTo(502);
            assertThat(c.send("GET", "a.test", "/app/logged").await().status).isEqualTo(200);
        }
        JsonNode failed = AccessLogLines.lineFor(log, "/dead/h3", "HTTP/3");
        assertThat(failed.get("status").asInt()).isEqualTo(502);
        assertThat(failed.get("cluster").asText()).isEqualTo("dead");
        assertThat(failed.get("upstream_error").asText()).as("the name paduraksa_upstream_errors_total gives it").isEqualTo("connect");
        assertThat(AccessLogLines.lineFor(log, "/app/logged", "HTTP/3").get("upstream_error").isNull()).isTrue();
    }

    /**
     * The attacks policy's body phase over HTTP/3: a body sent with its FIN in one frame (the gate runs
     * with it in hand) and one cut over DATA frames sent apart (inspected as they arrive, the escape and
     * the attack split between frames); attacks 403, a benign body forwarded whole.
     */
    @Test
    void requestBodiesAreInspectedOverHttp3() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            assertThat(post(c, "name=Siobh%C3%A1n+O%27Brien&comment=Great+shoes").status).isEqualTo(200);
            assertThat(post(c, "name=ann&comment=1%27+union+select+password+from+users--").status).isEqualTo(403);
            String benign = "q=red+running+shoes&size=42";
            H3Client.Response ok = post(c, benign);
            assertThat(ok.body()).contains("body-bytes: " + benign.length());

            Http3Headers h = H3Client.headers("POST", "a.test", "/waf/comment");
            h.add("content-type", "application/x-www-form-urlencoded");
            H3Client.Response split = c.open(h);
            for (String piece : new String[] {"name=ann&comment=1%2", "7+un", "ion+sel", "ect+password+from+users--"}) {
                split.stream.writeAndFlush(new io.netty.handler.codec.http3.DefaultHttp3DataFrame(
                        io.netty.buffer.Unpooled.copiedBuffer(piece, java.nio.charset.StandardCharsets.US_ASCII))).sync();
                Thread.sleep(30);
            }
            split.stream.shutdownOutput();
            assertThat(split.await().status).as("the attack cut across DATA frames").isEqualTo(403);
        }
    }

    /** {@code all_headers} over HTTP/3: the fields are listed from QPACK's headers, a repeated one's second line too. */
    @Test
    void allHeadersInspectsEveryHeaderOverHttp3() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            Http3Headers attack = H3Client.headers("GET", "a.test", "/all-headers/x");
            attack.add("x-trace", "benign");
            attack.add("accept", "text/html");
            attack.add("x-trace", "com.opensymphony.xwork2");
            Http3Headers benign = H3Client.headers("GET", "a.test", "/all-headers/x");
            benign.add("x-trace", "com.example.shop.android/5.2.1");
            benign.add("accept", "text/html");

            assertThat(c.send(attack, null).await().status).isEqualTo(403);
            assertThat(c.send(benign, null).await().status).isEqualTo(200);
        }
    }

    private static H3Client.Response post(H3Client c, String form) throws Exception {
        Http3Headers h = H3Client.headers("POST", "a.test", "/waf/comment");
        h.add("content-type", "application/x-www-form-urlencoded");
        return c.send(h, form.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).await();
    }

    @Test
    void theClientIsToldTheListenersStreamLimit() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            long allowed = 0;
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(3);
            while (allowed == 0 && System.nanoTime() < deadline) { // read by Netty from quiche once the peer's parameters are in
                allowed = c.channel().peerAllowedStreams(io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL);
                Thread.sleep(10);
            }
            assertThat(allowed).as("initial_max_streams_bidi from http3.max_streams").isEqualTo(64);
        }
    }

    @Test
    void aRateLimitCountsHttp3RequestsAndSaysSo() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            Http3Headers h = H3Client.headers("GET", "a.test", "/limited");
            h.add("x-client", "h3-" + System.nanoTime());
            int[] statuses = new int[5];
            String remaining = null;
            for (int i = 0; i < statuses.length; i++) {
                H3Client.Response r = c.send(h, null).await();
                statuses[i] = r.status;
                if (i == 1) {
                    remaining = r.header("ratelimit-remaining");
                }
            }
            assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
            assertThat(remaining).isEqualTo("1");
        }
    }

    @Test
    void aForwardedRequestCarriesItsBodyAndThePeerAsClient() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            Http3Headers h = H3Client.headers("POST", "a.test", "/app/echo?q=1");
            h.add("content-type", "text/plain");
            h.add("cf-connecting-ip", "203.0.113.9"); // not a trusted proxy: not believed
            byte[] body = "b".repeat(100_000).getBytes(StandardCharsets.US_ASCII);
            H3Client.Response r = c.send(h, body).await();
            assertThat(r.status).isEqualTo(200);
            assertThat(r.body()).startsWith("POST /app/echo?q=1\n")
                    .contains("body-bytes: 100000\n", "x-forwarded-for: 127.0.0.1\n", "x-forwarded-proto: https\n",
                            "content-type: text/plain\n", "host: a.test\n");
            assertThat(r.header("server")).isEqualTo("origin");
            assertThat(r.header("keep-alive")).isNull(); // hop-by-hop: not on HTTP/3
            // the request id the upstream got comes back (request_id.echo, on by default)
            assertThat(r.header("x-request-id")).matches("[0-9a-f]{16}");
            assertThat(r.body()).contains("x-request-id: " + r.header("x-request-id") + "\n");
        }
    }

    @Test
    void withRequestIdForwardingOffTheFieldPassesBothWaysAndTheGatesAnswersCarryTheId() throws Exception {
        try (TestServer off = TestServer.start("""
                listeners:
                  - {name: tls, address: "127.0.0.1:0", protocols: [http1, h3], tls: {certificates: [{cert: "%s", key: "%s"}]}}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                forwarding: {request_id: {forward: false}}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /app, forward: app}
                      - {path: /, respond: {status: 200, body: "hello h3\\n"}}
                """.formatted(H2Client.testFile("a-test-chain.pem"), H2Client.testFile("a-test.key"), origin.url()));
                H3Client c = H3Client.connect(off.port("tls"), "a.test")) {
            H3Client.Response forwarded = c.send("GET", "a.test", "/app/echo").await();
            assertThat(forwarded.status).isEqualTo(200);
            assertThat(forwarded.body()).contains("host: a.test\n").doesNotContain("x-request-id");
            assertThat(forwarded.header("x-request-id")).isNull();
            Http3Headers h = H3Client.headers("GET", "a.test", "/app/echo");
            h.add("x-request-id", "client-9");
            assertThat(c.send(h, null).await().body()).contains("x-request-id: client-9\n");
            assertThat(c.send("GET", "a.test", "/app/with-id").await().header("x-request-id")).isEqualTo("origin-1");
            assertThat(c.send("GET", "a.test", "/").await().header("x-request-id")).matches("[0-9a-f]{16}");
        }
    }

    @Test
    void aBodyStreamedInPiecesAndEndedByAnEmptyDataFrameReachesTheUpstream() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response r = c.open(H3Client.headers("PUT", "a.test", "/app/echo"));
            Thread.sleep(100); // the head is forwarded before the body comes
            for (int i = 0; i < 10; i++) {
                r.stream.writeAndFlush(new io.netty.handler.codec.http3.DefaultHttp3DataFrame(
                        io.netty.buffer.Unpooled.wrappedBuffer(new byte[5000]))).sync();
            }
            r.stream.writeAndFlush(new io.netty.handler.codec.http3.DefaultHttp3DataFrame(io.netty.buffer.Unpooled.EMPTY_BUFFER))
                    .addListener(io.netty.handler.codec.quic.QuicStreamChannel.SHUTDOWN_OUTPUT);
            r.await();
            assertThat(r.status).isEqualTo(200);
            assertThat(r.body()).contains("body-bytes: 50000\n");
        }
    }

    @Test
    void aBodyOverTheLimitIsRefused() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            Http3Headers declared = H3Client.headers("POST", "a.test", "/app/echo");
            declared.add("content-length", "300000");
            H3Client.Response r = c.open(declared);
            assertThat(r.await().status).as("declared over max_body_size").isEqualTo(413);
            H3Client.Response streamed = c.send(H3Client.headers("POST", "a.test", "/app/echo"), new byte[300_000]).await();
            assertThat(streamed.status).as("streamed over max_body_size: %s", streamed).isIn(413, -1);
            assertThat(streamed.body()).doesNotContain("body-bytes: 300000");
            assertThat(c.send("GET", "a.test", "/").await().status).isEqualTo(200);
        }
    }

    @Test
    void aLargeResponseArrivesWhole() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            H3Client.Response r = c.send("GET", "a.test", "/big/20000000");
            r.keepBody = false;
            r.done.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(r.end).isEqualTo("fin");
            assertThat(r.status).isEqualTo(200);
            assertThat(r.bodyBytes).isEqualTo(20_000_000L);
        }
    }

    @Test
    void malformedRequestsAreRefusedOrReset() throws Exception {
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            // Connection-specific fields (RFC 9114 4.2): 400, or Netty's reset for `connection`.
            for (String field : List.of("transfer-encoding", "keep-alive", "upgrade", "proxy-connection")) {
                Http3Headers h = H3Client.headers("GET", "a.test", "/");
                h.add(field, "chunked");
                assertThat(c.send(h, null).await().status).as(field).isEqualTo(400);
            }
            Http3Headers te = H3Client.headers("GET", "a.test", "/");
            te.add("te", "gzip");
            assertThat(c.send(te, null).await().status).isNotEqualTo(200);
            Http3Headers conn = H3Client.headers("GET", "a.test", "/");
            conn.add("connection", "close");
            assertThat(c.send(conn, null).await().status).isNotEqualTo(200);
            // Pseudo-header fields: missing :path, an unknown one, :protocol without extended CONNECT.
            Http3Headers noPath = new io.netty.handler.codec.http3.DefaultHttp3Headers(false);
            noPath.method("GET").scheme("https").authority("a.test");
            assertThat(c.send(noPath, null).await().status).isNotEqualTo(200);
            Http3Headers protocol = H3Client.headers("GET", "a.test", "/");
            protocol.set(":protocol", "websocket");
            assertThat(c.send(protocol, null).await().status).isNotEqualTo(200);
            Http3Headers connect = new io.netty.handler.codec.http3.DefaultHttp3Headers(false);
            connect.method("CONNECT").authority("a.test:443");
            assertThat(c.send(connect, null).await().status).isIn(-1, 501);
            // Host disagreeing with :authority: routed by one, judged by the other, so refused.
            Http3Headers host = H3Client.headers("GET", "a.test", "/admin");
            host.add("host", "b.test");
            assertThat(c.send(host, null).await().status).isNotEqualTo(200).isNotEqualTo(403);
            // The connection still serves after all these.
            assertThat(c.send("GET", "a.test", "/").await().status).isEqualTo(200);
            // A field section over the SETTINGS_MAX_FIELD_SECTION_SIZE we sent (http3.max_field_section_size,
            // 8KiB here) breaks the client's promise: Netty's decoder ends the connection (H3_EXCESSIVE_LOAD).
            Http3Headers big = H3Client.headers("GET", "a.test", "/");
            big.add("x-big", "v".repeat(10_000));
            H3Client.Response tooBig = c.send(big, null).await();
            assertThat(tooBig.status).isEqualTo(-1);
            assertThat(c.channel().closeFuture().await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        try (H3Client c = H3Client.connect(server.port("tls"), "a.test")) {
            Http3Headers under = H3Client.headers("GET", "a.test", "/");
            under.add("x-big", "v".repeat(7_000));
            assertThat(c.send(under, null).await().status).as("a section under the limit").isEqualTo(200);
        }
    }

    @Test
    void theListenersHttp1AndHttp2AnswersAdvertiseHttp3() throws Exception {
        int port = server.port("tls");
        String expected = "h3=\":" + port + "\"; ma=3600";
        try (SSLSocket s = tlsSocket(port, "a.test", "http/1.1")) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: a.test\r\n\r\nGET /app/x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            String[] responses = answer.split("HTTP/1.1 200 ", -1);
            assertThat(responses).hasSize(3); // a gate answer, then a forwarded response
            assertThat(responses[1]).contains("\r\nAlt-Svc: " + expected + "\r\n");
            assertThat(responses[2]).contains("\r\nAlt-Svc: " + expected + "\r\n").contains("origin: origin");
        }
        try (H2Client c = H2Client.connectTls(port, "a.test")) {
            assertThat(c.get("GET", "a.test", "/").header("alt-svc")).isEqualTo(expected);
            assertThat(c.get("GET", "a.test", "/app/x").header("alt-svc")).isEqualTo(expected);
        }
    }

    static SSLSocket tlsSocket(int port, String sni, String alpn) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(H2Client.testFile("ca.pem"))) {
            Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
            trust.setCertificateEntry("ca", ca);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName(sni)));
        p.setApplicationProtocols(new String[] {alpn});
        s.setSSLParameters(p);
        return s;
    }
}
