package io.paduraksa.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The per-request header filters allocate nothing, for hits and misses, String and AsciiString names. */
@Tag("allocation")
class HeaderRulesAllocationTest {

    /** Browser-like request and origin-like response header names, removed or not. */
    private static final String[] REQUEST = {"Host", "User-Agent", "Accept", "Accept-Language", "Accept-Encoding", "Connection",
        "Cookie", "X-Forwarded-For", "Proxy-Authorization", "CF-Connecting-IP", "Sec-Fetch-Mode", "Upgrade-Insecure-Requests",
        "X-Debug", "te", "X_Real_IP", "True-Client-IP", "Forwarded", "x-forwarded-host", "CF_Connecting_IP", "X_Custom"};
    private static final String[] RESPONSE = {"Content-Type", "Content-Length", "Server", "Date", "Set-Cookie", "Connection",
        "X-Powered-By", "Cache-Control", "X-Frame-Options", "Transfer-Encoding", "ETag", "Strict-Transport-Security"};

    static final class State {
        final ForwardingRules forwarding;
        final ResponseHeaderRules response;
        final CharSequence[] names;
        int next;
        long sink;

        State(Snapshot s, CharSequence[] names) {
            this.forwarding = s.forwarding();
            this.response = s.hostList().get(0).responseHeaders();
            this.names = names;
        }

        void request() {
            CharSequence name = names[next];
            next = next + 1 == names.length ? 0 : next + 1;
            sink += forwarding.isRemovedRequestHeader(name) ? 1 : 0;
        }

        /** As from a trusted proxy and from anyone else, in turn: the identity rules with folding. */
        void identity() {
            CharSequence name = names[next];
            next = next + 1 == names.length ? 0 : next + 1;
            sink += forwarding.isRemovedRequestHeader(name, (next & 1) == 0) ? 1 : 0;
        }

        void response() {
            CharSequence name = names[next];
            next = next + 1 == names.length ? 0 : next + 1;
            sink += response.isRemoved(name) ? 1 : 0;
        }
    }

    private static Snapshot snapshot() {
        return CompiledFixtures.compile("edge.yaml", """
                clusters:
                  app:
                    destinations: [{url: "http://192.0.2.10:9001"}]
                forwarding:
                  remove_request_headers: [X-Debug]
                  identity_headers: [X-Akamai-Client-IP]
                  identity_headers_from_trusted_proxies: [True-Client-IP]
                  response_headers: {set: {X-Frame-Options: DENY}, remove: [Server]}
                hosts:
                  - names: [www.example.test]
                    response_headers: {set: {Strict-Transport-Security: max-age=31536000}, remove: [X-Powered-By]}
                    routes: [{path: /, forward: app}]
                """);
    }

    private static CharSequence[] ascii(String[] names) {
        CharSequence[] out = new CharSequence[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = new AsciiString(names[i]);
        }
        return out;
    }

    @Test
    void isRemovedRequestHeaderAllocatesNothing() {
        Snapshot s = snapshot();
        try {
            State strings = new State(s, REQUEST);
            State ascii = new State(s, ascii(REQUEST));
            AllocationAssert.assertZero("isRemovedRequestHeader (String)", strings, State::request);
            AllocationAssert.assertZero("isRemovedRequestHeader (AsciiString)", ascii, State::request);
            assertThat(strings.sink).isPositive();
        } finally {
            s.release();
        }
    }

    @Test
    void identityFieldRulesAllocateNothing() {
        Snapshot s = snapshot();
        try {
            State strings = new State(s, REQUEST);
            State ascii = new State(s, ascii(REQUEST));
            AllocationAssert.assertZero("isRemovedRequestHeader trusted/untrusted (String)", strings, State::identity);
            AllocationAssert.assertZero("isRemovedRequestHeader trusted/untrusted (AsciiString)", ascii, State::identity);
            // the work was done: the folded and identity names were removed, the trusted one passed once in a while
            assertThat(strings.sink).isPositive();
            assertThat(s.forwarding().isRemovedRequestHeader(new AsciiString("X_Real_IP"), true)).isTrue();
            assertThat(s.forwarding().isRemovedRequestHeader(new AsciiString("True-Client-IP"), true)).isFalse();
            assertThat(s.forwarding().isRemovedRequestHeader(new AsciiString("True-Client-IP"), false)).isTrue();
        } finally {
            s.release();
        }
    }

    @Test
    void isRemovedAllocatesNothing() {
        Snapshot s = snapshot();
        try {
            State strings = new State(s, RESPONSE);
            State ascii = new State(s, ascii(RESPONSE));
            AllocationAssert.assertZero("isRemoved (String)", strings, State::response);
            AllocationAssert.assertZero("isRemoved (AsciiString)", ascii, State::response);
            assertThat(strings.sink).isPositive();
        } finally {
            s.release();
        }
    }
}
