package io.paduraksa.policy.attack;

import static io.paduraksa.policy.attack.AttacksBodyTest.DENIED;
import static io.paduraksa.policy.attack.AttacksBodyTest.lastLog;
import static io.paduraksa.policy.attack.AttacksBodyTest.request;
import static io.paduraksa.policy.attack.AttacksBodyTest.scan;
import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.policy.PolicyDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** XML bodies: element text and attribute values inspected wherever the chunks are cut; XXE and hostile nesting caught. */
class AttacksXmlTest {
    static AttacksPolicy policy() {
        return new AttacksPolicy("waf", 1, 5, true, true, true, List.of("User-Agent", "Referer"), false, List.of(), DENIED,
                1024 * 1024, false, TimeUnit.SECONDS.toNanos(10));
    }

    private static int length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            Java class in nested text | application/xml      | <?xml version="1.0"?><xml><l1><l2><e a="v">java.io.BufferedReader</e></l2></l1></xml> | 944
            SQLi in an attribute      | text/xml             | <order id='1 union select password from users'/>                                    | 942
            XSS in CDATA              | application/soap+xml | <a><![CDATA[<script>alert(1)</script>]]></a>                                        | 941
            XSS as entities           | application/xml      | <a>&lt;script&gt;alert(1)&lt;/script&gt;</a>                                        | 941
            text after a comment      | application/xml      | <a><!-- x --> 1 union select 1</a>                                                  | 942
            XXE SYSTEM                | application/xml      | <?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/hostname">]><r>&x;</r> | 921900
            external DTD              | application/xml      | <!DOCTYPE r PUBLIC "-//X//EN" "http://192.0.2.1/x.dtd"><r/>                           | 921900
            """)
    void attacksInXmlAreDeniedWhereverTheChunksAreCut(String what, String type, String body, String rule) {
        AttacksPolicy policy = policy();
        assertThat(scan(policy, request(type), body)).as("whole").isSameAs(DENIED);
        assertThat(lastLog()).contains(rule).contains(" body");
        for (int cut = 0; cut <= length(body); cut++) {
            assertThat(scan(policy, request(type), body, cut)).as("cut at " + cut).isSameAs(DENIED);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = 0, textBlock = """
            SOAP envelope     | <?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:GetPrice xmlns:m="https://www.example.test/prices"><m:Item note='say "hi"'>Apples &amp; pears</m:Item></m:GetPrice></soap:Body></soap:Envelope>
            element names are not values | <?xml version="1.0"?><xml><java.lang.Runtime java.lang.ProcessBuilder="v">value</java.lang.Runtime></xml>
            internal DTD without entities | <!DOCTYPE note [<!ELEMENT note (#PCDATA)>]><note>hi</note>
            empty body        |
            """)
    void benignXmlContinuesWhereverTheChunksAreCut(String what, String body) {
        AttacksPolicy policy = policy();
        String b = body == null ? "" : body;
        for (int cut = 0; cut <= length(b); cut++) {
            assertThat(scan(policy, request("application/xml"), b, cut)).as("cut at " + cut + ": " + lastLog())
                    .isSameAs(PolicyDecision.CONTINUE);
        }
    }

    @Test
    void entityExpansionIsScoredAndNeverExpanded() {
        StringBuilder laughs = new StringBuilder("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">");
        for (int i = 1; i < 10; i++) {
            laughs.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i == 1 ? "" : i - 1) + ";").repeat(10)).append("\">");
        }
        laughs.append("]><lolz>&lol9;</lolz>");
        assertThat(scan(policy(), request("application/xml"), laughs.toString())).isSameAs(DENIED);
        assertThat(lastLog()).contains("921901");
        assertThat(AttacksPolicy.inspectedBytesOnThisThread()).as("bytes inspected: the body, not its expansion").isLessThan(4096);
    }

    @Test
    void nestingIsBoundedAndMalformedXmlIsRefused() {
        String deep = "<a>".repeat(10_000) + "x" + "</a>".repeat(10_000);
        assertThat(scan(policy(), request("application/xml"), deep)).isSameAs(DENIED);
        assertThat(lastLog()).contains("XML nested deeper than 256");
        String allowed = "<a>".repeat(256) + "x" + "</a>".repeat(256);
        assertThat(scan(policy(), request("application/xml"), allowed)).as(lastLog()).isSameAs(PolicyDecision.CONTINUE);
        for (String bad : new String[] {"<a>x", "<a b=c/>", "</a>", "<a><</a>", "<a b='<'/>", "<a>x</a><!x>", "<a", "<a><![CDATA[x</a>"}) {
            assertThat(scan(policy(), request("application/xml"), bad)).as(bad).isSameAs(DENIED);
            assertThat(lastLog()).as(bad).contains("malformed XML");
        }
    }
}
