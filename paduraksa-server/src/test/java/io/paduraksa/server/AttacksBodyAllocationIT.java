package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.server.cycle.GateMeter;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.testing.TestOrigin;
import io.paduraksa.server.testing.TestServer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The body phase allocates nothing per clean request after warm-up, over a real HTTP/1.1
 * connection: the {@link GateMeter} brackets the gate and every step of the body phase on the event
 * loop (its start, each chunk's inspection, the end's verdict), and must read 0 B over all counted
 * requests, for a form, a JSON, a multipart (with a file part) and an XML body sent in two pieces
 * each (so a value spans two chunks).
 */
@Tag("allocation")
class AttacksBodyAllocationIT {
    static final int WARM_UP = 10_000;
    static final int MEASURED = 3_000;
    static TestOrigin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin("origin");
        server = TestServer.startMetered("""
                server: {threads: 1}
                listeners:
                  - {name: main, address: "127.0.0.1:0", protocols: [http1]}
                clusters:
                  app: {destinations: [{url: "%s"}]}
                policies:
                  waf:
                    type: attacks
                    paranoia: 2
                    inspect: {body: {max: 64KiB, file_bytes: 1KiB}}
                hosts:
                  - names: [shop.test]
                    policies: [waf]
                    routes: [{path: /, forward: app}]
                """.formatted(origin.url()));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            application/x-www-form-urlencoded | name=Siobh%C3%A1n+O%27Brien&email=ann%2Btag%40example.test&comment=Great+shoes%2C+would+buy+again&qty=2
            application/json                  | {"name":"D'Souza","items":[{"sku":"A-1","qty":2,"price":12.5}],"note":"caf\\u00e9 \\"latte\\" to go","gift":false}
            multipart/form-data; boundary=----WebKitFormBoundaryx1y2 | ------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="name"\\r\\n\\r\\nSiobhan O'Brien\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="comment"\\r\\n\\r\\nGreat shoes, would buy again\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="avatar"; filename="me.png"\\r\\nContent-Type: image/png\\r\\n\\r\\nPNG-DATA-0123456789\\r\\n------WebKitFormBoundaryx1y2--\\r\\n
            application/xml                   | <?xml version="1.0"?><order id="17"><item sku="A-1" qty="2">Great shoes, would buy again</item><note>D'Souza &amp; co</note></order>
            """)
    void aCleanRequestWithABodyAllocatesNothing(String type, String body) throws Exception {
        GateMeter meter = server.meter();
        byte[] bytes = body.replace("\\r\\n", "\r\n").getBytes(StandardCharsets.UTF_8);
        int half = bytes.length / 2;
        // With an Accept, as browsers send: without one a request matches 920300's notice at paranoia 2 (and its log line allocates);
        // for the same reason no value ends with a quote (942111's warning at paranoia 2).
        String head = "POST /cart/checkout?step=2 HTTP/1.1\r\nHost: shop.test\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0\r\n"
                + "Accept: */*\r\nContent-Type: " + type + "\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        String first = head + new String(bytes, 0, half, StandardCharsets.UTF_8);
        String second = new String(bytes, half, bytes.length - half, StandardCharsets.UTF_8);
        try (RawHttp c = new RawHttp(server.port("main"))) {
            meter.enabled(false);
            run(c, first, second, WARM_UP, bytes.length);
            counted(meter, c, first, second, bytes.length);
            for (int attempt = 2; attempt <= 3 && meter.bytes() != 0; attempt++) {
                // Netty's pool housekeeping (a recycled cache entry's handle, 88-112 B in one call of 3,000,
                // seen on loaded runs) lands in a counted run now and then; anything per request repeats in
                // every run, so one of three must be clean.
                System.out.println(type + ": counted run " + (attempt - 1) + " allocated, trying again: " + meter);
                counted(meter, c, first, second, bytes.length);
            }
        }
        assertThat(meter.requests()).as("every request went through the metered gate").isEqualTo(MEASURED);
        assertThat(meter.bytes()).as("gate and body phase: " + meter).isZero();
    }

    private static void counted(GateMeter meter, RawHttp c, String first, String second, int length) throws Exception {
        meter.reset();
        meter.enabled(true);
        run(c, first, second, MEASURED, length);
        meter.enabled(false);
    }

    private static void run(RawHttp c, String first, String second, int n, int length) throws Exception {
        for (int i = 0; i < n; i++) {
            c.send(first);
            c.socket().getOutputStream().flush();
            c.send(second);
            RawHttp.Response r = c.read();
            if (r.status() != 200 || !r.body().contains("body-bytes: " + length)) {
                throw new AssertionError("request " + i + ": " + r);
            }
        }
    }
}
