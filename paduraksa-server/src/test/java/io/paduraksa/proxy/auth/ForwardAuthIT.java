package io.paduraksa.proxy.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forward-auth against a real auth service on loopback (the JDK's HTTP server) and a real upstream:
 * allow with copied headers, 401, redirect, the service down or slow, the cache (hits, expiry,
 * different cookies), HTTP/1.1 and HTTP/2 clients, a client leaving while the service thinks.
 *
 * <p>The service decides by the cookie: {@code user=NAME} is 200 with {@code X-User: NAME},
 * {@code go=login} is 302 to /login, {@code slow=1} answers after 1.5 s, anything else 401.
 */
class ForwardAuthIT {
    private static HttpServer auth;
    private static final AtomicInteger calls = new AtomicInteger();
    private static final AtomicReference<String> lastForwardedUri = new AtomicReference<>();
    private static final CountDownLatch slowStarted = new CountDownLatch(1);
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        auth = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        auth.setExecutor(Executors.newFixedThreadPool(4));
        auth.createContext("/auth", ForwardAuthIT::decide);
        auth.start();
        origin = new TestOrigin("protected");
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        String service = "http://127.0.0.1:" + auth.getAddress().getPort() + "/auth";
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1, h2c]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  sso:
                    type: forward_auth
                    url: %s
                    forward_headers: [Cookie]
                    copy_response_headers: [X-User]
                    cache: {ttl: 300ms}
                    timeout: 500ms
                  sso-nocache:
                    type: forward_auth
                    url: %s
                    forward_headers: [Cookie]
                    timeout: 500ms
                  down-deny: {type: forward_auth, url: "http://127.0.0.1:%d/auth", timeout: 500ms}
                  down-allow: {type: forward_auth, url: "http://127.0.0.1:%d/auth", timeout: 500ms, when_unavailable: allow}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /nocache, policies: [sso-nocache], forward: app}
                      - {path: /down-deny, policies: [down-deny], forward: app}
                      - {path: /down-allow, policies: [down-allow], forward: app}
                      - {path: /, policies: [sso], forward: app}
                """.formatted(origin.url(), service, service, deadPort, deadPort));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
        auth.stop(0);
    }

    private static void decide(HttpExchange x) throws IOException {
        calls.incrementAndGet();
        lastForwardedUri.set(x.getRequestHeaders().getFirst("X-Forwarded-Uri"));
        try (InputStream in = x.getRequestBody()) {
            in.readAllBytes();
        }
        String cookie = x.getRequestHeaders().getFirst("Cookie");
        cookie = cookie == null ? "" : cookie;
        if (cookie.contains("slow=1")) {
            slowStarted.countDown();
            try {
                Thread.sleep(1_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (cookie.startsWith("user=")) {
            x.getResponseHeaders().add("X-User", cookie.substring(5));
            x.sendResponseHeaders(200, -1);
        } else if (cookie.equals("go=login")) {
            x.getResponseHeaders().add("Location", "https://login.example/start");
            x.sendResponseHeaders(302, -1);
        } else {
            byte[] body = "sign in first".getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("WWW-Authenticate", "Bearer realm=\"app\"");
            x.getResponseHeaders().add("Content-Type", "text/plain");
            x.sendResponseHeaders(401, body.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        }
        x.close();
    }

    private static RawHttp.Response get(String path, String cookie) throws IOException {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            return c.exchange("GET " + path + " HTTP/1.1\r\nHost: app.test\r\n"
                    + (cookie == null ? "" : "Cookie: " + cookie + "\r\n") + "X-User: spoofed\r\n\r\n");
        }
    }

    @Test
    void anAllowedRequestReachesTheUpstreamWithTheCopiedHeaderOnly() throws Exception {
        RawHttp.Response r = get("/page?x=1", "user=alice");
        assertThat(r.status()).isEqualTo(200);
        assertThat(origin.lastRequest()).contains("x-user: alice\n").doesNotContain("spoofed");
        assertThat(lastForwardedUri.get()).isEqualTo("/page?x=1");
    }

    @Test
    void theServiceJudgesThePathTheUpstreamReceives() throws Exception {
        RawHttp.Response r = get("/nocache;jsessionid=1/x/..;/page;v=2?x=1", "user=alice");
        assertThat(r.status()).isEqualTo(200);
        assertThat(lastForwardedUri.get()).isEqualTo("/nocache/page?x=1");
        assertThat(origin.lastRequest()).startsWith("GET /nocache/page?x=1\n");
    }

    @Test
    void aDenialGoesToTheClientWithTheChallenge() throws Exception {
        RawHttp.Response r = get("/page", "nobody=1");
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.header("www-authenticate")).isEqualTo("Bearer realm=\"app\"");
        assertThat(r.body()).isEqualTo("sign in first");
    }

    @Test
    void aRedirectGoesToTheClient() throws Exception {
        RawHttp.Response r = get("/page", "go=login");
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("location")).isEqualTo("https://login.example/start");
    }

    @Test
    void aCachedDecisionIsReusedWithoutACallAndExpires() throws Exception {
        String cookie = "user=cached-" + System.nanoTime();
        int before = calls.get();
        assertThat(get("/a", cookie).status()).isEqualTo(200);
        assertThat(get("/b", cookie).status()).isEqualTo(200);
        assertThat(origin.lastRequest()).contains("x-user: cached-");
        assertThat(calls.get() - before).isEqualTo(1);
        // A different cookie is a different key: its own call and its own decision.
        assertThat(get("/b", "other=" + System.nanoTime()).status()).isEqualTo(401);
        assertThat(calls.get() - before).isEqualTo(2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (calls.get() - before < 3 && System.nanoTime() < deadline) {
            assertThat(get("/c", cookie).status()).isEqualTo(200); // after the 300 ms TTL, asked again
        }
        assertThat(calls.get() - before).isEqualTo(3);
    }

    @Test
    void withoutACacheEveryRequestAsks() throws Exception {
        int before = calls.get();
        assertThat(get("/nocache", "user=bob").status()).isEqualTo(200);
        assertThat(get("/nocache", "user=bob").status()).isEqualTo(200);
        assertThat(calls.get() - before).isEqualTo(2);
    }

    @Test
    void anUnreachableServiceDeniesWith503OrAllows() throws Exception {
        assertThat(get("/down-deny", "user=carol").status()).isEqualTo(503);
        RawHttp.Response allowed = get("/down-allow", "user=carol");
        assertThat(allowed.status()).isEqualTo(200);
        assertThat(origin.lastRequest()).startsWith("GET /down-allow").doesNotContain("x-user");
    }

    @Test
    void aSlowServiceTimesOutInto503() throws Exception {
        long start = System.nanoTime();
        assertThat(get("/page", "slow=1").status()).isEqualTo(503);
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(1_400));
    }

    @Test
    void aPostBodyWaitsForTheDecisionAndIsForwarded() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("POST /upload HTTP/1.1\r\nHost: app.test\r\nCookie: user=dave\r\n"
                    + "Content-Length: 11\r\n\r\nhello world");
            assertThat(r.status()).isEqualTo(200);
            assertThat(origin.lastRequest()).contains("x-user: dave\n", "body-bytes: 11\n");
        }
    }

    @Test
    void keepAliveGoesOnAfterAnAsyncDecision() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            String cookie = "user=erin-" + System.nanoTime();
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.exchange("GET /k" + i + " HTTP/1.1\r\nHost: app.test\r\nCookie: " + cookie + "\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
            }
        }
    }

    @Test
    void http2StreamsAreDecidedToo() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            Http2Headers allowed = H2Client.headers("GET", "app.test", "/h2");
            allowed.add("cookie", "user=frank-" + System.nanoTime());
            H2Client.Response r = c.send(allowed, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("x-user: frank-");
            Http2Headers denied = H2Client.headers("GET", "app.test", "/h2");
            denied.add("cookie", "nobody=2");
            H2Client.Response d = c.send(denied, null, true).done.get(5, TimeUnit.SECONDS);
            assertThat(d.status()).isEqualTo(401);
            assertThat(d.header("www-authenticate")).isEqualTo("Bearer realm=\"app\"");
            Http2Headers post = H2Client.headers("POST", "app.test", "/h2-upload");
            post.add("cookie", "user=gina");
            H2Client.Response p = c.send(post, "x".repeat(30_000), true).done.get(5, TimeUnit.SECONDS);
            assertThat(p.status()).isEqualTo(200);
            assertThat(p.body()).contains("x-user: gina\n", "body-bytes: 30000\n");
        }
    }

    @Test
    void aClientLeavingWhileTheServiceThinksLeavesTheServerServing() throws Exception {
        RawHttp c = new RawHttp(server.port("public"));
        c.send("GET /page HTTP/1.1\r\nHost: app.test\r\nCookie: slow=1\r\n\r\n");
        assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();
        c.close();
        // The decision arrives (timeout) for a gone client; the server goes on serving others.
        assertThat(get("/after", "user=henry").status()).isEqualTo(200);
    }
}
