package io.paduraksa.http1;

import io.netty.util.AsciiString;

/**
 * The lower-case field names and tokens both decoders compare against in place (ASCII case folded
 * on the wire side, {@link Http1Bytes#rangeEqualsLowerCase}). Built once at class load.
 */
public final class Http1Names {
    public static final AsciiString CONNECTION = AsciiString.cached("connection");
    public static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    public static final AsciiString TRANSFER_ENCODING = AsciiString.cached("transfer-encoding");
    public static final AsciiString CHUNKED = AsciiString.cached("chunked");
    public static final AsciiString CLOSE = AsciiString.cached("close");
    public static final AsciiString KEEP_ALIVE = AsciiString.cached("keep-alive");

    private Http1Names() {
    }
}
