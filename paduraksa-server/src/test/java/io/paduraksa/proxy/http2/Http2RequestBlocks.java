package io.paduraksa.proxy.http2;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.netty.buffer.ByteBuf;
import io.paduraksa.http2.HpackDecoder;
import io.paduraksa.http2.Http2FieldValidator;
import java.util.ArrayList;
import java.util.List;

/** Test help: an upstream request's field block decoded (no validation: a block without pseudo-header fields too). */
public final class Http2RequestBlocks {
    private Http2RequestBlocks() {
    }

    /** {@code block}'s fields as {@code name: value} texts. */
    public static List<String> decode(ByteBuf block) {
        List<String> out = new ArrayList<>();
        new HpackDecoder(4096, 64 * 1024, false).decode(block, block.readerIndex(), block.readableBytes(), Http2FieldValidator.NONE,
                (name, ni, nl, value, vi, vl, staticIndex) -> out.add(name.toString(ni, nl, ISO_8859_1) + ": "
                        + value.toString(vi, vl, ISO_8859_1)));
        return out;
    }
}
