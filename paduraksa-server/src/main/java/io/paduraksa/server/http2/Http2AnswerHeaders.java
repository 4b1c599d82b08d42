package io.paduraksa.server.http2;

import io.netty.handler.codec.EmptyHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.RateLimitFields;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A precomputed answer's header block as read-only {@link Http2Headers}: {@code :status}, the
 * answer's lower-case names and values, then {@code date}, then (when a rate-limit policy with
 * {@code headers} checked the request) the three {@code ratelimit-*} fields and (with
 * {@code forwarding.request_id.echo}) the request id. One per connection, pointed at an
 * answer just before {@code writeHeaders} and reset after it: 0 B per answer, where a
 * {@code DefaultHttp2Headers} cost about 280 B (the map, its head entry and array, 40 B per header).
 *
 * <p>Why a view may be reused (Netty 4.2, checked in its sources): {@code DefaultHttp2ConnectionEncoder}
 * encodes a HEADERS frame synchronously inside {@code writeHeaders} ({@code DefaultHttp2FrameWriter}
 * runs {@code HpackEncoder} into a new buffer) unless the frame ends the stream AND DATA of the same
 * stream waits in the flow controller; only then does it keep the headers object, to write later.
 * Our answer's HEADERS frame is always the first frame we send on its stream, so nothing waits;
 * {@link Http2GateHandler#answer} still checks and writes a copy in that case. HPACK keeps the
 * name and value {@code AsciiString}s in its dynamic table, never the entries: those are immutable
 * (compiled with the snapshot, the date replaced as a whole each second).
 *
 * <p>The encoder walks the block twice (size check, then encoding), each time through
 * {@link #iterator()}: both hand back the same reused cursor, reset; it is its own entry. Reads
 * only, on the connection's event loop, never nested. Every mutator throws (read-only).
 */
final class Http2AnswerHeaders extends EmptyHeaders<CharSequence, CharSequence, Http2Headers> implements Http2Headers {
    private static final AsciiString STATUS = PseudoHeaderName.STATUS.value();
    private static final AsciiString[] NONE = {};
    private static final AsciiString ALT_SVC = AsciiString.cached("alt-svc");

    private final Cursor cursor = new Cursor();
    private AsciiString status;
    private AsciiString[] names = NONE;
    private AsciiString[] values = NONE;
    private AsciiString date;
    /** The fields after {@code date}: the {@code RateLimit-*} ones, then the echoed request id; {@code extraCount} of them. */
    private final AsciiString[] extraNames = new AsciiString[5];
    private final AsciiString[] extraValues = new AsciiString[5];
    private int extraCount;
    /** Index into the answer's headers whose value is {@link #templatedValue} instead (a filled Location), or -1. */
    private int templated = -1;
    private AsciiString templatedValue;

    /** Points this view at {@code response}'s status and headers plus {@code date}. */
    Http2AnswerHeaders of(PrecomputedResponse response, AsciiString date) {
        this.status = response.statusText();
        this.names = response.headerNames();
        this.values = response.headerValues();
        this.date = date;
        return this;
    }

    /** Adds the {@code RateLimit-*} fields after {@code date}; values below 1024 are cached strings. */
    Http2AnswerHeaders rateLimit(int limit, int remaining, int resetSeconds) {
        extra(RateLimitFields.LIMIT, RateLimitFields.ascii(limit));
        extra(RateLimitFields.REMAINING, RateLimitFields.ascii(remaining));
        extra(RateLimitFields.RESET, RateLimitFields.ascii(resetSeconds));
        return this;
    }

    /** Sends {@code value} for the answer's header {@code index} (its templated one, filled for this request). */
    Http2AnswerHeaders templated(int index, AsciiString value) {
        this.templated = index;
        this.templatedValue = value;
        return this;
    }

    /** Adds the echoed request-id field ({@code forwarding.request_id.echo}) after the others. */
    Http2AnswerHeaders requestId(AsciiString name, AsciiString value) {
        extra(name, value);
        return this;
    }

    /** Adds {@code alt-svc} (the listener serves HTTP/3). */
    Http2AnswerHeaders altSvc(AsciiString value) {
        extra(ALT_SVC, value);
        return this;
    }

    private void extra(AsciiString name, AsciiString value) {
        extraNames[extraCount] = name;
        extraValues[extraCount] = value;
        extraCount++;
    }

    /** Forgets the answer, so a retired snapshot's arrays are not kept by a connection. */
    void reset() {
        status = null;
        names = NONE;
        values = NONE;
        date = null;
        templated = -1;
        templatedValue = null;
        for (int i = 0; i < extraCount; i++) {
            extraNames[i] = null;
            extraValues[i] = null;
        }
        extraCount = 0;
    }

    /** A modifiable copy, for the case where the encoder would keep the headers (see the class comment). */
    Http2Headers copy() {
        Http2Headers copy = new io.netty.handler.codec.http2.DefaultHttp2Headers(false, size());
        for (int i = 0; i < size(); i++) {
            copy.add(name(i), value(i));
        }
        return copy;
    }

    private AsciiString name(int i) {
        if (i == 0) {
            return STATUS;
        }
        if (i <= names.length) {
            return names[i - 1];
        }
        return i == names.length + 1 ? HttpHeaderNames.DATE : extraNames[i - names.length - 2];
    }

    private AsciiString value(int i) {
        if (i == 0) {
            return status;
        }
        if (i <= values.length) {
            return i - 1 == templated ? templatedValue : values[i - 1];
        }
        return i == values.length + 1 ? date : extraValues[i - values.length - 2];
    }

    @Override
    public int size() {
        return status == null ? 0 : names.length + 2 + extraCount;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public CharSequence get(CharSequence name) {
        int at = indexOf(name);
        return at < 0 ? null : value(at);
    }

    @Override
    public CharSequence get(CharSequence name, CharSequence defaultValue) {
        CharSequence value = get(name);
        return value != null ? value : defaultValue;
    }

    /** Header names are lower case in HTTP/2 (RFC 9113 8.2.1), so they are compared as they are. */
    private int indexOf(CharSequence name) {
        for (int i = 0, n = size(); i < n; i++) {
            if (name(i).contentEquals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public List<CharSequence> getAll(CharSequence name) {
        List<CharSequence> all = new ArrayList<>(1);
        for (int i = 0, n = size(); i < n; i++) {
            if (name(i).contentEquals(name)) {
                all.add(value(i));
            }
        }
        return all;
    }

    @Override
    public boolean contains(CharSequence name) {
        return indexOf(name) >= 0;
    }

    @Override
    public boolean contains(CharSequence name, CharSequence value) {
        return contains(name, value, false);
    }

    @Override
    public boolean contains(CharSequence name, CharSequence value, boolean caseInsensitive) {
        for (int i = 0, n = size(); i < n; i++) {
            if (name(i).contentEquals(name) && (caseInsensitive
                    ? AsciiString.contentEqualsIgnoreCase(value(i), value) : AsciiString.contentEquals(value(i), value))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Set<CharSequence> names() {
        Set<CharSequence> all = new LinkedHashSet<>();
        for (int i = 0, n = size(); i < n; i++) {
            all.add(name(i));
        }
        return all;
    }

    /** The reused cursor, reset: 0 B. */
    @Override
    public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
        cursor.at = -1;
        return cursor;
    }

    @Override
    public Iterator<CharSequence> valueIterator(CharSequence name) {
        return getAll(name).iterator();
    }

    @Override
    public CharSequence status() {
        return status;
    }

    @Override
    public CharSequence method() {
        return null;
    }

    @Override
    public CharSequence scheme() {
        return null;
    }

    @Override
    public CharSequence authority() {
        return null;
    }

    @Override
    public CharSequence path() {
        return null;
    }

    @Override
    public Http2Headers method(CharSequence value) {
        throw readOnly();
    }

    @Override
    public Http2Headers scheme(CharSequence value) {
        throw readOnly();
    }

    @Override
    public Http2Headers authority(CharSequence value) {
        throw readOnly();
    }

    @Override
    public Http2Headers path(CharSequence value) {
        throw readOnly();
    }

    @Override
    public Http2Headers status(CharSequence value) {
        throw readOnly();
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("an answer's headers are read-only");
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Http2AnswerHeaders[");
        for (int i = 0, n = size(); i < n; i++) {
            b.append(i == 0 ? "" : ", ").append(name(i)).append(": ").append(value(i));
        }
        return b.append(']').toString();
    }

    /** Iterator and entry in one: {@link #next()} moves and returns itself. */
    private final class Cursor implements Iterator<Map.Entry<CharSequence, CharSequence>>, Map.Entry<CharSequence, CharSequence> {
        int at = -1;

        @Override
        public boolean hasNext() {
            return at + 1 < size();
        }

        @Override
        public Map.Entry<CharSequence, CharSequence> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            at++;
            return this;
        }

        @Override
        public CharSequence getKey() {
            return name(at);
        }

        @Override
        public CharSequence getValue() {
            return value(at);
        }

        @Override
        public CharSequence setValue(CharSequence value) {
            throw readOnly();
        }
    }
}
