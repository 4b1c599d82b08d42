package io.paduraksa.server.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.http1.Http1Error;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Test consumer: sits after the decoder, copies every head into Strings at once and releases it (as
 * the gate would), gathers body slices, and records the error. {@link #decode} feeds byte chunks
 * through an {@link EmbeddedChannel}.
 */
final class Http1Collector extends ChannelInboundHandlerAdapter {
    /** One decoded request as plain values, comparable with equals. */
    record Request(String method, String target, int version, int targetForm, List<String> headers, String body,
            long contentLength, boolean chunked, boolean keepAlive, boolean expectContinue, boolean upgradeWebSocket,
            String host, boolean complete) {
        Request withBody(String newBody) {
            return new Request(method, target, version, targetForm, headers, newBody, contentLength, chunked, keepAlive,
                    expectContinue, upgradeWebSocket, host, true);
        }
    }

    /** Everything one connection produced. */
    record Outcome(List<Request> requests, Http1Error error) {
        int status() {
            return error == null ? 0 : error.status();
        }
    }

    final List<Request> requests = new ArrayList<>();
    Http1Error error;
    private Request pending;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int messagesAfterError;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (error != null) {
            messagesAfterError++;
        }
        if (msg instanceof Http1RequestHead head) {
            Request r = snapshot(head);
            head.release();
            if (head.hasBody()) {
                pending = r;
                body.reset();
            } else {
                requests.add(r);
            }
        } else if (msg instanceof ByteBuf buf) {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            buf.release();
            body.writeBytes(bytes);
        } else if (msg == Http1RequestEnd.INSTANCE) {
            requests.add(pending.withBody(body.toString(ISO_8859_1)));
            pending = null;
        } else if (msg instanceof Http1Error e) {
            error = e;
        } else {
            throw new AssertionError("unexpected message " + msg);
        }
    }

    static Request snapshot(Http1RequestHead head) {
        List<String> headers = new ArrayList<>();
        for (int i = 0; i < head.headerCount(); i++) {
            headers.add(head.headerName(i) + ": " + head.headerValue(i));
        }
        return new Request(head.method().toString(), head.target().toString(), head.version(), head.targetForm(),
                List.copyOf(headers), "", head.contentLength(), head.isChunked(), head.isKeepAlive(),
                head.isExpectContinue(), head.isUpgradeWebSocket(), head.hostIndex() < 0 ? null : head.host().toString(),
                !head.hasBody());
    }

    Outcome outcome() {
        if (messagesAfterError != 0) {
            throw new AssertionError(messagesAfterError + " messages after the error " + error);
        }
        List<Request> all = new ArrayList<>(requests);
        if (pending != null) {
            Request partial = pending.withBody(body.toString(ISO_8859_1));
            all.add(new Request(partial.method(), partial.target(), partial.version(), partial.targetForm(),
                    partial.headers(), partial.body(), partial.contentLength(), partial.chunked(), partial.keepAlive(),
                    partial.expectContinue(), partial.upgradeWebSocket(), partial.host(), false));
        }
        return new Outcome(List.copyOf(all), error);
    }

    static Outcome decode(String request) {
        return decode(new Http1RequestDecoder(), request.getBytes(ISO_8859_1));
    }

    static Outcome decode(Http1RequestDecoder decoder, byte[]... chunks) {
        Http1Collector collector = new Http1Collector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            for (byte[] chunk : chunks) {
                ch.writeInbound(Unpooled.wrappedBuffer(chunk));
            }
            return collector.outcome();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** Feeds {@code bytes} split at {@code at}. */
    static Outcome decodeSplit(byte[] bytes, int at) {
        byte[] a = java.util.Arrays.copyOfRange(bytes, 0, at);
        byte[] b = java.util.Arrays.copyOfRange(bytes, at, bytes.length);
        return decode(new Http1RequestDecoder(), a, b);
    }

    /** Feeds {@code bytes} one byte per read. */
    static Outcome decodeByteByByte(byte[] bytes) {
        byte[][] chunks = new byte[bytes.length][];
        for (int i = 0; i < bytes.length; i++) {
            chunks[i] = new byte[] {bytes[i]};
        }
        return decode(new Http1RequestDecoder(), chunks);
    }
}
