package io.paduraksa.server.http1;

import static io.paduraksa.http1.Http1Bytes.SP;
import static io.paduraksa.http1.Http1Names.CHUNKED;
import static io.paduraksa.http1.Http1Names.CLOSE;
import static io.paduraksa.http1.Http1Names.CONNECTION;
import static io.paduraksa.http1.Http1Names.CONTENT_LENGTH;
import static io.paduraksa.http1.Http1Names.KEEP_ALIVE;
import static io.paduraksa.http1.Http1Names.TRANSFER_ENCODING;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.paduraksa.http1.Http1Bytes;
import io.paduraksa.http1.Http1Error;
import io.paduraksa.http1.Http1LineParser;

/**
 * Parses one complete request head (RFC 9112 sections 2 to 7) in a single pass over the inbound
 * bytes, recording positions into an {@link Http1RequestHead} and deriving the framing facts.
 *
 * <p>The decoder calls it once the whole head is buffered and every LF in it is known to follow a
 * CR, so lines are walked without bounds checks beyond the head's end. One instance per decoder;
 * its fields are scratch for the head being parsed. Allocates nothing; errors are enum values.
 */
final class Http1HeadParser implements Http1LineParser.FieldSink {
    private static final AsciiString CONNECT = AsciiString.cached("CONNECT");
    private static final AsciiString OPTIONS = AsciiString.cached("OPTIONS");
    private static final AsciiString HOST = AsciiString.cached("host");
    private static final AsciiString EXPECT = AsciiString.cached("expect");
    private static final AsciiString UPGRADE = AsciiString.cached("upgrade");
    private static final AsciiString WEBSOCKET = AsciiString.cached("websocket");
    private static final AsciiString CONTINUE = AsciiString.cached("100-continue");

    /** {@code "HTTP/"} in the top five bytes of a big-endian long. */
    private static final long HTTP_SLASH_AS_LONG = 0x485454502F000000L;
    private static final long HTTP_SLASH_MASK = 0xFFFFFFFFFF000000L;

    private final long maxBodySize;
    private final Http1LineParser lines;

    // The field line being looked at: absolute indices into the inbound buffer.
    private int nameEnd;
    private int valueStart;
    private int valueEnd;

    // Facts gathered from the fields of the head being parsed.
    private int version;
    private long contentLength;
    private boolean transferEncoding;
    private boolean connectionClose;
    private boolean connectionKeepAlive;
    private boolean connectionUpgrade;
    private boolean upgradeWebSocket;
    private boolean expectContinue;
    private int hostIndex;

    Http1HeadParser(long maxBodySize, Http1LineParser lines) {
        this.maxBodySize = maxBodySize;
        this.lines = lines;
    }

    /**
     * Parses the head {@code in[start, end)} whose request line ends with the LF at
     * {@code requestLineLf}; {@code end} is just after the empty line. Returns null when the head
     * is valid (and {@code head} then holds it, positions relative to {@code start}).
     */
    Http1Error parse(ByteBuf in, int start, int requestLineLf, int end, Http1RequestHead head) {
        head.reset();
        Http1Error error = parseRequestLine(in, start, requestLineLf - 1, head);
        if (error != null) {
            return error;
        }
        clearFacts();
        error = lines.parseFields(in, requestLineLf + 1, end, head, start, this);
        return error != null ? error : framing(head);
    }

    /** One field of the head, already added to it: the facts it carries. */
    @Override
    public Http1Error field(ByteBuf in, int lineStart, int index) {
        nameEnd = lines.nameEnd();
        valueStart = lines.valueStart();
        valueEnd = lines.valueEnd();
        return fieldFacts(in, lineStart, index);
    }

    // ---- request line: method SP request-target SP HTTP-version (RFC 9112 section 3)

    private Http1Error parseRequestLine(ByteBuf in, int start, int cr, Http1RequestHead head) {
        int p = start;
        while (p < cr && Http1Bytes.isToken(in.getByte(p))) {
            p++;
        }
        if (p == start || p == cr || in.getByte(p) != SP) {
            return Http1Error.INVALID_METHOD;
        }
        int methodEnd = p;
        int targetStart = ++p;
        while (p < cr && Http1Bytes.isTarget(in.getByte(p))) {
            p++;
        }
        if (p == targetStart || p == cr || in.getByte(p) != SP) {
            return Http1Error.INVALID_TARGET;
        }
        int targetEnd = p++;
        if (cr - p != 8) {
            return Http1Error.INVALID_VERSION;
        }
        long v = in.getLong(p);
        version = v == Http1Bytes.HTTP_1_1_AS_LONG ? Http1RequestHead.HTTP_1_1
                : v == Http1Bytes.HTTP_1_0_AS_LONG ? Http1RequestHead.HTTP_1_0 : 0;
        if (version == 0) {
            return isWellFormedVersion(v) ? Http1Error.UNSUPPORTED_VERSION : Http1Error.INVALID_VERSION;
        }
        int form = targetForm(in, start, methodEnd, targetStart, targetEnd);
        if (form < 0) {
            return Http1Error.INVALID_TARGET;
        }
        head.requestLine(methodEnd - start, targetStart - start, targetEnd - start, form, version);
        if (form == Http1RequestHead.ABSOLUTE_FORM) {
            splitAbsoluteForm(in, start, targetStart, targetEnd, head);
        }
        return null;
    }

    /**
     * RFC 9112 3.2.2: {@code scheme://authority[/path][?query]} split by position, so that the
     * request's authority is the one in the target (it wins over Host) and its path what follows.
     * {@link #isAbsoluteForm} already checked the scheme and that an authority follows "://".
     */
    private static void splitAbsoluteForm(ByteBuf in, int start, int from, int to, Http1RequestHead head) {
        int authorityStart = in.indexOf(from, to, (byte) ':') + 3;
        int authorityEnd = authorityStart;
        while (authorityEnd < to) {
            byte b = in.getByte(authorityEnd);
            if (b == '/' || b == '?') {
                break;
            }
            authorityEnd++;
        }
        // "http://a.test?q": legal but odd; no path (-1) refuses it rather than guessing what the upstream expects.
        int pathStart = authorityEnd < to && in.getByte(authorityEnd) == '?' ? -1 : authorityEnd - start;
        head.absoluteTarget(authorityStart - start, authorityEnd - start, pathStart);
    }

    /** HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 section 2.3). */
    private static boolean isWellFormedVersion(long v) {
        return (v & HTTP_SLASH_MASK) == HTTP_SLASH_AS_LONG
                && Http1Bytes.isDigit((int) (v >>> 16) & 0xFF)
                && ((int) (v >>> 8) & 0xFF) == '.'
                && Http1Bytes.isDigit((int) v & 0xFF);
    }

    /** The request-target form (RFC 9112 section 3.2), or -1 when this form is not allowed here. */
    private static int targetForm(ByteBuf in, int methodStart, int methodEnd, int from, int to) {
        if (methodEnd - methodStart == 7 && Http1Bytes.equalsExact(in, methodStart, CONNECT)) {
            return isAuthorityForm(in, from, to) ? Http1RequestHead.AUTHORITY_FORM : -1;
        }
        int first = in.getByte(from);
        if (first == '/') {
            return Http1RequestHead.ORIGIN_FORM;
        }
        if (first == '*') {
            boolean options = methodEnd - methodStart == 7 && Http1Bytes.equalsExact(in, methodStart, OPTIONS);
            return options && to - from == 1 ? Http1RequestHead.ASTERISK_FORM : -1;
        }
        return isAbsoluteForm(in, from, to) ? Http1RequestHead.ABSOLUTE_FORM : -1;
    }

    /**
     * scheme "://" followed by a non-empty authority. RFC 3986 also allows absolute URIs without
     * "//", but http and https URIs always have an authority (RFC 9110 section 4.2), and requiring it
     * keeps {@code host:port} from passing as a scheme.
     */
    private static boolean isAbsoluteForm(ByteBuf in, int from, int to) {
        if (!Http1Bytes.isAlpha(in.getByte(from))) {
            return false;
        }
        int p = from + 1;
        while (p < to && Http1Bytes.isScheme(in.getByte(p))) {
            p++;
        }
        if (to - p < 4 || in.getByte(p) != ':' || in.getByte(p + 1) != '/' || in.getByte(p + 2) != '/') {
            return false;
        }
        int authority = in.getByte(p + 3);
        return authority != '/' && authority != '?' && authority != '#';
    }

    /** authority-form = uri-host ":" port (RFC 9112 section 3.2.3): a host without '/', '?', '#', '@' and 1 to 5 port digits. */
    private static boolean isAuthorityForm(ByteBuf in, int from, int to) {
        int colon = -1;
        for (int p = from; p < to; p++) {
            int b = in.getByte(p);
            if (b == '/' || b == '?' || b == '#' || b == '@') {
                return false;
            }
            if (b == ':') {
                colon = p;
            }
        }
        int digits = to - colon - 1;
        if (colon <= from || digits < 1 || digits > 5) {
            return false;
        }
        for (int p = colon + 1; p < to; p++) {
            if (!Http1Bytes.isDigit(in.getByte(p))) {
                return false;
            }
        }
        return true;
    }

    // ---- framing facts (RFC 9112 sections 6, 9.3; RFC 9110 sections 7.2, 7.6.1, 7.8, 10.1.1)

    private void clearFacts() {
        contentLength = -1;
        transferEncoding = false;
        connectionClose = false;
        connectionKeepAlive = false;
        connectionUpgrade = false;
        upgradeWebSocket = false;
        expectContinue = false;
        hostIndex = -1;
    }

    /** Looks at the fields that matter for framing and routing; names are told apart by length first. */
    private Http1Error fieldFacts(ByteBuf in, int nameStart, int index) {
        switch (nameEnd - nameStart) {
            case 4:
                return Http1Bytes.equalsLowerCase(in, nameStart, HOST) ? host(index) : null;
            case 6:
                if (Http1Bytes.equalsLowerCase(in, nameStart, EXPECT)) {
                    expectContinue |= Http1Bytes.rangeEqualsLowerCase(in, valueStart, valueEnd, CONTINUE);
                }
                return null;
            case 7:
                if (Http1Bytes.equalsLowerCase(in, nameStart, UPGRADE)) {
                    upgradeWebSocket |= Http1Bytes.listContains(in, valueStart, valueEnd, WEBSOCKET);
                }
                return null;
            case 10:
                if (Http1Bytes.equalsLowerCase(in, nameStart, CONNECTION)) {
                    connectionOptions(in);
                }
                return null;
            case 14:
                return Http1Bytes.equalsLowerCase(in, nameStart, CONTENT_LENGTH) ? contentLength(in) : null;
            case 17:
                return Http1Bytes.equalsLowerCase(in, nameStart, TRANSFER_ENCODING) ? transferEncoding(in) : null;
            default:
                return null;
        }
    }

    private Http1Error host(int index) {
        if (hostIndex >= 0) {
            return Http1Error.DUPLICATE_HOST;
        }
        hostIndex = index;
        return null;
    }

    private void connectionOptions(ByteBuf in) {
        connectionClose |= Http1Bytes.listContains(in, valueStart, valueEnd, CLOSE);
        connectionKeepAlive |= Http1Bytes.listContains(in, valueStart, valueEnd, KEEP_ALIVE);
        connectionUpgrade |= Http1Bytes.listContains(in, valueStart, valueEnd, UPGRADE);
    }

    /**
     * Content-Length = 1*DIGIT (RFC 9110 section 8.6). No sign, no list, no second field line even
     * with an equal value: a proxy that forwards what it accepted must not give two parsers room to
     * disagree.
     */
    private Http1Error contentLength(ByteBuf in) {
        if (contentLength >= 0) {
            return Http1Error.DUPLICATE_CONTENT_LENGTH;
        }
        if (valueStart == valueEnd) {
            return Http1Error.INVALID_CONTENT_LENGTH;
        }
        long value = 0;
        for (int p = valueStart; p < valueEnd; p++) {
            int d = in.getByte(p) - '0';
            if (d < 0 || d > 9 || value > (Long.MAX_VALUE - d) / 10) {
                return Http1Error.INVALID_CONTENT_LENGTH;
            }
            value = value * 10 + d;
        }
        contentLength = value;
        return null;
    }

    /**
     * Only {@code chunked} alone is accepted (RFC 9112 section 6.1). A list of well-formed codings
     * that ends in a single chunked is a coding we do not implement (501); anything else, including
     * chunked not last, chunked twice, empty elements and non-token bytes, is a framing error (400).
     */
    private Http1Error transferEncoding(ByteBuf in) {
        if (transferEncoding) {
            return Http1Error.DUPLICATE_TRANSFER_ENCODING;
        }
        transferEncoding = true;
        if (Http1Bytes.rangeEqualsLowerCase(in, valueStart, valueEnd, CHUNKED)) {
            return null;
        }
        return classifyCodings(in, valueStart, valueEnd);
    }

    private static Http1Error classifyCodings(ByteBuf in, int from, int to) {
        int chunkedCount = 0;
        boolean lastIsChunked = false;
        int p = from;
        while (p <= to) {
            int comma = p < to ? in.indexOf(p, to, (byte) ',') : -1;
            int elementEnd = comma < 0 ? to : comma;
            int s = Http1Bytes.skipOws(in, p, elementEnd);
            int e = Http1Bytes.trimOws(in, s, elementEnd);
            if (s == e || !Http1Bytes.isToken(in, s, e)) {
                return Http1Error.INVALID_TRANSFER_ENCODING;
            }
            lastIsChunked = Http1Bytes.rangeEqualsLowerCase(in, s, e, CHUNKED);
            if (lastIsChunked) {
                chunkedCount++;
            }
            p = elementEnd + 1;
        }
        return lastIsChunked && chunkedCount == 1
                ? Http1Error.UNSUPPORTED_TRANSFER_CODING
                : Http1Error.INVALID_TRANSFER_ENCODING;
    }

    private Http1Error framing(Http1RequestHead head) {
        if (transferEncoding && contentLength >= 0) {
            return Http1Error.CONTENT_LENGTH_WITH_TRANSFER_ENCODING;
        }
        if (transferEncoding && version == Http1RequestHead.HTTP_1_0) {
            return Http1Error.TRANSFER_ENCODING_IN_HTTP_1_0;
        }
        if (hostIndex < 0 && version == Http1RequestHead.HTTP_1_1) {
            return Http1Error.MISSING_HOST;
        }
        if (contentLength > maxBodySize) {
            return Http1Error.BODY_TOO_LARGE;
        }
        boolean http11 = version == Http1RequestHead.HTTP_1_1;
        boolean keepAlive = !connectionClose && (http11 || connectionKeepAlive);
        head.framing(contentLength, transferEncoding, keepAlive, expectContinue && http11,
                upgradeWebSocket && connectionUpgrade, hostIndex);
        return null;
    }
}
