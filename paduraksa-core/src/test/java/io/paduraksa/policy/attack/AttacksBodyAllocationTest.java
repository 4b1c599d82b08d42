package io.paduraksa.policy.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.TestPolicyInput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The body phase of a clean request (head, start, three chunks, end, release) allocates nothing after warm-up. */
@Tag("allocation")
class AttacksBodyAllocationTest {

    static final class Request extends TestPolicyInput {
        final AttacksPolicy policy;
        final ByteBuf[] chunks;
        long continued;

        Request(AttacksPolicy policy, ByteBuf[] chunks) {
            this.policy = policy;
            this.chunks = chunks;
        }

        void run() {
            if (policy.evaluate(this) != PolicyDecision.NEEDS_ASYNC) {
                return;
            }
            BodyScan scan = policy.startBody(this, Long.MAX_VALUE);
            PolicyDecision d = null;
            for (int i = 0; i < chunks.length && d == null; i++) {
                d = scan.feed(chunks[i]);
            }
            if (d == null) {
                d = scan.end();
            }
            scan.release();
            if (d == PolicyDecision.CONTINUE) {
                continued++;
            }
        }
    }

    // Clean at both levels: at paranoia 2 a value that ends with a quote is a warning (942111) and its log line allocates.
    @ParameterizedTest(name = "{0}, paranoia {2}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            application/x-www-form-urlencoded | name=Siobh%C3%A1n+O%27Brien&email=ann%2Btag%40example.test&comment=Great+shoes%2C+would+buy+again&qty=2 | 1
            application/x-www-form-urlencoded | name=Siobh%C3%A1n+O%27Brien&email=ann%2Btag%40example.test&comment=Great+shoes%2C+would+buy+again&qty=2 | 2
            application/json                  | {"name":"D'Souza","items":[{"sku":"A-1","qty":2,"price":12.5}],"note":"caf\\u00e9 \\"latte\\" to go","gift":false,"ref":null} | 1
            application/json                  | {"name":"D'Souza","items":[{"sku":"A-1","qty":2,"price":12.5}],"note":"caf\\u00e9 \\"latte\\" to go","gift":false,"ref":null} | 2
            multipart/form-data; boundary=----WebKitFormBoundaryx1y2 | ------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="name"\\r\\n\\r\\nSiobhan O'Brien\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="comment"\\r\\n\\r\\nGreat shoes, would buy again\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="avatar"; filename="me.png"\\r\\nContent-Type: image/png\\r\\n\\r\\nPNG-DATA-0123456789\\r\\n------WebKitFormBoundaryx1y2--\\r\\n | 1
            multipart/form-data; boundary=----WebKitFormBoundaryx1y2 | ------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="name"\\r\\n\\r\\nSiobhan O'Brien\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="comment"\\r\\n\\r\\nGreat shoes, would buy again\\r\\n------WebKitFormBoundaryx1y2\\r\\nContent-Disposition: form-data; name="avatar"; filename="me.png"\\r\\nContent-Type: image/png\\r\\n\\r\\nPNG-DATA-0123456789\\r\\n------WebKitFormBoundaryx1y2--\\r\\n | 2
            application/xml                   | <?xml version="1.0"?><order id="17"><item sku="A-1" qty="2">Great shoes, would buy again</item><note>D'Souza &amp; co</note></order> | 1
            application/xml                   | <?xml version="1.0"?><order id="17"><item sku="A-1" qty="2">Great shoes, would buy again</item><note>D'Souza &amp; co</note></order> | 2
            """)
    void aCleanBodyAllocatesNothing(String type, String body, int paranoia) {
        AttacksPolicy policy = new AttacksPolicy("waf", paranoia, 5, true, true, true, List.of("User-Agent", "Referer"), false, List.of(),
                PolicyDecision.DROP, 64 * 1024, false, TimeUnit.SECONDS.toNanos(10), 1024);
        byte[] bytes = body.replace("\\r\\n", "\r\n").getBytes(StandardCharsets.UTF_8);
        int third = bytes.length / 3;
        ByteBuf[] chunks = {Unpooled.wrappedBuffer(bytes, 0, third), Unpooled.wrappedBuffer(bytes, third, third),
            Unpooled.wrappedBuffer(bytes, 2 * third, bytes.length - 2 * third)};
        Request r = new Request(policy, chunks);
        r.path("/cart/checkout").method("POST").hasBody(true);
        r.target("/cart/checkout?step=2");
        r.header("Content-Type", type);
        r.header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36");
        r.run();
        assertThat(r.continued).as("the body phase ran and let the request go on").isEqualTo(1);

        AllocationAssert.assertZero(type + " body at paranoia " + paranoia, r, Request::run, 30_000, 5_000);

        assertThat(r.continued).as("every run went through the body phase").isGreaterThan(5_000);
    }
}
