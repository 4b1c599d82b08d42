package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.Await;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.Test;

/**
 * Active health checks of h2c and h2 clusters, wired from the cluster config: the probes reach the
 * HTTP/2-only origins as HTTP/2 requests, with the destination's authority, and the destinations
 * stay in service (over HTTP/1.1 every probe would fail and, after the first, requests would answer 503).
 */
class Http2HealthCheckIT {
    @Test
    void h2cAndH2DestinationsAreProbedInTheirProtocolAndStayInService() throws Exception {
        try (H2Origin h2c = new H2Origin(100);
             H2Origin tls = new H2Origin(100, new String[] {"h2"})) {
            String health = "health: {active: {path: /healthz, interval: 30ms, timeout: 500ms, healthy_threshold: 1, unhealthy_threshold: 1}}";
            try (TestServer server = TestServer.start("""
                    listeners:
                      - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                    clusters:
                      h2c: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}], %s}
                      tls:
                        protocol: h2
                        destinations: [{url: "https://127.0.0.1:%d"}]
                        tls: {verify: true, ca: "%s", sni: a.test}
                        %s
                    hosts:
                      - {names: [h2c.test], routes: [{path: /, forward: h2c}]}
                      - {names: [tls.test], routes: [{path: /, forward: tls}]}
                    """.formatted(h2c.port(), health, tls.port(), H2Client.testFile("ca.pem"), health))) {
                try (RawHttp c = new RawHttp(server.port("public"))) {
                    // The cluster's runtime, and with it the checker, starts with the first request it forwards.
                    assertThat(c.exchange("GET /a HTTP/1.1\r\nHost: h2c.test\r\n\r\n").status()).isEqualTo(200);
                    assertThat(c.exchange("GET /b HTTP/1.1\r\nHost: tls.test\r\n\r\n").status()).isEqualTo(200);
                }
                Await.until("three probes at each origin", () -> probes(h2c) >= 3 && probes(tls) >= 3);
                assertThat(probe(h2c).authority().toString()).isEqualTo("127.0.0.1:" + h2c.port());
                assertThat(probe(h2c).scheme().toString()).isEqualTo("http");
                assertThat(probe(tls).authority().toString()).isEqualTo("127.0.0.1:" + tls.port());
                assertThat(probe(tls).scheme().toString()).isEqualTo("https");
                try (RawHttp c = new RawHttp(server.port("public"))) {
                    assertThat(c.exchange("GET /a HTTP/1.1\r\nHost: h2c.test\r\n\r\n").status()).isEqualTo(200);
                    assertThat(c.exchange("GET /b HTTP/1.1\r\nHost: tls.test\r\n\r\n").status()).isEqualTo(200);
                }
            }
        }
    }

    private static int probes(H2Origin origin) {
        int n = 0;
        for (Http2Headers h : origin.requests) {
            if ("/healthz".contentEquals(h.path())) {
                n++;
            }
        }
        return n;
    }

    private static Http2Headers probe(H2Origin origin) {
        for (Http2Headers h : origin.requests) {
            if ("/healthz".contentEquals(h.path())) {
                return h;
            }
        }
        throw new AssertionError("no probe");
    }
}
