package io.paduraksa.http2;

import io.netty.buffer.ByteBuf;

/**
 * A Chrome-like request as an HPACK encoder sends it on a connection: the first block inserts the
 * fields that repeat (Huffman-coded, incremental indexing), the next ones refer to them by dynamic
 * index and send the path and the cookie as Huffman literals without indexing. Shared by the
 * allocation test and (as bytes) the benchmark.
 */
final class BrowserRequest {
    /** Static name indices of RFC 7541 Appendix A. */
    private static final int AUTHORITY = 1;
    private static final int PATH = 4;
    private static final int ACCEPT_ENCODING = 16;
    private static final int ACCEPT_LANGUAGE = 17;
    private static final int ACCEPT = 19;
    private static final int COOKIE = 32;
    private static final int REFERER = 51;
    private static final int USER_AGENT = 58;

    /** Repeated fields, inserted by the first block: newest last, so dynamic index 62 is the last one. */
    private static final String[][] REPEATED = {
            {null, "www.example", "1"},
            {"sec-ch-ua", "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\""},
            {"sec-ch-ua-mobile", "?0"},
            {"sec-ch-ua-platform", "\"Linux\""},
            {"upgrade-insecure-requests", "1"},
            {null, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
                    String.valueOf(USER_AGENT)},
            {null, "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
                    String.valueOf(ACCEPT)},
            {"sec-fetch-site", "same-origin"},
            {"sec-fetch-mode", "navigate"},
            {"sec-fetch-dest", "document"},
            {null, "https://www.example/", String.valueOf(REFERER)},
            {null, "gzip, deflate, br, zstd", String.valueOf(ACCEPT_ENCODING)},
            {null, "en-US,en;q=0.9", String.valueOf(ACCEPT_LANGUAGE)}};

    private BrowserRequest() {
    }

    private static ByteBuf ascii(String s) {
        return TestBuffers.ascii(s);
    }

    /** The first block: :method GET, :scheme https, :path /, and every repeated field inserted. */
    static ByteBuf firstBlock() {
        ByteBuf out = TestBuffers.buffer();
        out.writeByte(0x82).writeByte(0x87).writeByte(0x84);
        for (String[] f : REPEATED) {
            ByteBuf value = ascii(f[1]);
            if (f[0] == null) {
                HpackEncoder.integer(out, 0x40, 6, f.length > 2 ? Integer.parseInt(f[2]) : AUTHORITY);
            } else {
                HpackEncoder.integer(out, 0x40, 6, 0);
                ByteBuf name = ascii(f[0]);
                HpackEncoder.string(out, name, 0, name.readableBytes(), true);
            }
            HpackEncoder.string(out, value, 0, value.readableBytes(), true);
        }
        return out;
    }

    /** A later block: all repeated fields by dynamic index, path and cookie as Huffman literals. */
    static ByteBuf laterBlock(String path) {
        ByteBuf out = TestBuffers.buffer();
        out.writeByte(0x82).writeByte(0x87);
        ByteBuf p = ascii(path);
        HpackEncoder.literalWithStaticName(out, PATH, p, 0, p.readableBytes(), true);
        for (int i = 0; i < REPEATED.length; i++) {
            HpackEncoder.indexed(out, 62 + REPEATED.length - 1 - i);
        }
        ByteBuf cookie = ascii("session=0123456789abcdef0123456789abcdef; theme=dark; _ga=GA1.1.123456789.1700000000");
        HpackEncoder.literalWithStaticName(out, COOKIE, cookie, 0, cookie.readableBytes(), true);
        return out;
    }

    /** {@code block} as one HEADERS frame with END_HEADERS and END_STREAM. */
    static ByteBuf headersFrame(ByteBuf block, int streamId) {
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.headers(out, streamId, block, block.readerIndex(), block.readableBytes(), true, 16384);
        return out;
    }
}
