package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.RequestState;
import io.paduraksa.net.IpParser;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.server.cycle.ListenerServices;
import io.paduraksa.server.connection.ClientInfoHandler;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.util.List;

/**
 * The client side of forwarded HTTP/1.1 requests for allocation tests: the real decoder and gate
 * handler on an {@link EmbeddedChannel} with the pooled allocator, a peer address, and a stand-in
 * {@link Forwarder} that does the part under test and then ends the request with
 * {@link #answerNoContent}. Everything runs on the calling thread.
 */
final class ForwardedChannel {
    /** An empty 204 from the upstream: no fields, no body. */
    static final ResponseHead NO_CONTENT = new ResponseHead() {
        @Override
        public int status() {
            return 204;
        }

        @Override
        public int headerCount() {
            return 0;
        }

        @Override
        public CharSequence headerName(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public CharSequence headerValue(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public long contentLength() {
            return -1;
        }

        @Override
        public boolean hasBody() {
            return false;
        }

        @Override
        public boolean isConnectionOption(CharSequence headerName) {
            return false;
        }
    };

    final EmbeddedChannel channel = new EmbeddedChannel();
    private final ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
    /** Bytes written back by the last {@link #exchange}. */
    long lastBytes;

    ForwardedChannel(Snapshot snapshot, String peer, boolean trustedPeer, Forwarder forwarder) {
        long[] ip = new long[2];
        IpParser.parse(peer, 0, peer.length(), ip);
        channel.config().setAllocator(PooledByteBufAllocator.DEFAULT);
        channel.attr(ClientInfoHandler.CLIENT_INFO).set(new ClientInfo(ip[0], ip[1], trustedPeer, ClientInfo.NO_COUNTRY));
        SnapshotStore store = new SnapshotStore(snapshot);
        ListenerServices context = new ListenerServices(new Gate(store), forwarder, new DateHeader(), null,
                new Metrics(store, List.of("public"), new boolean[1]), 0);
        Http1Deadlines deadlines = new Http1Deadlines(10_000, 60_000, 0);
        Http1RequestDecoder decoder = new Http1RequestDecoder();
        channel.pipeline().addLast(deadlines, decoder, new Http1GateHandler(context, decoder, deadlines, 8192));
    }

    /** Ends a forwarded request with {@link #NO_CONTENT}, as the forwarder does after an upstream's 204. */
    static void answerNoContent(RequestState state, ForwardExchange exchange) {
        exchange.responseHead(NO_CONTENT, state.snapshot().defaultResponseHeaders(), null);
        exchange.responseEnd(null);
    }

    /**
     * One request in (its bytes in the one reused pooled buffer), read complete; returns the buffers
     * written back, released ({@link #lastBytes}: how many bytes they held).
     */
    int exchange(byte[] request) {
        in.clear().writeBytes(request);
        channel.pipeline().fireChannelRead(in.retain());
        channel.pipeline().fireChannelReadComplete();
        int answers = 0;
        long bytes = 0;
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            answers++;
            bytes += ((ByteBuf) out).readableBytes();
            ((ByteBuf) out).release();
        }
        lastBytes = bytes;
        return answers;
    }

    /** As {@link #exchange}, returning what was written back as text (allocates; outside measurements). */
    String exchangeText(byte[] request) {
        in.clear().writeBytes(request);
        channel.pipeline().fireChannelRead(in.retain());
        channel.pipeline().fireChannelReadComplete();
        StringBuilder all = new StringBuilder();
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            all.append(((ByteBuf) out).toString(ISO_8859_1));
            ((ByteBuf) out).release();
        }
        return all.toString();
    }

    void close() {
        channel.finishAndReleaseAll();
        in.release();
    }
}
