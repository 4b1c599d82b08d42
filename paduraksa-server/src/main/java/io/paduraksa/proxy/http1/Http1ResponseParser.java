package io.paduraksa.proxy.http1;

import static io.paduraksa.http1.Http1Bytes.CR;
import static io.paduraksa.http1.Http1Bytes.LF;
import static io.paduraksa.http1.Http1Bytes.NUL;
import static io.paduraksa.http1.Http1Bytes.SP;
import static io.paduraksa.http1.Http1Names.CHUNKED;
import static io.paduraksa.http1.Http1Names.CLOSE;
import static io.paduraksa.http1.Http1Names.CONNECTION;
import static io.paduraksa.http1.Http1Names.CONTENT_LENGTH;
import static io.paduraksa.http1.Http1Names.KEEP_ALIVE;
import static io.paduraksa.http1.Http1Names.TRANSFER_ENCODING;

import io.netty.buffer.ByteBuf;
import io.paduraksa.http1.Http1Bytes;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.http1.Http1LineParser;

/**
 * Parses one complete response head (RFC 9112 sections 4 to 6) in a single pass, recording
 * positions into an {@link Http1ResponseHead} and deriving the framing (RFC 9112 section 6.3); field
 * lines are {@link Http1LineParser}'s.
 *
 * <p>The decoder calls it once the whole head is buffered and every LF in it is known to follow a
 * CR, so lines are walked by LF alone. One instance per decoder; its fields are scratch for the
 * head being parsed. Allocates nothing; errors are enum values.
 */
final class Http1ResponseParser implements Http1LineParser.FieldSink {
    /** "HTTP/1.x 200" without CRLF. */
    private static final int MIN_STATUS_LINE = Http1ResponseHead.STATUS_END;

    private final Http1LineParser lines;

    // The field line being looked at: absolute indices into the inbound buffer.
    private int nameEnd;
    private int valueStart;
    private int valueEnd;

    // Facts gathered from the fields of the head being parsed.
    private long contentLength;
    /** Where the first Content-Length value's digits are in the head (a repeat must be the same digits). */
    private int contentLengthStart;
    private int contentLengthDigits;
    private boolean transferEncoding;
    private boolean chunked;
    private boolean connectionClose;
    private boolean connectionKeepAlive;

    Http1ResponseParser(Http1LineParser lines) {
        this.lines = lines;
    }

    /**
     * Parses the head {@code in[start, end)}; {@code end} is just after the empty line. A response to
     * HEAD ({@code headRequest}) has no body whatever it declares. Returns null when the head is
     * valid ({@code head} then holds it, positions relative to {@code start}).
     */
    Http1Error parse(ByteBuf in, int start, int end, boolean headRequest, Http1ResponseHead head) {
        head.reset();
        int statusLf = in.indexOf(start, end, LF);
        Http1Error error = parseStatusLine(in, start, statusLf - 1, head);
        if (error != null) {
            return error;
        }
        clearFacts();
        error = lines.parseFields(in, statusLf + 1, end, head, start, this);
        return error != null ? error : framing(head, headRequest);
    }

    /** One field of the head, already added to it: the framing facts it carries. */
    @Override
    public Http1Error field(ByteBuf in, int lineStart, int index) {
        nameEnd = lines.nameEnd();
        valueStart = lines.valueStart();
        valueEnd = lines.valueEnd();
        return fieldFacts(in, lineStart);
    }

    // ---- status line

    /** {@code "HTTP/1."}: the first seven bytes every accepted status line starts with. */
    private static final byte[] HTTP_1_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

    /**
     * Whether the first {@code min(readable, 8)} bytes from {@code from} can start
     * {@code HTTP/1.0} or {@code HTTP/1.1}: lets the decoder refuse garbage at its first byte.
     */
    static boolean isVersionPrefix(ByteBuf in, int from, int readable) {
        int n = Math.min(readable, 8);
        for (int i = 0; i < n; i++) {
            int b = in.getByte(from + i);
            if (i < 7 ? b != HTTP_1_PREFIX[i] : b != '0' && b != '1') {
                return false;
            }
        }
        return true;
    }

    private static Http1Error parseStatusLine(ByteBuf in, int start, int cr, Http1ResponseHead head) {
        if (cr - start < MIN_STATUS_LINE) {
            return cr - start < 8 || in.getByte(start + 8) != SP
                    ? Http1Error.MALFORMED_STATUS_LINE : Http1Error.INVALID_STATUS_CODE;
        }
        long v = in.getLong(start);
        int version = v == Http1Bytes.HTTP_1_1_AS_LONG ? Http1ResponseHead.HTTP_1_1
                : v == Http1Bytes.HTTP_1_0_AS_LONG ? Http1ResponseHead.HTTP_1_0 : 0;
        if (version == 0) {
            return Http1Error.NOT_HTTP_1;
        }
        if (in.getByte(start + 8) != SP) {
            return Http1Error.MALFORMED_STATUS_LINE;
        }
        int status = statusCode(in, start + Http1ResponseHead.STATUS_START);
        if (status < 100 || status > 599) {
            return Http1Error.INVALID_STATUS_CODE;
        }
        int reasonStart = start + MIN_STATUS_LINE;
        if (reasonStart < cr) {
            int sep = in.getByte(reasonStart);
            if (sep != SP) {
                return Http1Bytes.isDigit(sep) ? Http1Error.INVALID_STATUS_CODE : invalidByte(sep,
                        Http1Error.MALFORMED_STATUS_LINE);
            }
            reasonStart++;
            Http1Error error = checkReason(in, reasonStart, cr);
            if (error != null) {
                return error;
            }
        }
        head.statusLine(version, status, reasonStart - start, cr - start);
        return null;
    }

    /** Three digits, or -1. */
    private static int statusCode(ByteBuf in, int p) {
        int a = in.getByte(p) - '0';
        int b = in.getByte(p + 1) - '0';
        int c = in.getByte(p + 2) - '0';
        if ((a | b | c) < 0 || a > 9 || b > 9 || c > 9) {
            return -1;
        }
        return a * 100 + b * 10 + c;
    }

    /** reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ), or empty. */
    private static Http1Error checkReason(ByteBuf in, int from, int cr) {
        for (int p = from; p < cr; p++) {
            int b = in.getByte(p);
            if (!Http1Bytes.isFieldValue(b)) {
                return invalidByte(b, Http1Error.INVALID_REASON);
            }
        }
        return null;
    }

    /** The error for a byte that is not allowed where it is: CR and NUL are framing errors everywhere. */
    private static Http1Error invalidByte(int b, Http1Error otherwise) {
        return b == CR ? Http1Error.BARE_CR : b == NUL ? Http1Error.NUL : otherwise;
    }

    // ---- framing facts (RFC 9112 sections 6, 9.3; RFC 9110 sections 7.6.1, 8.6)

    private void clearFacts() {
        contentLength = -1;
        transferEncoding = false;
        chunked = false;
        connectionClose = false;
        connectionKeepAlive = false;
    }

    /** Looks at the fields that matter for framing; names are told apart by length first. */
    private Http1Error fieldFacts(ByteBuf in, int nameStart) {
        switch (nameEnd - nameStart) {
            case 10:
                if (Http1Bytes.rangeEqualsLowerCase(in, nameStart, nameEnd, CONNECTION)) {
                    connectionClose |= Http1Bytes.listContains(in, valueStart, valueEnd, CLOSE);
                    connectionKeepAlive |= Http1Bytes.listContains(in, valueStart, valueEnd, KEEP_ALIVE);
                }
                return null;
            case 14:
                return Http1Bytes.rangeEqualsLowerCase(in, nameStart, nameEnd, CONTENT_LENGTH) ? contentLength(in) : null;
            case 17:
                return Http1Bytes.rangeEqualsLowerCase(in, nameStart, nameEnd, TRANSFER_ENCODING) ? transferEncoding(in) : null;
            default:
                return null;
        }
    }

    /**
     * Content-Length = 1*DIGIT, repeated (as field lines or as a list) only as the same digits (RFC
     * 9110 section 8.6 lets a recipient accept an exact duplicate); anything else repeated, even an
     * equal number written differently ({@code 09} and {@code 9}), is a framing error, as in Netty's
     * decoder with {@code allowDuplicateContentLengths}.
     */
    private Http1Error contentLength(ByteBuf in) {
        int p = valueStart;
        int end = valueEnd;
        while (true) {
            int digitsEnd = p;
            long value = 0;
            for (int d; digitsEnd < end && (d = in.getByte(digitsEnd) - '0') >= 0 && d <= 9; digitsEnd++) {
                if (value > (Long.MAX_VALUE - d) / 10) {
                    return Http1Error.INVALID_CONTENT_LENGTH;
                }
                value = value * 10 + d;
            }
            if (digitsEnd == p) {
                return Http1Error.INVALID_CONTENT_LENGTH;
            }
            if (contentLength >= 0 && !sameDigits(in, p, digitsEnd)) {
                return Http1Error.CONFLICTING_CONTENT_LENGTH;
            }
            if (contentLength < 0) {
                contentLengthStart = p;
                contentLengthDigits = digitsEnd - p;
            }
            contentLength = value;
            p = Http1Bytes.skipOws(in, digitsEnd, end);
            if (p == end) {
                return null;
            }
            if (in.getByte(p) != ',') {
                return Http1Error.INVALID_CONTENT_LENGTH;
            }
            p = Http1Bytes.skipOws(in, p + 1, end);
        }
    }

    private boolean sameDigits(ByteBuf in, int from, int to) {
        if (to - from != contentLengthDigits) {
            return false;
        }
        for (int i = 0; i < contentLengthDigits; i++) {
            if (in.getByte(from + i) != in.getByte(contentLengthStart + i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Transfer-Encoding: a list of tokens (over one or more field lines) in which {@code chunked}
     * appears once, last (RFC 9112 sections 6.1 and 6.3). Codings before it (gzip) are the body's
     * business, not framing. Parameters, empty elements and anything after chunked are refused.
     */
    private Http1Error transferEncoding(ByteBuf in) {
        transferEncoding = true;
        int to = valueEnd;
        int p = valueStart;
        while (true) {
            int comma = p < to ? in.indexOf(p, to, (byte) ',') : -1;
            int elementEnd = comma < 0 ? to : comma;
            int s = Http1Bytes.skipOws(in, p, elementEnd);
            int e = Http1Bytes.trimOws(in, s, elementEnd);
            if (chunked || s == e || !Http1Bytes.isToken(in, s, e)) {
                return Http1Error.INVALID_TRANSFER_ENCODING;
            }
            chunked = Http1Bytes.rangeEqualsLowerCase(in, s, e, CHUNKED);
            if (comma < 0) {
                return null;
            }
            p = comma + 1;
        }
    }

    private Http1Error framing(Http1ResponseHead head, boolean headRequest) {
        if (transferEncoding && contentLength >= 0) {
            return Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING;
        }
        if (transferEncoding && head.version() == Http1ResponseHead.HTTP_1_0) {
            return Http1Error.TRANSFER_ENCODING_IN_HTTP_1_0;
        }
        if (transferEncoding && !chunked) {
            return Http1Error.INVALID_TRANSFER_ENCODING;
        }
        int status = head.status();
        // RFC 9112 section 6.3 rules 1 and 2: no body whatever the fields say.
        boolean bodiless = headRequest || status < 200 || status == 204 || status == 304;
        boolean closeDelimited = !bodiless && !chunked && contentLength < 0;
        boolean hasBody = !bodiless && (chunked || contentLength != 0);
        boolean keepAlive = !closeDelimited && !connectionClose
                && (head.version() == Http1ResponseHead.HTTP_1_1 || connectionKeepAlive);
        head.framing(contentLength, chunked, keepAlive, hasBody, closeDelimited);
        return null;
    }
}
