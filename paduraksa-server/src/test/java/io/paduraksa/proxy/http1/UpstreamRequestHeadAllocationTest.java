package io.paduraksa.proxy.http1;

import io.paduraksa.proxy.FieldSink;
import io.paduraksa.proxy.ForwardCall;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.ForwardingFields;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.proxy.ResponseTrailers;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.AsciiString;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.net.IpParser;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.snapshot.ForwardingRules;
import io.paduraksa.snapshot.ResponseHeaderRules;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.CompiledFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The forwarder's request side, per forwarded request: the forwarding-field rules
 * ({@link ForwardingFields#write}: X-Forwarded-For appended after a trusted proxy's, X-Real-IP,
 * X-Forwarded-Proto/-Host, the request id, Via, a continued traceparent) and the HTTP/1.1 upstream
 * request head around them ({@link UpstreamRequestHead#write}): 0 B per request, each call checked
 * to have written what it should (field count and head length, the head's first and last bytes).
 */
@Tag("allocation")
class UpstreamRequestHeadAllocationTest {
    private static final String YAML = """
            client_ip: {trusted_proxies: [198.51.100.0/24]}
            forwarding:
              x_forwarded_for: append
              x_real_ip: true
              x_forwarded_host: true
              via: paduraksa
              request_id: {header: X-Request-ID, propagate: true}
              trace: {propagate: true}
            clusters:
              app: {destinations: [{url: "http://127.0.0.1:9001"}]}
            hosts:
              - names: [shop.test]
                routes:
                  - {path: /, forward: app}
            """;
    /** X-Forwarded-For, X-Real-IP, X-Forwarded-Proto, X-Forwarded-Host, X-Request-ID, Via, traceparent, tracestate. */
    private static final int FIELDS = 8;
    private static final byte[] CLIENT_HEADERS = ("Accept: application/json\r\nAccept-Encoding: gzip, br\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0\r\nCookie: session=abc123\r\n").getBytes(ISO_8859_1);

    private Run run;

    @AfterEach
    void close() {
        if (run != null) {
            run.close();
        }
    }

    @Test
    void forwardingFieldsAreZero() {
        run = new Run();
        AllocationAssert.Result r = AllocationAssert.assertZero("ForwardingFields.write", run, Run::fields);
        System.out.println(r);
        assertThat(run.fieldsDone).isEqualTo(run.fieldCalls).isPositive();
        assertThat(run.sink.text()).contains("X-Forwarded-For=192.0.2.1, 198.51.100.20;", "X-Real-IP=198.51.100.20;",
                "X-Forwarded-Proto=http;", "X-Forwarded-Host=shop.test;", "x-request-id=", "Via=1.1 paduraksa;",
                "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-");
    }

    @Test
    void upstreamRequestHeadIsZero() {
        run = new Run();
        Run.head(run);
        String head = run.out.toString(ISO_8859_1);
        assertThat(head).startsWith("GET /api/v1/items?page=2 HTTP/1.1\r\nHost: shop.test\r\nAccept: application/json\r\n")
                .contains("\r\nX-Forwarded-For: 192.0.2.1, 198.51.100.20\r\n", "\r\nVia: 1.1 paduraksa\r\n", "\r\ntraceparent: 00-")
                .endsWith("\r\n\r\n");
        run.headLength = run.out.readableBytes();
        AllocationAssert.Result r = AllocationAssert.assertZero("UpstreamRequestHead.write", run, Run::head);
        System.out.println(r);
        assertThat(run.headsDone).isEqualTo(run.headCalls).isPositive();
    }

    /** A FieldSink that counts fields and keeps the last call's text (in a reused array, 0 B). */
    static final class CountingSink implements FieldSink {
        final byte[] text = new byte[4096];
        int length;
        int fields;

        void reset() {
            length = 0;
            fields = 0;
        }

        @Override
        public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
            throw new UnsupportedOperationException("the forwarding fields come as name, value, end");
        }

        @Override
        public void field(CharSequence name, CharSequence value) {
            throw new UnsupportedOperationException("the forwarding fields come as name, value, end");
        }

        @Override
        public void name(AsciiString http1Name, AsciiString lowerName) {
            append(http1Name);
            text[length++] = '=';
        }

        @Override
        public void value(CharSequence value) {
            append(value);
        }

        @Override
        public void value(byte[] bytes, int from, int n) {
            System.arraycopy(bytes, from, text, length, n);
            length += n;
        }

        @Override
        public void end() {
            text[length++] = ';';
            fields++;
        }

        private void append(CharSequence s) {
            for (int i = 0; i < s.length(); i++) {
                text[length++] = (byte) s.charAt(i);
            }
        }

        String text() {
            return new String(text, 0, length, ISO_8859_1);
        }
    }

    /**
     * The client side as the HTTP/1.1 exchange offers it: the client's own fields are lines of its
     * head's bytes, handed over by position (the head is parsed here once, for the positions).
     */
    static final class Exchange implements ForwardExchange {
        final ByteBuf head = PooledByteBufAllocator.DEFAULT.directBuffer(CLIENT_HEADERS.length).writeBytes(CLIENT_HEADERS);
        final int[] positions = new int[4 * 8];
        final int lines;

        Exchange() {
            int n = 0;
            int start = 0;
            for (int i = 0; i < CLIENT_HEADERS.length; i++) {
                if (CLIENT_HEADERS[i] == '\n') {
                    int colon = start;
                    while (CLIENT_HEADERS[colon] != ':') {
                        colon++;
                    }
                    positions[n * 4] = start;
                    positions[n * 4 + 1] = colon;
                    positions[n * 4 + 2] = colon + 2;
                    positions[n * 4 + 3] = i - 1;
                    n++;
                    start = i + 1;
                }
            }
            lines = n;
        }

        @Override
        public void offerRequestFields(FieldSink sink, ForwardingRules rules) {
            int[] p = positions;
            for (int i = 0; i < lines; i++) {
                sink.line(head, p[i * 4], p[i * 4 + 1], p[i * 4 + 2], p[i * 4 + 3]);
            }
        }

        @Override
        public boolean isUpgradeRequest() {
            return false;
        }

        @Override
        public long requestBodyLength() {
            return 0;
        }

        // Not used by the head: the forwarder calls these later in a request's life.
        @Override public void answer(PrecomputedResponse response) { throw new UnsupportedOperationException(); }
        @Override public boolean isOpen() { return true; }
        @Override public EventLoop eventLoop() { throw new UnsupportedOperationException(); }
        @Override public void attach(ForwardCall call) { throw new UnsupportedOperationException(); }
        @Override public void requestBodyReady() { throw new UnsupportedOperationException(); }
        @Override public void pauseRequestBody(boolean pause) { throw new UnsupportedOperationException(); }
        @Override public void interimResponse(ResponseHead head) { throw new UnsupportedOperationException(); }
        @Override public void responseHead(ResponseHead head, ResponseHeaderRules rules, byte[] extraLine) { throw new UnsupportedOperationException(); }
        @Override public void upgraded() { throw new UnsupportedOperationException(); }
        @Override public void responseBody(ByteBuf chunk) { throw new UnsupportedOperationException(); }
        @Override public boolean isWritable() { return true; }
        @Override public void flush() { throw new UnsupportedOperationException(); }
        @Override public void responseEnd(ResponseTrailers trailers) { throw new UnsupportedOperationException(); }
        @Override public void abort() { throw new UnsupportedOperationException(); }
    }

    static final class Run {
        final Snapshot snapshot = CompiledFixtures.compile("forwarding.yaml", YAML);
        final Gate gate = new Gate(new SnapshotStore(snapshot));
        final StaticRequestView view;
        final RequestState state = new RequestState();
        final CountingSink sink = new CountingSink();
        final Exchange exchange = new Exchange();
        final AsciiString endpoint = AsciiString.cached("127.0.0.1:9001");
        final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(2048);
        int headLength = -1;
        long fieldCalls;
        long fieldsDone;
        long headCalls;
        long headsDone;

        Run() {
            long[] ip = new long[2];
            IpParser.parse("198.51.100.20", 0, 13, ip);
            view = new StaticRequestView().client(new ClientInfo(ip[0], ip[1], true, ClientInfo.NO_COUNTRY))
                    .method("GET").authority("shop.test").target("/api/v1/items?page=2")
                    .header("x-forwarded-for", "192.0.2.1")
                    .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                    .header("tracestate", "vendor=1");
        }

        /** Gate (to a forward) then the forwarding fields into the counting sink. */
        static void fields(Run r) {
            if (r.gate.run(r.view, r.state) != GateOutcome.FORWARD) {
                throw new AssertionError("not forwarded");
            }
            r.sink.reset();
            ForwardingFields.write(r.sink, r.state, r.state.isTls(), r.state.snapshot().forwarding(), r.view.authority());
            r.fieldCalls++;
            if (r.sink.fields == FIELDS) {
                r.fieldsDone++;
            }
        }

        /** Gate (to a forward) then the whole upstream request head into a reused pooled buffer. */
        static void head(Run r) {
            if (r.gate.run(r.view, r.state) != GateOutcome.FORWARD) {
                throw new AssertionError("not forwarded");
            }
            r.out.clear();
            UpstreamRequestHead.write(r.out, r.state, r.exchange, r.state.cluster(), r.endpoint, 0);
            r.headCalls++;
            int n = r.out.readableBytes();
            if ((r.headLength < 0 || n == r.headLength) && r.out.getByte(0) == 'G' && r.out.getByte(n - 1) == '\n'
                    && r.out.getByte(n - 3) == '\n') {
                r.headsDone++;
            }
        }

        void close() {
            out.release();
            exchange.head.release();
            snapshot.release();
        }
    }
}
