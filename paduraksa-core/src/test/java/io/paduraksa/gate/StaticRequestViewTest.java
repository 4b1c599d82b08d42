package io.paduraksa.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

/**
 * {@link StaticRequestView#header} compares length and case-insensitive hash before the bytes: a name
 * added in any letter case is still found, and a name of the same length (or the same hash) is not
 * taken for another.
 */
class StaticRequestViewTest {
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString CF_CONNECTING_IP = AsciiString.cached("cf-connecting-ip");

    @Test
    void findsANameAddedInAnyLetterCase() {
        StaticRequestView view = new StaticRequestView()
                .header("Accept", "text/html")
                .header("User-Agent", "curl/8.5.0")
                .header("CF-Connecting-IP", "192.0.2.1");
        assertThat(view.header(USER_AGENT)).hasToString("curl/8.5.0");
        assertThat(view.header(CF_CONNECTING_IP)).hasToString("192.0.2.1");
        assertThat(view.header(AsciiString.cached("accept"))).hasToString("text/html");
    }

    @Test
    void takesNoOtherNameOfTheSameLength() {
        // "connection" and "user-agent" are both 10 bytes; "@" and "`" share a hash bucket in AsciiString's
        // case-insensitive hash (it keeps five bits a byte), so only the byte compare tells them apart.
        assertThat(AsciiString.of("x@").hashCode()).isEqualTo(AsciiString.of("x`").hashCode());
        StaticRequestView view = new StaticRequestView()
                .header("connection", "keep-alive")
                .header("x@", "at")
                .header("x`", "grave");
        assertThat(view.header(USER_AGENT)).isNull();
        assertThat(view.header(AsciiString.cached("x`"))).hasToString("grave");
        assertThat(view.header(AsciiString.cached("x@"))).hasToString("at");
        assertThat(view.header(AsciiString.cached("x"))).isNull();
    }

    @Test
    void returnsTheFirstOfRepeatedNames() {
        StaticRequestView view = new StaticRequestView().header("user-agent", "first").header("USER-AGENT", "second");
        assertThat(view.header(USER_AGENT)).hasToString("first");
    }
}
