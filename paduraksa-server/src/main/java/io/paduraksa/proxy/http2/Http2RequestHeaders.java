package io.paduraksa.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.EmptyHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.paduraksa.proxy.FieldSink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The header block of one upstream HTTP/2 request: the pseudo-header fields, then the fields in the
 * order they were added, in two arrays, as the {@link FieldSink} the request head is written into
 * ({@link Http2UpstreamStream#writeHead}). One per connection, reused: Netty's encoder HPACK-encodes
 * a new stream's HEADERS inside {@code Http2ConnectionEncoder.writeHeaders} (a new stream has no
 * flow-controlled frames queued ahead of it), so the block is cleared as soon as that returns.
 *
 * <p>Per field this allocates nothing once warm: an HTTP/1.1 client's line becomes a name and a value
 * from the loop's {@link Http2FieldCache}, an HTTP/2 client's decoded field is kept as it is (HPACK's
 * immutable AsciiStrings). The forwarding fields the forwarder computes are copied into one new
 * value each, as before (most of them differ per request). It is the iteration HPACK runs
 * ({@link #iterator}, pseudo-header fields first, one reused iterator, one iteration at a time) and
 * {@link #get}; the rest of Netty's {@code Headers} reads as empty, and writing it is refused.
 */
public final class Http2RequestHeaders extends EmptyHeaders<CharSequence, CharSequence, Http2Headers>
        implements Http2Headers, FieldSink {
    private static final AsciiString METHOD = PseudoHeaderName.METHOD.value();
    private static final AsciiString SCHEME = PseudoHeaderName.SCHEME.value();
    private static final AsciiString AUTHORITY = PseudoHeaderName.AUTHORITY.value();
    private static final AsciiString PATH = PseudoHeaderName.PATH.value();
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");

    private CharSequence method;
    private CharSequence scheme;
    private CharSequence authority;
    private CharSequence path;
    private CharSequence[] names = new CharSequence[16];
    private CharSequence[] values = new CharSequence[16];
    private int size;
    private Http2FieldCache cache;
    private final Fields fields = new Fields();
    /** The forwarding field being built (name, then value parts). */
    private AsciiString fieldName;
    private byte[] fieldValue;
    private int fieldLength;

    /** Appends a field; {@code name} lower case, both immutable. */
    @Override
    public Http2RequestHeaders add(CharSequence name, CharSequence value) {
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        values[size] = value;
        size++;
        return this;
    }

    /** Sets {@code content-length} (after removing any earlier one, as {@code set} does). */
    void contentLength(long length) {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (!CONTENT_LENGTH.contentEquals(names[i])) {
                names[kept] = names[i];
                values[kept] = values[i];
                kept++;
            }
        }
        Arrays.fill(names, kept, size, null);
        Arrays.fill(values, kept, size, null);
        size = kept;
        add(CONTENT_LENGTH, AsciiString.of(Long.toString(length)));
    }

    /** Forgets every field (and the references to them) for the next request. */
    @Override
    public Http2RequestHeaders clear() {
        Arrays.fill(names, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
        method = null;
        scheme = null;
        authority = null;
        path = null;
        cache = null;
        return this;
    }

    // ---- FieldSink

    @Override
    public void line(ByteBuf head, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        Http2FieldCache c = cache;
        if (c == null) {
            c = cache = Http2FieldCache.current();
        }
        add(c.name(head, nameStart, nameEnd), c.value(head, valueStart, valueEnd));
    }

    @Override
    public void field(CharSequence name, CharSequence value) {
        add(name, value);
    }

    @Override
    public void name(AsciiString http1Name, AsciiString lowerName) {
        fieldName = lowerName.toLowerCase();
        fieldLength = 0;
        if (fieldValue == null) {
            fieldValue = new byte[256];
        }
    }

    @Override
    public void value(CharSequence text) {
        int n = text.length();
        grow(n);
        for (int i = 0; i < n; i++) {
            fieldValue[fieldLength++] = (byte) text.charAt(i);
        }
    }

    @Override
    public void value(byte[] bytes, int from, int length) {
        grow(length);
        System.arraycopy(bytes, from, fieldValue, fieldLength, length);
        fieldLength += length;
    }

    private void grow(int more) {
        if (fieldLength + more > fieldValue.length) {
            fieldValue = Arrays.copyOf(fieldValue, Math.max(fieldValue.length * 2, fieldLength + more));
        }
    }

    @Override
    public void end() {
        add(fieldName, new AsciiString(fieldValue, 0, fieldLength, true));
    }

    // ---- Http2Headers, as HPACK and tests read it

    @Override
    public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
        return fields.start();
    }

    @Override
    public CharSequence get(CharSequence name) {
        if (name.length() > 0 && name.charAt(0) == ':') {
            return METHOD.contentEquals(name) ? method : SCHEME.contentEquals(name) ? scheme
                    : AUTHORITY.contentEquals(name) ? authority : PATH.contentEquals(name) ? path : null;
        }
        for (int i = 0; i < size; i++) {
            if (AsciiString.contentEquals(names[i], name)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public List<CharSequence> getAll(CharSequence name) {
        List<CharSequence> all = new ArrayList<>(2);
        for (int i = 0; i < size; i++) {
            if (AsciiString.contentEquals(names[i], name)) {
                all.add(values[i]);
            }
        }
        CharSequence pseudo = all.isEmpty() ? get(name) : null;
        if (pseudo != null) {
            all.add(pseudo);
        }
        return all;
    }

    @Override
    public Iterator<CharSequence> valueIterator(CharSequence name) {
        return getAll(name).iterator(); // tests and logs only
    }

    @Override
    public boolean contains(CharSequence name) {
        return get(name) != null;
    }

    @Override
    public boolean contains(CharSequence name, CharSequence value, boolean caseInsensitive) {
        for (CharSequence v : getAll(name)) {
            if (caseInsensitive ? AsciiString.contentEqualsIgnoreCase(v, value) : AsciiString.contentEquals(v, value)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int size() {
        return pseudoCount() + size;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public Set<CharSequence> names() {
        Set<CharSequence> all = new LinkedHashSet<>();
        for (int i = 0; i < pseudoCount(); i++) {
            all.add(pseudoName(i));
        }
        all.addAll(Arrays.asList(names).subList(0, size));
        return all;
    }

    @Override
    public Http2RequestHeaders method(CharSequence value) {
        method = value;
        return this;
    }

    @Override
    public Http2RequestHeaders scheme(CharSequence value) {
        scheme = value;
        return this;
    }

    @Override
    public Http2RequestHeaders authority(CharSequence value) {
        authority = value;
        return this;
    }

    @Override
    public Http2RequestHeaders path(CharSequence value) {
        path = value;
        return this;
    }

    /** A request has no {@code :status}. */
    @Override
    public Http2RequestHeaders status(CharSequence value) {
        throw new UnsupportedOperationException(":status in a request");
    }

    @Override
    public CharSequence method() {
        return method;
    }

    @Override
    public CharSequence scheme() {
        return scheme;
    }

    @Override
    public CharSequence authority() {
        return authority;
    }

    @Override
    public CharSequence path() {
        return path;
    }

    @Override
    public CharSequence status() {
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    /** For tests and logs (allocates). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Http2RequestHeaders[");
        for (int i = 0, n = size(); i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(nameAt(i)).append(": ").append(valueAt(i));
        }
        return sb.append(']').toString();
    }

    // ---- positions over pseudo-header fields and fields, the order HPACK wants (RFC 9113 8.3)

    private int pseudoCount() {
        return (method != null ? 1 : 0) + (scheme != null ? 1 : 0) + (authority != null ? 1 : 0) + (path != null ? 1 : 0);
    }

    /** The name of pseudo-header field {@code i} of those set, in the order :method, :scheme, :authority, :path. */
    private AsciiString pseudoName(int i) {
        int seen = -1;
        if (method != null && ++seen == i) {
            return METHOD;
        }
        if (scheme != null && ++seen == i) {
            return SCHEME;
        }
        if (authority != null && ++seen == i) {
            return AUTHORITY;
        }
        return PATH;
    }

    private CharSequence nameAt(int i) {
        int p = pseudoCount();
        return i < p ? pseudoName(i) : names[i - p];
    }

    private CharSequence valueAt(int i) {
        int p = pseudoCount();
        return i < p ? pseudoValue(i) : values[i - p];
    }

    /** The one iterator, its own entry: {@link #next} moves it and returns it. */
    private final class Fields implements Iterator<Map.Entry<CharSequence, CharSequence>>, Map.Entry<CharSequence, CharSequence> {
        private int next;
        private int current;
        private int pseudo;
        private int total;

        Fields start() {
            next = 0;
            pseudo = pseudoCount();
            total = pseudo + size;
            return this;
        }

        @Override
        public boolean hasNext() {
            return next < total;
        }

        @Override
        public Map.Entry<CharSequence, CharSequence> next() {
            if (next >= total) {
                throw new NoSuchElementException();
            }
            current = next++;
            return this;
        }

        @Override
        public CharSequence getKey() {
            return current < pseudo ? pseudoName(current) : names[current - pseudo];
        }

        @Override
        public CharSequence getValue() {
            return current < pseudo ? pseudoValue(current) : values[current - pseudo];
        }

        @Override
        public CharSequence setValue(CharSequence value) {
            throw new UnsupportedOperationException();
        }
    }

    private CharSequence pseudoValue(int i) {
        AsciiString name = pseudoName(i);
        return name == METHOD ? method : name == SCHEME ? scheme : name == AUTHORITY ? authority : path;
    }
}
