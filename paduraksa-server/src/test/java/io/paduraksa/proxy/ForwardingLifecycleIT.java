package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The forwarder over time: reloads that keep or drop upstream connections, a client leaving in the
 * middle of a response, session affinity, and active health checks steering traffic. A fresh
 * server and two origins per test.
 */
class ForwardingLifecycleIT {
    private TestOrigin one;
    private TestOrigin two;
    private TestServer server;

    @BeforeEach
    void origins() throws Exception {
        one = new TestOrigin("one");
        two = new TestOrigin("two");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        one.close();
        two.close();
    }

    private String config(String cluster, String extraRoute) {
        return """
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  app:
                %s
                hosts:
                  - names: [app.test]
                    routes:
                %s
                      - {path: /, forward: app}
                """.formatted(cluster.indent(4).stripTrailing(), extraRoute.indent(6).stripTrailing());
    }

    private String get(RawHttp c, String path) throws IOException {
        return c.exchange("GET " + path + " HTTP/1.1\r\nHost: app.test\r\n\r\n").body();
    }

    @Test
    void reloadThatKeepsTheClusterKeepsItsUpstreamConnections() throws Exception {
        String cluster = "destinations: [{url: \"%s\"}]".formatted(one.url());
        server = TestServer.start(config(cluster, ""));
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(get(c, "/first")).contains("origin: one");
            int connections = one.connections();
            assertThat(server.reload(config(cluster, "- {path: /new, respond: {status: 200, body: new}}"))).isTrue();
            assertThat(get(c, "/second")).contains("origin: one");
            assertThat(get(c, "/new")).isEqualTo("new");
            assertThat(one.connections()).as("no new upstream connection after the reload").isEqualTo(connections);
        }
    }

    @Test
    void reloadThatReplacesADestinationMovesTrafficAndClosesTheOldPool() throws Exception {
        server = TestServer.start(config("destinations: [{url: \"%s\"}]".formatted(one.url()), ""));
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(get(c, "/first")).contains("origin: one");
            assertThat(one.openConnections()).isEqualTo(1);
            assertThat(server.reload(config("destinations: [{url: \"%s\"}]".formatted(two.url()), ""))).isTrue();
            assertThat(get(c, "/second")).contains("origin: two");
            // The old snapshot's runtime is kept until a second newer one exists (requests may still use it).
            assertThat(server.reload(config("destinations: [{url: \"%s\"}]".formatted(two.url()), "- {path: /x, respond: {status: 204}}"))).isTrue();
            assertThat(get(c, "/third")).contains("origin: two");
            Await.until("the removed destination's idle connection closes", () -> one.openConnections() == 0);
        }
    }

    @Test
    void appendedForwardedForKeepsOnlyATrustedProxysList() throws Exception {
        String yaml = config("destinations: [{url: \"%s\"}]".formatted(one.url()), "")
                .replace("clusters:", "client_ip: {trusted_proxies: [127.0.0.2/32]}\nforwarding: {x_forwarded_for: append}\nclusters:");
        server = TestServer.start(yaml);
        String request = "GET /xff HTTP/1.1\r\nHost: app.test\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n";
        try (RawHttp untrusted = new RawHttp(server.port("public"))) { // from 127.0.0.1
            assertThat(untrusted.exchange(request).body()).contains("x-forwarded-for: 127.0.0.1\n").doesNotContain("198.51.100.7");
        }
        try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port("public"))); // from 127.0.0.2: trusted
            s.getOutputStream().write(request.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.setSoTimeout(5000);
            String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(answer).contains("x-forwarded-for: 198.51.100.7, 127.0.0.2\n");
        }
    }

    @Test
    void callsQueuedBehindASaturatedPoolGet503AfterTheConnectTimeout() throws Exception {
        server = TestServer.start(config("""
                destinations: [{url: "%s"}]
                pool: {max_connections: 1}
                timeouts: {connect: 300ms, response_headers: 5s}""".formatted(one.url()), "")
                + "server: {threads: 1}  # pools are per event loop: both clients on the one loop share it\n");
        try (RawHttp busy = new RawHttp(server.port("public")); RawHttp queued = new RawHttp(server.port("public"))) {
            busy.send("GET /never HTTP/1.1\r\nHost: app.test\r\n\r\n"); // holds the pool's one connection
            Await.until("the first request reached the upstream", () -> one.requests() >= 1);
            long start = System.nanoTime();
            assertThat(queued.exchange("GET /queued HTTP/1.1\r\nHost: app.test\r\n\r\n").status()).isEqualTo(503);
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(250L, 3_000L);
        }
    }

    @Test
    void healthChecksStartWithTheServerBeforeAnyRequest() throws Exception {
        server = TestServer.start(config("""
                destinations: [{url: "%s"}]
                health: {active: {path: /healthz, interval: 50ms}}""".formatted(one.url()), ""));
        Await.until("probes arrive with no client request", () -> one.requests() >= 2);
        assertThat(one.lastRequest()).startsWith("GET /healthz");
    }

    @Test
    void destinationGivenByHostNameIsResolved() throws Exception {
        server = TestServer.start(config("""
                destinations: [{url: "http://localhost:%d"}]
                resolve_every: 100ms""".formatted(one.port()), ""));
        try (RawHttp c = new RawHttp(server.port("public"))) {
            for (int i = 0; i < 3; i++) {
                assertThat(get(c, "/by-name")).contains("origin: one", "host: app.test");
                Thread.sleep(120); // across re-resolutions
            }
        }
    }

    @Test
    void clientLeavingMidResponseClosesTheUpstreamConnection() throws Exception {
        server = TestServer.start(config("destinations: [{url: \"%s\"}]".formatted(one.url()), ""));
        try (RawHttp c = new RawHttp(server.port("public"))) {
            c.send("GET /big/" + (1L << 30) + " HTTP/1.1\r\nHost: app.test\r\n\r\n");
            InputStream in = c.socket().getInputStream();
            assertThat(in.readNBytes(1 << 20)).hasSize(1 << 20);
            Await.until("the download's upstream connection is open", () -> one.openConnections() == 1);
        }
        Await.until("the upstream connection closes when the client leaves", () -> one.openConnections() == 0);
        try (RawHttp c = new RawHttp(server.port("public"))) {
            assertThat(get(c, "/after")).contains("origin: one");
        }
    }

    @Test
    void affinityCookieKeepsAClientOnItsDestination() throws Exception {
        server = TestServer.start(config("""
                destinations: [{url: "%s"}, {url: "%s"}]
                load_balancing: round_robin
                affinity: {cookie: pdk_affinity}""".formatted(one.url(), two.url()), ""));
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response first = c.exchange("GET /a HTTP/1.1\r\nHost: app.test\r\n\r\n");
            String setCookie = first.header("set-cookie");
            assertThat(setCookie).startsWith("pdk_affinity=").contains("HttpOnly");
            String origin = originOf(first.body());
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));
            for (int i = 0; i < 6; i++) {
                RawHttp.Response r = c.exchange("GET /b HTTP/1.1\r\nHost: app.test\r\nCookie: x=1; " + cookie + "\r\n\r\n");
                assertThat(originOf(r.body())).isEqualTo(origin);
                assertThat(r.header("set-cookie")).isNull();
            }
        }
    }

    @Test
    void activeHealthChecksSteerTrafficAwayAndBack() throws Exception {
        server = TestServer.start(config("""
                destinations: [{url: "%s"}, {url: "%s"}]
                load_balancing: round_robin
                health: {active: {path: /healthz, interval: 50ms, timeout: 500ms, healthy_threshold: 1, unhealthy_threshold: 1}}"""
                .formatted(one.url(), two.url()), ""));
        one.healthy(false);
        try (RawHttp c = new RawHttp(server.port("public"))) {
            Await.until("all traffic on the healthy destination", () -> {
                try {
                    for (int i = 0; i < 4; i++) {
                        if (!get(c, "/probe").contains("origin: two")) {
                            return false;
                        }
                    }
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            one.healthy(true);
            Await.until("the recovered destination gets traffic again", () -> {
                try {
                    return get(c, "/probe").contains("origin: one") || get(c, "/probe").contains("origin: one");
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }

    private static String originOf(String echo) {
        Matcher m = Pattern.compile("origin: (\\w+)").matcher(echo);
        assertThat(m.find()).as(echo).isTrue();
        return m.group(1);
    }
}
