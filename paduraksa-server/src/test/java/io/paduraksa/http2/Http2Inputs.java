package io.paduraksa.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import java.util.SplittableRandom;

/**
 * Generated inputs for the differential tests: HPACK blocks made of every representation (indexed,
 * the three literal kinds with static, dynamic or new names, size updates in and out of place),
 * strings raw or Huffman-coded (and raw bytes posing as Huffman), integers with redundant
 * continuation bytes, indices in and out of range; then frame sequences of every type with
 * correct and wrong lengths, stream ids, flags and padding, field blocks split over CONTINUATION,
 * stray CONTINUATION frames and unknown types. A share of the inputs is then mutated (a byte
 * flipped, the end cut off, bytes appended), so that the error paths get as much traffic as the
 * valid ones. Test code: allocates freely.
 */
final class Http2Inputs {
    private static final String[] NAMES = {"custom-key", "x-a", "x-request-id", "cookie", "user-agent", "accept",
            "X-Upper", "", "te", "connection", "na me", ":path", ":method", ":authority", ":status", ":foo",
            "content-length", "host", "sec-ch-ua", "\u00ffbin"};
    private static final String[] VALUES = {"", "a", "custom-value", "gzip, deflate, br", "/", "GET", "trailers",
            "www.example.com", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36", " lead", "trail ", "a\r\nb",
            "nul\u0000", "200", "session=0123456789abcdef; theme=dark"};

    private final SplittableRandom random;
    /** Entries the generator believes are in the peer's dynamic table (a guess: size updates and errors drift it). */
    private int tableGuess;

    Http2Inputs(long seed) {
        this.random = new SplittableRandom(seed);
    }

    SplittableRandom random() {
        return random;
    }

    void newConnection() {
        tableGuess = 0;
    }

    /** One HPACK field block, possibly mutated. */
    ByteBuf block() {
        ByteBuf out = TestBuffers.buffer();
        if (random.nextInt(10) == 0) {
            int updates = 1 + random.nextInt(2);
            for (int i = 0; i < updates; i++) {
                sizeUpdate(out);
            }
        }
        int fields = random.nextInt(12);
        for (int i = 0; i < fields; i++) {
            representation(out);
        }
        mutate(out);
        return out;
    }

    private void sizeUpdate(ByteBuf out) {
        int size = random.nextInt(20) == 0 ? 4097 + random.nextInt(1000) : random.nextInt(10) == 0 ? 0 : random.nextInt(4097);
        integer(out, 0x20, 5, size);
        if (size == 0) {
            tableGuess = 0;
        }
    }

    private void representation(ByteBuf out) {
        int kind = random.nextInt(100);
        if (kind < 30) {
            integer(out, 0x80, 7, index(true));
        } else if (kind < 98) {
            int type = random.nextInt(3);
            int first = type == 0 ? 0x40 : type == 1 ? 0x00 : 0x10;
            int prefix = type == 0 ? 6 : 4;
            int nameKind = random.nextInt(3);
            if (nameKind == 0) {
                integer(out, first, prefix, 0);
                string(out, name());
            } else {
                integer(out, first, prefix, nameKind == 1 ? 1 + random.nextInt(61) : index(false));
            }
            string(out, value());
            if (type == 0) {
                tableGuess++;
            }
        } else {
            sizeUpdate(out); // out of place: a compression error
        }
    }

    private int index(boolean allowZero) {
        int r = random.nextInt(100);
        if (r < 2 && allowZero) {
            return 0;
        }
        if (r < 50 || tableGuess == 0) {
            return 1 + random.nextInt(61);
        }
        if (r < 95) {
            return 62 + random.nextInt(tableGuess);
        }
        return 62 + tableGuess + random.nextInt(10);
    }

    private String name() {
        return random.nextInt(8) == 0 ? randomText(1 + random.nextInt(20)) : NAMES[random.nextInt(NAMES.length)];
    }

    private String value() {
        int r = random.nextInt(50);
        if (r == 0) {
            return randomText(200 + random.nextInt(1200)); // evicts, or exceeds the list size
        }
        if (r < 9) {
            return randomText(random.nextInt(40));
        }
        return VALUES[random.nextInt(VALUES.length)];
    }

    private String randomText(int length) {
        char[] c = new char[length];
        boolean binary = random.nextInt(4) == 0;
        for (int i = 0; i < length; i++) {
            c[i] = (char) (binary ? random.nextInt(256) : 0x20 + random.nextInt(0x5F));
        }
        return new String(c);
    }

    private void string(ByteBuf out, String s) {
        ByteBuf bytes = TestBuffers.ascii(s);
        int r = random.nextInt(20);
        if (r == 0) {
            // random bytes labelled Huffman: mostly EOS or bad padding
            int n = 1 + random.nextInt(8);
            integer(out, 0x80, 7, n);
            for (int i = 0; i < n; i++) {
                out.writeByte(random.nextInt(256));
            }
        } else if (r < 10) {
            integer(out, 0x80, 7, HpackHuffman.encodedLength(bytes, 0, bytes.readableBytes()));
            HpackHuffman.encode(out, bytes, 0, bytes.readableBytes());
        } else {
            integer(out, 0, 7, bytes.readableBytes());
            out.writeBytes(bytes);
        }
    }

    /** An integer; now and then with redundant zero continuation bytes, or far too large. */
    private void integer(ByteBuf out, int first, int prefixBits, int value) {
        int r = random.nextInt(200);
        int mask = (1 << prefixBits) - 1;
        if (r == 0) {
            out.writeByte(first | mask);
            for (int i = 0; i < 1 + random.nextInt(10); i++) {
                out.writeByte(0x80 | random.nextInt(128));
            }
            out.writeByte(random.nextInt(128));
            return;
        }
        if (r == 1 && value >= mask) {
            out.writeByte(first | mask);
            int rest = value - mask;
            int pad = 1 + random.nextInt(8);
            for (int i = 0; i < pad; i++) {
                out.writeByte((rest & 0x7F) | 0x80);
                rest >>>= 7;
            }
            out.writeByte(rest);
            return;
        }
        HpackEncoder.integer(out, first, prefixBits, value);
    }

    private void mutate(ByteBuf out) {
        int r = random.nextInt(10);
        if (r == 0 && out.readableBytes() > 0) {
            int at = random.nextInt(out.readableBytes());
            out.setByte(at, out.getByte(at) ^ (1 << random.nextInt(8)));
        } else if (r == 1 && out.readableBytes() > 0) {
            out.writerIndex(random.nextInt(out.readableBytes()));
        } else if (r == 2) {
            for (int i = 0; i < 1 + random.nextInt(3); i++) {
                out.writeByte(random.nextInt(256));
            }
        }
    }

    // ---- frames

    /** A sequence of frames on one connection. */
    ByteBuf frames() {
        ByteBuf out = TestBuffers.buffer();
        int count = 1 + random.nextInt(7);
        for (int i = 0; i < count; i++) {
            frame(out);
        }
        return out;
    }

    private int streamId() {
        int r = random.nextInt(20);
        if (r == 0) {
            return 0;
        }
        if (r == 1) {
            return random.nextInt() | 0x80000000; // reserved bit set
        }
        if (r == 2) {
            return random.nextInt(Integer.MAX_VALUE);
        }
        return 1 + 2 * random.nextInt(4);
    }

    private void frame(ByteBuf out) {
        int type = random.nextInt(24);
        switch (type) {
            case 0, 1, 2 -> padded(out, Http2Frames.DATA, nonZero(), randomBytes(random.nextInt(40)), 0x1);
            case 3, 4, 5, 6 -> headers(out);
            case 7 -> fixed(out, Http2Frames.PRIORITY, nonZero(), 5);
            case 8 -> fixed(out, Http2Frames.RST_STREAM, nonZero(), 4);
            case 9, 10 -> settings(out);
            case 11 -> pushPromise(out);
            case 12 -> fixed(out, Http2Frames.PING, zeroMostly(), 8);
            case 13 -> fixedAtLeast(out, Http2Frames.GOAWAY, zeroMostly(), 8);
            case 14, 15 -> windowUpdate(out);
            case 16 -> continuation(out, nonZero(), block(), random.nextBoolean());
            case 17 -> tooLarge(out);
            default -> unknown(out);
        }
    }

    private int nonZero() {
        return random.nextInt(15) == 0 ? 0 : streamId() | 1;
    }

    private int zeroMostly() {
        return random.nextInt(15) == 0 ? 1 + random.nextInt(5) : 0;
    }

    private ByteBuf randomBytes(int n) {
        ByteBuf b = TestBuffers.buffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(random.nextInt(256));
        }
        return b;
    }

    private int flags(int usual) {
        return random.nextInt(6) == 0 ? random.nextInt(256) : usual;
    }

    /** A frame with optional padding: pad length field, payload, padding (sometimes too long). */
    private void padded(ByteBuf out, int type, int streamId, ByteBuf payload, int endFlag) {
        boolean padded = random.nextInt(3) == 0;
        int flags = flags((padded ? Http2Frames.FLAG_PADDED : 0) | (random.nextBoolean() ? endFlag : 0));
        padded = (flags & Http2Frames.FLAG_PADDED) != 0;
        int padLength = padded ? random.nextInt(10) : 0;
        int length = payload.readableBytes() + (padded ? 1 + padLength : 0);
        if (padded && random.nextInt(8) == 0) {
            length = random.nextInt(2); // pad length field alone, or nothing at all
            padLength = random.nextInt(5);
        }
        Http2FrameWriter.frameHeader(out, length, type, flags, streamId);
        if (padded && length > 0) {
            out.writeByte(padLength);
            int body = Math.min(payload.readableBytes(), length - 1);
            out.writeBytes(payload, 0, body);
            out.writeZero(length - 1 - body);
        } else {
            out.writeBytes(payload, 0, length);
        }
    }

    private void headers(ByteBuf out) {
        int streamId = nonZero();
        ByteBuf block = block();
        boolean priority = random.nextInt(4) == 0;
        boolean padded = random.nextInt(4) == 0;
        int split = random.nextInt(3) == 0 ? random.nextInt(block.readableBytes() + 1) : block.readableBytes();
        boolean endHeaders = split == block.readableBytes() && random.nextInt(10) != 0;
        int flags = (padded ? Http2Frames.FLAG_PADDED : 0) | (priority ? Http2Frames.FLAG_PRIORITY : 0)
                | (endHeaders ? Http2Frames.FLAG_END_HEADERS : 0) | (random.nextBoolean() ? Http2Frames.FLAG_END_STREAM : 0);
        flags = flags(flags);
        padded = (flags & Http2Frames.FLAG_PADDED) != 0;
        priority = (flags & Http2Frames.FLAG_PRIORITY) != 0;
        endHeaders = (flags & Http2Frames.FLAG_END_HEADERS) != 0;
        int padLength = padded ? random.nextInt(6) : 0;
        int length = split + (padded ? 1 + padLength : 0) + (priority ? 5 : 0);
        if (random.nextInt(20) == 0) {
            length = random.nextInt(length + 1);
        }
        ByteBuf payload = TestBuffers.buffer();
        if (padded) {
            payload.writeByte(random.nextInt(20) == 0 ? padLength + 1 + random.nextInt(50) : padLength);
        }
        if (priority) {
            int dependency = random.nextInt(6) == 0 ? streamId : random.nextInt(8);
            payload.writeInt(random.nextBoolean() ? dependency | 0x80000000 : dependency);
            payload.writeByte(random.nextInt(256));
        }
        payload.writeBytes(block, 0, split);
        payload.writeZero(padLength);
        int written = Math.min(length, payload.readableBytes());
        Http2FrameWriter.frameHeader(out, written, Http2Frames.HEADERS, flags, streamId);
        out.writeBytes(payload, 0, written);
        if (!endHeaders) {
            // the rest of the block in one or two CONTINUATION frames (or an interruption)
            ByteBuf rest = block.slice(split, block.readableBytes() - split);
            if (random.nextInt(8) == 0) {
                frame(out);
            }
            int cut = random.nextInt(rest.readableBytes() + 1);
            if (random.nextBoolean() && cut < rest.readableBytes()) {
                continuation(out, streamId, rest.slice(0, cut), false);
                continuation(out, random.nextInt(15) == 0 ? streamId + 2 : streamId, rest.slice(cut, rest.readableBytes() - cut),
                        random.nextInt(10) != 0);
            } else {
                continuation(out, streamId, rest, random.nextInt(10) != 0);
            }
        }
    }

    private void continuation(ByteBuf out, int streamId, ByteBuf fragment, boolean endHeaders) {
        Http2FrameWriter.frameHeader(out, fragment.readableBytes(), Http2Frames.CONTINUATION,
                flags(endHeaders ? Http2Frames.FLAG_END_HEADERS : 0), streamId);
        out.writeBytes(fragment, fragment.readerIndex(), fragment.readableBytes());
    }

    private void pushPromise(ByteBuf out) {
        int streamId = nonZero() | 1; // stream 0 is a documented divergence (see the test)
        ByteBuf block = block();
        boolean padded = random.nextInt(4) == 0;
        int flags = flags((padded ? Http2Frames.FLAG_PADDED : 0) | Http2Frames.FLAG_END_HEADERS);
        padded = (flags & Http2Frames.FLAG_PADDED) != 0;
        ByteBuf payload = TestBuffers.buffer();
        int padLength = random.nextInt(4);
        if (padded) {
            payload.writeByte(padLength);
        }
        payload.writeInt(random.nextInt(10) * 2);
        payload.writeBytes(block);
        if (padded) {
            payload.writeZero(padLength);
        }
        int length = random.nextInt(15) == 0 ? random.nextInt(payload.readableBytes() + 1) : payload.readableBytes();
        Http2FrameWriter.frameHeader(out, length, Http2Frames.PUSH_PROMISE, flags, streamId);
        out.writeBytes(payload, 0, length);
        if ((flags & Http2Frames.FLAG_END_HEADERS) == 0) {
            continuation(out, streamId, block(), true);
        }
    }

    private void fixed(ByteBuf out, int type, int streamId, int length) {
        int n = random.nextInt(10) == 0 ? random.nextInt(length * 2 + 1) : length;
        Http2FrameWriter.frameHeader(out, n, type, flags(random.nextInt(3) == 0 ? Http2Frames.FLAG_ACK : 0), streamId);
        ByteBuf payload = randomBytes(n);
        if (type == Http2Frames.PRIORITY && n >= 4 && random.nextInt(5) == 0) {
            payload.setInt(0, streamId | (random.nextBoolean() ? 0x80000000 : 0));
        }
        out.writeBytes(payload);
    }

    private void fixedAtLeast(ByteBuf out, int type, int streamId, int min) {
        int n = random.nextInt(10) == 0 ? random.nextInt(min) : min + random.nextInt(20);
        Http2FrameWriter.frameHeader(out, n, type, flags(0), streamId);
        out.writeBytes(randomBytes(n));
    }

    private void windowUpdate(ByteBuf out) {
        int streamId = random.nextBoolean() ? 0 : streamId();
        int n = random.nextInt(10) == 0 ? random.nextInt(9) : 4;
        Http2FrameWriter.frameHeader(out, n, Http2Frames.WINDOW_UPDATE, flags(0), streamId);
        ByteBuf payload = randomBytes(n);
        if (n == 4 && random.nextInt(4) == 0) {
            payload.setInt(0, random.nextBoolean() ? 0 : 0x80000000);
        }
        out.writeBytes(payload);
    }

    private void settings(ByteBuf out) {
        boolean ack = random.nextInt(5) == 0;
        int count = ack ? 0 : random.nextInt(5);
        int length = count * 6;
        if (random.nextInt(12) == 0) {
            length += 1 + random.nextInt(5);
        }
        Http2FrameWriter.frameHeader(out, length, Http2Frames.SETTINGS, flags(ack ? Http2Frames.FLAG_ACK : 0), zeroMostly());
        ByteBuf payload = TestBuffers.buffer();
        for (int i = 0; i < count; i++) {
            int id = random.nextInt(10);
            long value = switch (random.nextInt(4)) {
                case 0 -> random.nextInt(3);
                case 1 -> 16384 + random.nextInt(100);
                case 2 -> random.nextLong(1L << 32);
                default -> random.nextInt(70000);
            };
            payload.writeShort(id);
            payload.writeInt((int) value);
        }
        while (payload.readableBytes() < length) {
            payload.writeByte(random.nextInt(256));
        }
        out.writeBytes(payload, 0, length);
    }

    private void tooLarge(ByteBuf out) {
        Http2FrameWriter.frameHeader(out, 16385 + random.nextInt(100000), random.nextInt(10), 0, streamId());
        out.writeBytes(randomBytes(random.nextInt(20)));
    }

    private void unknown(ByteBuf out) {
        int n = random.nextInt(20);
        Http2FrameWriter.frameHeader(out, n, 10 + random.nextInt(246), random.nextInt(256), streamId());
        out.writeBytes(randomBytes(n));
    }
}
