package io.paduraksa.proxy.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.paduraksa.http1.Http1Error;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test consumer: sits after the decoder, turns every message into a plain value (records and
 * Strings, comparable with equals) and releases it at once. Adjacent body buffers are merged into
 * one {@code "data:..."} event so that how the bytes were split does not show.
 */
final class Http1ResponseCollector extends ChannelInboundHandlerAdapter {
    /** One head as plain values. */
    record Head(int status, int version, String reason, List<String> headers, long contentLength, boolean chunked,
            boolean closeDelimited, boolean keepAlive, boolean hasBody, boolean informational, String bytes) {
    }

    static final String END = "end";

    final List<Object> events = new ArrayList<>();
    private int messagesAfterError;
    private boolean failed;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (failed) {
            messagesAfterError++;
        }
        if (msg instanceof Http1ResponseHead head) {
            events.add(snapshot(head));
            head.release();
        } else if (msg instanceof ByteBuf buf) {
            String data = buf.toString(ISO_8859_1);
            buf.release();
            int last = events.size() - 1;
            if (last >= 0 && events.get(last) instanceof String s && s.startsWith("data:")) {
                events.set(last, s + data);
            } else {
                events.add("data:" + data);
            }
        } else if (msg instanceof Http1ResponseTrailers trailers) {
            List<String> fields = new ArrayList<>();
            for (int i = 0; i < trailers.count(); i++) {
                fields.add(trailers.name(i) + ": " + trailers.value(i));
            }
            trailers.release();
            events.add("trailers:" + fields);
        } else if (msg == Http1ResponseEnd.INSTANCE) {
            events.add(END);
        } else if (msg instanceof Http1Error error) {
            failed = true;
            events.add(error);
        } else {
            throw new AssertionError("unexpected message " + msg);
        }
    }

    static Head snapshot(Http1ResponseHead head) {
        List<String> headers = new ArrayList<>();
        for (int i = 0; i < head.headerCount(); i++) {
            headers.add(head.headerName(i) + ": " + head.headerValue(i));
        }
        return new Head(head.status(), head.version(), head.reason().toString(), List.copyOf(headers),
                head.contentLength(), head.isChunked(), head.isCloseDelimited(), head.isKeepAlive(), head.hasBody(),
                head.isInformational(), head.buffer().toString(ISO_8859_1));
    }

    List<Object> events() {
        if (messagesAfterError != 0) {
            throw new AssertionError(messagesAfterError + " messages after the error in " + events);
        }
        return List.copyOf(events);
    }

    /**
     * Expects one response per letter of {@code expect} (G: GET, H: HEAD, U: upgrade request), feeds
     * the chunks, then closes the channel when {@code close} (so end-of-input handling shows).
     */
    static List<Object> decode(String expect, boolean close, byte[]... chunks) {
        Http1ResponseDecoder decoder = new Http1ResponseDecoder();
        Http1ResponseCollector collector = new Http1ResponseCollector();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, collector);
        try {
            expect(decoder, expect);
            for (byte[] chunk : chunks) {
                ch.writeInbound(Unpooled.wrappedBuffer(chunk));
            }
            if (close) {
                ch.close();
            }
            return collector.events();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    static List<Object> decode(String expect, String response) {
        return decode(expect, true, bytes(response));
    }

    static void expect(Http1ResponseDecoder decoder, String expect) {
        for (int i = 0; i < expect.length(); i++) {
            char c = expect.charAt(i);
            decoder.expectResponse(c == 'H', c == 'U');
        }
    }

    static List<Object> decodeSplit(String expect, byte[] bytes, int at) {
        return decode(expect, true, Arrays.copyOfRange(bytes, 0, at), Arrays.copyOfRange(bytes, at, bytes.length));
    }

    static List<Object> decodeByteByByte(String expect, byte[] bytes) {
        byte[][] chunks = new byte[bytes.length][];
        for (int i = 0; i < bytes.length; i++) {
            chunks[i] = new byte[] {bytes[i]};
        }
        return decode(expect, true, chunks);
    }

    static byte[] bytes(String s) {
        return s.getBytes(ISO_8859_1);
    }
}
