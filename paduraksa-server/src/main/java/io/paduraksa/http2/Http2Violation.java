package io.paduraksa.http2;

import static io.paduraksa.http2.Http2ErrorCodes.COMPRESSION_ERROR;
import static io.paduraksa.http2.Http2ErrorCodes.ENHANCE_YOUR_CALM;
import static io.paduraksa.http2.Http2ErrorCodes.STREAM_CLOSED;
import static io.paduraksa.http2.Http2ErrorCodes.REFUSED_STREAM;
import static io.paduraksa.http2.Http2ErrorCodes.FLOW_CONTROL_ERROR;
import static io.paduraksa.http2.Http2ErrorCodes.FRAME_SIZE_ERROR;
import static io.paduraksa.http2.Http2ErrorCodes.PROTOCOL_ERROR;

/**
 * What a peer did wrong, found by the frame reader ({@link Http2FrameReader}), the HPACK decoder
 * ({@link HpackDecoder}) or the field validation ({@link Http2FieldValidator}): the RFC error code
 * to send, whether it ends the connection (GOAWAY) or one stream (RST_STREAM), and the section that
 * says so. Errors are values: reporting one allocates nothing.
 *
 * <p>Where RFC 9113 allows a stream error but the frame alters connection state (it carries a field
 * block, or has stream 0), the error is a connection error, as section 4.2 asks for frame size
 * errors and as Netty's {@code DefaultHttp2FrameReader} does (our differential test holds us to the
 * same verdicts).
 */
public enum Http2Violation {
    // ---- frames (RFC 9113 sections 4 and 6)
    FRAME_TOO_LARGE(FRAME_SIZE_ERROR, true, "RFC 9113 4.2", "frame length exceeds SETTINGS_MAX_FRAME_SIZE"),
    STREAM_ID_REQUIRED(PROTOCOL_ERROR, true, "RFC 9113 6.1-6.4, 6.6, 6.10", "frame type needs a stream id"),
    STREAM_ID_NOT_ZERO(PROTOCOL_ERROR, true, "RFC 9113 6.5, 6.7, 6.8", "frame type is for the connection (stream 0)"),
    CONTINUATION_EXPECTED(PROTOCOL_ERROR, true, "RFC 9113 6.10", "other frame inside a field block"),
    CONTINUATION_UNEXPECTED(PROTOCOL_ERROR, true, "RFC 9113 6.10", "CONTINUATION without an open field block"),
    CONTINUATION_WRONG_STREAM(PROTOCOL_ERROR, true, "RFC 9113 6.10", "CONTINUATION on another stream"),
    DATA_TOO_SHORT(FRAME_SIZE_ERROR, false, "RFC 9113 6.1", "padded DATA frame without a pad length"),
    PADDING_TOO_LONG(PROTOCOL_ERROR, true, "RFC 9113 6.1, 6.2, 6.6", "padding as long as the payload or longer"),
    HEADERS_TOO_SHORT(FRAME_SIZE_ERROR, true, "RFC 9113 6.2", "HEADERS shorter than its pad length and priority"),
    HEADERS_SELF_DEPENDENCY(PROTOCOL_ERROR, true, "RFC 9113 5.3.1", "HEADERS stream depends on itself"),
    PRIORITY_LENGTH(FRAME_SIZE_ERROR, false, "RFC 9113 6.3", "PRIORITY length other than 5"),
    PRIORITY_SELF_DEPENDENCY(PROTOCOL_ERROR, false, "RFC 9113 5.3.1", "PRIORITY stream depends on itself"),
    RST_STREAM_LENGTH(FRAME_SIZE_ERROR, true, "RFC 9113 6.4", "RST_STREAM length other than 4"),
    SETTINGS_ACK_LENGTH(FRAME_SIZE_ERROR, true, "RFC 9113 6.5", "SETTINGS ACK with a payload"),
    SETTINGS_LENGTH(FRAME_SIZE_ERROR, true, "RFC 9113 6.5", "SETTINGS length not a multiple of 6"),
    SETTINGS_ENABLE_PUSH(PROTOCOL_ERROR, true, "RFC 9113 6.5.2", "SETTINGS_ENABLE_PUSH other than 0 or 1"),
    SETTINGS_INITIAL_WINDOW_SIZE(FLOW_CONTROL_ERROR, true, "RFC 9113 6.5.2", "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1"),
    SETTINGS_MAX_FRAME_SIZE(PROTOCOL_ERROR, true, "RFC 9113 6.5.2", "SETTINGS_MAX_FRAME_SIZE outside 2^14..2^24-1"),
    SETTINGS_ENABLE_CONNECT_PROTOCOL(PROTOCOL_ERROR, true, "RFC 8441 3", "SETTINGS_ENABLE_CONNECT_PROTOCOL other than 0 or 1"),
    PUSH_PROMISE_TOO_SHORT(FRAME_SIZE_ERROR, true, "RFC 9113 6.6", "PUSH_PROMISE shorter than its pad length and promised id"),
    PING_LENGTH(FRAME_SIZE_ERROR, true, "RFC 9113 6.7", "PING length other than 8"),
    GOAWAY_TOO_SHORT(FRAME_SIZE_ERROR, true, "RFC 9113 6.8", "GOAWAY shorter than 8"),
    WINDOW_UPDATE_LENGTH(FRAME_SIZE_ERROR, true, "RFC 9113 6.9", "WINDOW_UPDATE length other than 4"),
    WINDOW_UPDATE_ZERO_CONNECTION(PROTOCOL_ERROR, true, "RFC 9113 6.9", "connection WINDOW_UPDATE of 0"),
    WINDOW_UPDATE_ZERO_STREAM(PROTOCOL_ERROR, false, "RFC 9113 6.9", "stream WINDOW_UPDATE of 0"),
    FIELD_BLOCK_TOO_LARGE(PROTOCOL_ERROR, true, "RFC 9113 10.5.1", "field block larger than the hard limit"),
    CONTINUATION_FLOOD(ENHANCE_YOUR_CALM, true, "RFC 9113 10.5", "too many small CONTINUATION frames in one field block"),

    // ---- connection state (RFC 9113 sections 3.4, 5, 6.9, 8; found by Http2Connection)
    PREFACE_INVALID(PROTOCOL_ERROR, true, "RFC 9113 3.4", "connection preface missing or wrong"),
    FIRST_FRAME_NOT_SETTINGS(PROTOCOL_ERROR, true, "RFC 9113 3.4", "first frame of the peer is not SETTINGS"),
    STREAM_IDLE(PROTOCOL_ERROR, true, "RFC 9113 5.1", "frame on an idle stream"),
    STREAM_CLOSED_FRAME(STREAM_CLOSED, false, "RFC 9113 5.1", "frame on a closed or half-closed (remote) stream"),
    STREAM_REFUSED(REFUSED_STREAM, false, "RFC 9113 5.1.2", "more streams than SETTINGS_MAX_CONCURRENT_STREAMS"),
    PUSH_PROMISE_RECEIVED(PROTOCOL_ERROR, true, "RFC 9113 8.4", "PUSH_PROMISE from a client, or with push disabled"),
    TRAILERS_WITHOUT_END_STREAM(PROTOCOL_ERROR, false, "RFC 9113 8.1", "second field block without END_STREAM"),
    CONNECTION_WINDOW_EXCEEDED(FLOW_CONTROL_ERROR, true, "RFC 9113 6.9.1", "DATA beyond the connection window"),
    STREAM_WINDOW_EXCEEDED(FLOW_CONTROL_ERROR, false, "RFC 9113 6.9.1", "DATA beyond the stream window"),
    CONNECTION_WINDOW_OVERFLOW(FLOW_CONTROL_ERROR, true, "RFC 9113 6.9.1", "connection window above 2^31-1"),
    STREAM_WINDOW_OVERFLOW(FLOW_CONTROL_ERROR, false, "RFC 9113 6.9.1", "stream window above 2^31-1"),
    INITIAL_WINDOW_OVERFLOW(FLOW_CONTROL_ERROR, true, "RFC 9113 6.9.2", "SETTINGS_INITIAL_WINDOW_SIZE change overflows a window"),
    CONTENT_LENGTH_MISMATCH(PROTOCOL_ERROR, false, "RFC 9113 8.1.1", "content-length other than the DATA received"),
    CONTENT_LENGTH_INVALID(PROTOCOL_ERROR, false, "RFC 9113 8.1.1", "content-length not a number, or two different ones"),
    RAPID_RESET(ENHANCE_YOUR_CALM, true, "RFC 9113 10.5, CVE-2023-44487", "too many RST_STREAM frames per window"),
    EMPTY_FRAME_FLOOD(ENHANCE_YOUR_CALM, true, "RFC 9113 10.5", "too many consecutive empty DATA or HEADERS frames"),
    CONTROL_FRAME_FLOOD(ENHANCE_YOUR_CALM, true, "RFC 9113 10.5", "too many answers to SETTINGS, PING or bad streams queued for a peer that does not read"),

    // ---- HPACK (RFC 7541); every decoding error is a connection COMPRESSION_ERROR (RFC 9113 4.3)
    HPACK_INDEX_ZERO(COMPRESSION_ERROR, true, "RFC 7541 6.1", "index 0"),
    HPACK_INDEX_OUT_OF_RANGE(COMPRESSION_ERROR, true, "RFC 7541 2.3.3", "index beyond the static and dynamic tables"),
    HPACK_INTEGER_OVERFLOW(COMPRESSION_ERROR, true, "RFC 7541 5.1", "integer above 2^31-1"),
    HPACK_TRUNCATED(COMPRESSION_ERROR, true, "RFC 7541 5.1, 5.2", "field block ends inside a representation"),
    HPACK_HUFFMAN_EOS(COMPRESSION_ERROR, true, "RFC 7541 5.2", "Huffman string contains EOS"),
    HPACK_HUFFMAN_PADDING(COMPRESSION_ERROR, true, "RFC 7541 5.2", "Huffman padding longer than 7 bits or not all ones"),
    HPACK_SIZE_UPDATE_NOT_FIRST(COMPRESSION_ERROR, true, "RFC 9113 4.3.1", "dynamic table size update after a field"),
    HPACK_SIZE_UPDATE_TOO_LARGE(COMPRESSION_ERROR, true, "RFC 7541 6.3", "dynamic table size above SETTINGS_HEADER_TABLE_SIZE"),
    HPACK_SIZE_UPDATE_MISSING(COMPRESSION_ERROR, true, "RFC 7541 4.2", "no size update after SETTINGS_HEADER_TABLE_SIZE was lowered"),
    HEADER_LIST_TOO_LARGE(PROTOCOL_ERROR, false, "RFC 9113 6.5.2, 10.5.1", "field section above SETTINGS_MAX_HEADER_LIST_SIZE"),

    // ---- fields (RFC 9113 8.2, 8.3): a malformed message is a stream PROTOCOL_ERROR (8.1.1)
    FIELD_NAME_EMPTY(PROTOCOL_ERROR, false, "RFC 9113 8.2.1", "empty field name"),
    FIELD_NAME_UPPER_CASE(PROTOCOL_ERROR, false, "RFC 9113 8.2.1", "upper case in a field name"),
    FIELD_NAME_INVALID(PROTOCOL_ERROR, false, "RFC 9113 8.2.1", "field name byte outside tchar"),
    FIELD_VALUE_INVALID(PROTOCOL_ERROR, false, "RFC 9113 8.2.1", "NUL, CR or LF in a field value"),
    FIELD_VALUE_WHITESPACE(PROTOCOL_ERROR, false, "RFC 9113 8.2.1", "field value starts or ends with SP or HTAB"),
    CONNECTION_SPECIFIC_FIELD(PROTOCOL_ERROR, false, "RFC 9113 8.2.2", "connection-specific field"),
    TE_NOT_TRAILERS(PROTOCOL_ERROR, false, "RFC 9113 8.2.2", "te other than trailers"),
    PSEUDO_AFTER_REGULAR(PROTOCOL_ERROR, false, "RFC 9113 8.3", "pseudo-header after a regular field"),
    PSEUDO_UNKNOWN(PROTOCOL_ERROR, false, "RFC 9113 8.3", "undefined pseudo-header or one of the other direction"),
    PSEUDO_DUPLICATE(PROTOCOL_ERROR, false, "RFC 9113 8.3.1", "pseudo-header twice"),
    PSEUDO_IN_TRAILERS(PROTOCOL_ERROR, false, "RFC 9113 8.1", "pseudo-header in trailers"),
    PSEUDO_MISSING(PROTOCOL_ERROR, false, "RFC 9113 8.3.1, 8.3.2", "mandatory pseudo-header missing"),
    PATH_EMPTY(PROTOCOL_ERROR, false, "RFC 9113 8.3.1", "empty :path"),
    CONNECT_WITH_SCHEME_OR_PATH(PROTOCOL_ERROR, false, "RFC 9113 8.5", "CONNECT with :scheme or :path"),
    AUTHORITY_HOST_MISMATCH(PROTOCOL_ERROR, false, "RFC 9113 8.3.1", ":authority and host differ"),
    STATUS_INVALID(PROTOCOL_ERROR, false, "RFC 9113 8.3.2", ":status not three digits");

    private final int code;
    private final boolean connectionError;
    private final String section;
    private final String text;

    Http2Violation(int code, boolean connectionError, String section, String text) {
        this.code = code;
        this.connectionError = connectionError;
        this.section = section;
        this.text = text;
    }

    /** The RFC 9113 section 7 error code to send. */
    public int code() {
        return code;
    }

    /** True: GOAWAY and close; false: RST_STREAM on the stream, the connection goes on. */
    public boolean isConnectionError() {
        return connectionError;
    }

    /** The RFC section that sets the rule. */
    public String section() {
        return section;
    }

    public String text() {
        return text;
    }
}
