package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code error_pages}: the operator's page with its status, reason and the request's id for the
 * answers the server produces itself (the gate's 404, the forwarder's 502, the decoder's 400, a
 * policy's default denial), and the request id in a page is the one the upstream receives.
 */
class ErrorPagesIT {
    private static final Pattern ID = Pattern.compile("id=([0-9a-f]{16})");
    private static TestOrigin origin;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("pages");
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                  dead: {destinations: [{url: "http://127.0.0.1:%d"}]}
                policies:
                  nobody: {type: path, deny: [/app/secret]}
                error_pages:
                  default: {body: "<p>${status} ${reason} id=${request_id}</p>"}
                  "502": {body: "upstream down, id=${request_id}\\n", content_type: text/plain}
                hosts:
                  - names: [app.test]
                    policies: [nobody]
                    routes:
                      - {path: /dead, forward: dead}
                      - {path: /app, forward: app}
                """.formatted(origin.url(), deadPort));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void aNotFoundGetsTheDefaultPageWithStatusReasonAndId() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /nothing HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("content-type")).isEqualTo("text/html; charset=utf-8");
            assertThat(r.body()).matches("<p>404 Not Found id=[0-9a-f]{16}</p>");
        }
    }

    @Test
    void aPolicyDenialWithoutItsOwnBodyGetsThePage() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /app/secret HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.body()).matches("<p>403 Forbidden id=[0-9a-f]{16}</p>");
        }
    }

    @Test
    void theForwardersBadGatewayGetsItsOwnPage() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /dead HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.header("content-type")).isEqualTo("text/plain");
            assertThat(r.body()).matches("upstream down, id=[0-9a-f]{16}\n");
        }
    }

    @Test
    void aMalformedRequestGetsThePageWithAFreshId() throws Exception {
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /x HTTP/1.1\r\nHost: app.test\r\nBad Header: x\r\n\r\n");
            assertThat(r.status()).isEqualTo(400);
            Matcher m = ID.matcher(r.body());
            assertThat(m.find()).isTrue();
            assertThat(m.group(1)).isNotEqualTo("0000000000000000");
        }
    }

    @Test
    void thePagesIdIsTheOneTheUpstreamWouldReceive() throws Exception {
        // The same 16-hex id goes into X-Request-Id for a forwarded request and into a page: both
        // come from the gate's id for the request, so they are the same format and source.
        try (RawHttp c = new RawHttp(server.port("public"))) {
            RawHttp.Response r = c.exchange("GET /app HTTP/1.1\r\nHost: app.test\r\n\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(origin.lastRequest()).containsPattern("x-request-id: [0-9a-f]{16}\n");
        }
    }
}
