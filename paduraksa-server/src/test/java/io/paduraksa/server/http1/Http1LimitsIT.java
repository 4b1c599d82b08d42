package io.paduraksa.server.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The configured {@code limits} enforced on real HTTP/1.1 connections. Limits are small here so that
 * each one is reached with a few bytes or a few hundred milliseconds.
 */
class Http1LimitsIT {
    static final String LIMITS = """
            limits:
              max_request_line: 256
              max_header_size: 1KiB
              max_headers: 10
              max_body_size: 1KiB
              header_timeout: 300ms
              idle_timeout: 400ms
              body_min_rate: 1KiB
            """;
    static final String YAML = """
            listeners:
              - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
              - {name: mixed, address: "127.0.0.1:0", protocols: [http1, h2c]}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9"}]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /static, respond: {status: 200, body: "static\\n"}}
                  - {path: /upload, forward: app}
            """ + LIMITS;

    static TestServer server;

    /** Takes forwarded requests and never answers, so their bodies are read under the body-rate rule. */
    static final class HoldingForwarder implements Forwarder {
        @Override
        public void forward(RequestState state, ForwardExchange exchange) {
            // held until the connection ends
        }
    }

    @BeforeAll
    static void start() {
        server = TestServer.start(YAML, new HoldingForwarder(), null);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static RawHttp connect() throws IOException {
        return new RawHttp(server.port("h1"));
    }

    static void assertAnsweredAndClosed(RawHttp c, int status) throws IOException {
        RawHttp.Response r = c.read();
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(c.isClosedByServer()).isTrue();
    }

    @Test
    void requestLineOverTheLimitGets414AndCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /" + "a".repeat(300) + " HTTP/1.1\r\nHost: a.test\r\n\r\n");
            assertAnsweredAndClosed(c, 414);
        }
    }

    @Test
    void requestLineOverTheLimitGets414BeforeItsEnd() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /" + "a".repeat(300));
            assertAnsweredAndClosed(c, 414);
        }
    }

    @Test
    void requestLineJustUnderTheLimitIsServed() throws Exception {
        try (RawHttp c = connect()) {
            String line = "GET /static?" + "q".repeat(256 - "GET /static? HTTP/1.1".length()) + " HTTP/1.1";
            assertThat(line).hasSize(256);
            assertThat(c.exchange(line + "\r\nHost: a.test\r\n\r\n").status()).isEqualTo(200);
        }
    }

    @Test
    void headOverTheLimitGets431AndCloses() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /static HTTP/1.1\r\nHost: a.test\r\nX-Big: " + "b".repeat(1100) + "\r\n\r\n");
            assertAnsweredAndClosed(c, 431);
        }
    }

    @Test
    void tooManyHeadersGets431AndCloses() throws Exception {
        StringBuilder request = new StringBuilder("GET /static HTTP/1.1\r\nHost: a.test\r\n");
        for (int i = 0; i < 10; i++) {
            request.append("X-H").append(i).append(": v\r\n");
        }
        try (RawHttp c = connect()) {
            c.send(request.append("\r\n").toString());
            assertAnsweredAndClosed(c, 431);
        }
    }

    @Test
    void tenHeadersAreServed() throws Exception {
        StringBuilder request = new StringBuilder("GET /static HTTP/1.1\r\nHost: a.test\r\n");
        for (int i = 0; i < 9; i++) {
            request.append("X-H").append(i).append(": v\r\n");
        }
        try (RawHttp c = connect()) {
            assertThat(c.exchange(request.append("\r\n").toString()).status()).isEqualTo(200);
        }
    }

    /** Only the head is sent: 413 must come without waiting for a body. */
    @Test
    void declaredContentLengthOverTheLimitGets413BeforeTheBody() throws Exception {
        try (RawHttp c = connect()) {
            c.send("POST /upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1025\r\n\r\n");
            assertAnsweredAndClosed(c, 413);
        }
    }

    @Test
    void chunkedBodyPassingTheLimitGets413() throws Exception {
        try (RawHttp c = connect()) {
            c.send("POST /upload HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "200\r\n" + "x".repeat(512) + "\r\n"
                    + "200\r\n" + "x".repeat(512) + "\r\n"
                    + "1\r\n");
            assertAnsweredAndClosed(c, 413);
        }
    }

    /** Slowloris: the head trickles in a byte at a time and is never complete within header_timeout. */
    @ParameterizedTest
    @ValueSource(strings = {"h1", "mixed"})
    void headTricklingInPastTheHeaderTimeoutGets408AndCloses(String listener) throws Exception {
        try (RawHttp c = new RawHttp(server.port(listener))) {
            c.send("GET /static HTTP/1.1\r\nHost: a.test\r\n");
            byte[] trickle = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int sent = 0;
            // Keep trickling until the server gives up; it must, long before the bytes run out.
            while (sent < trickle.length && System.nanoTime() < deadline && c.socket().getInputStream().available() == 0) {
                try {
                    c.send(new byte[] {trickle[sent++]});
                } catch (IOException closed) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(sent).isLessThan(trickle.length);
            assertAnsweredAndClosed(c, 408);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h1", "mixed"})
    void idleKeepAliveConnectionIsClosedAfterTheIdleTimeout(String listener) throws Exception {
        try (RawHttp c = new RawHttp(server.port(listener))) {
            assertThat(c.exchange("GET /static HTTP/1.1\r\nHost: a.test\r\n\r\n").status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(c.isClosedByServer()).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(300L, 4_000L);
        }
    }

    /** Also before the first byte, on listeners that first detect the protocol (h2c preface or HTTP/1.1). */
    @ParameterizedTest
    @ValueSource(strings = {"h1", "mixed"})
    void connectionThatNeverSendsIsClosedAfterTheIdleTimeout(String listener) throws Exception {
        try (RawHttp c = new RawHttp(server.port(listener))) {
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    /** Slow POST: a body below body_min_rate (after the grace, here header_timeout) loses its connection. */
    @Test
    void bodySlowerThanTheMinimumRateClosesTheConnection() throws Exception {
        try (RawHttp c = connect()) {
            c.send("POST /upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1000\r\n\r\n");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            int sent = 0;
            boolean closed = false;
            while (!closed && System.nanoTime() < deadline) {
                try {
                    c.send("x");
                    sent++;
                } catch (IOException e) {
                    closed = true;
                }
                c.socket().setSoTimeout(100);
                closed |= c.isClosedByServer();
            }
            assertThat(closed).as("closed after %d body bytes", sent).isTrue();
            assertThat(sent).isLessThan(1000);
        }
    }

    @Test
    void bodyAtAGoodRateIsRead() throws Exception {
        try (RawHttp c = connect()) {
            c.send("POST /upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(1000));
            // Long enough that 1000 B averaged over it falls below 1 KiB/s: a complete body is not slow,
            // and the idle timeout does not run while the (held) request is in flight.
            c.socket().setSoTimeout(1_500);
            assertThat(c.isClosedByServer()).isFalse();
        }
    }

    @Test
    void connectionsOverMaxConnectionsAreClosedWithoutAnAnswer() throws Exception {
        String yaml = """
                listeners:
                  - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "ok"}}
                limits:
                  max_connections: 2
                """;
        String get = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
        List<RawHttp> open = new ArrayList<>();
        try (TestServer s = TestServer.start(yaml)) {
            int port = s.port("h1");
            for (int i = 0; i < 2; i++) {
                open.add(new RawHttp(port));
                assertThat(open.get(i).exchange(get).status()).isEqualTo(200);
            }
            try (RawHttp extra = new RawHttp(port)) {
                assertThat(extra.readAll()).isEmpty();
            }
            open.remove(0).close();
            // The freed slot is counted back when the server sees the close: poll for it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            boolean served = false;
            while (!served && System.nanoTime() < deadline) {
                try (RawHttp next = new RawHttp(port)) {
                    served = next.exchange(get).status() == 200;
                } catch (IOException refused) {
                    Thread.sleep(20);
                }
            }
            assertThat(served).isTrue();
            assertThat(open.get(0).exchange(get).status()).isEqualTo(200);
        } finally {
            for (RawHttp c : open) {
                c.close();
            }
        }
    }

    /**
     * The start of a next head pipelined behind an answered request is timed as a head: it must not
     * get the (longer) idle timeout first, which would let a slowloris hold the connection longer.
     */
    @Test
    void partialHeadPipelinedBehindARequestGets408AfterTheHeaderTimeout() throws Exception {
        String yaml = """
                listeners:
                  - {name: h1, address: "127.0.0.1:0", protocols: [http1]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "ok"}}
                limits:
                  header_timeout: 300ms
                  idle_timeout: 30s
                """;
        try (TestServer s = TestServer.start(yaml); RawHttp c = new RawHttp(s.port("h1"))) {
            c.send("GET / HTTP/1.1\r\nHost: a.test\r\n\r\nGET / HTTP/1.1\r\nHo");
            assertThat(c.read().status()).isEqualTo(200);
            assertAnsweredAndClosed(c, 408);
        }
    }
}
