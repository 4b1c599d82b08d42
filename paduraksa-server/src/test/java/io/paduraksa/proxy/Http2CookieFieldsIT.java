package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 clients may split the Cookie header into several fields (RFC 9113 8.2.3), and browsers
 * do: whatever reads cookies must see all of them. Here session affinity: the affinity cookie sent
 * in the second of two cookie fields still keeps the client on its destination, and the upstream
 * gets one joined Cookie line.
 */
class Http2CookieFieldsIT {
    private static TestOrigin one;
    private static TestOrigin two;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        one = new TestOrigin("one");
        two = new TestOrigin("two");
        server = TestServer.start("""
                listeners:
                  - {name: public, address: "127.0.0.1:0", protocols: [h2c]}
                clusters:
                  app:
                    destinations: [{url: "%s"}, {url: "%s"}]
                    load_balancing: round_robin
                    affinity: {cookie: pdk_affinity}
                hosts:
                  - names: [app.test]
                    routes:
                      - {path: /, forward: app}
                """.formatted(one.url(), two.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        one.close();
        two.close();
    }

    @Test
    void affinityCookieInALaterCookieFieldIsFound() throws Exception {
        try (H2Client c = H2Client.connect(server.port("public"))) {
            H2Client.Response first = c.get("GET", "app.test", "/first");
            String setCookie = first.header("set-cookie");
            assertThat(setCookie).startsWith("pdk_affinity=");
            String origin = originOf(first.body());
            String affinity = setCookie.substring(0, setCookie.indexOf(';'));
            for (int i = 0; i < 6; i++) {
                Http2Headers h = H2Client.headers("GET", "app.test", "/again");
                h.add("cookie", "theme=dark");
                h.add("cookie", affinity);
                H2Client.Response r = c.send(h, null, true).done.get(5, TimeUnit.SECONDS);
                assertThat(originOf(r.body())).isEqualTo(origin);
                assertThat(r.body()).contains("cookie: theme=dark; " + affinity + "\n");
            }
        }
    }

    private static String originOf(String echo) {
        Matcher m = Pattern.compile("origin: (\\w+)").matcher(echo);
        assertThat(m.find()).as(echo).isTrue();
        return m.group(1);
    }
}
