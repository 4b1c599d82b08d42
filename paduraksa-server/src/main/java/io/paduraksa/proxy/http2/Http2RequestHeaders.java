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
 * ({@link #iterator}: pseudo-header fields first, one reused iterator, one iteration at a time) and
 * {@link #get}; the rest of Netty's {@code Headers} reads as empty, and writing it is refused.
 */
public final class Http2RequestHeaders extends EmptyHeaders<CharSequence, CharSequence, Http2Headers>
        implements Http2Headers, FieldSink {
    /** The request's pseudo-header fields, in the order they are encoded (as DefaultHttp2Headers keeps them). */
    private static final AsciiString[] PSEUDO = {PseudoHeaderName.METHOD.value(), PseudoHeaderName.SCHEME.value(),
            PseudoHeaderName.AUTHORITY.value(), PseudoHeaderName.PATH.value()};
    private static final int METHOD = 0;
    private static final int SCHEME = 1;
    private static final int AUTHORITY = 2;
    private static final int PATH = 3;
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");

    /** Values of {@link #PSEUDO}, null where not set. */
    private final CharSequence[] pseudo = new CharSequence[PSEUDO.length];
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
        Arrays.fill(pseudo, null);
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
            for (int i = 0; i < PSEUDO.length; i++) {
                if (PSEUDO[i].contentEquals(name)) {
                    return pseudo[i];
                }
            }
            return null;
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
        int n = size;
        for (CharSequence p : pseudo) {
            n += p != null ? 1 : 0;
        }
        return n;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public Set<CharSequence> names() {
        Set<CharSequence> all = new LinkedHashSet<>();
        for (int i = 0; i < PSEUDO.length; i++) {
            if (pseudo[i] != null) {
                all.add(PSEUDO[i]);
            }
        }
        all.addAll(Arrays.asList(names).subList(0, size));
        return all;
    }

    @Override
    public Http2RequestHeaders method(CharSequence value) {
        return pseudo(METHOD, value);
    }

    @Override
    public Http2RequestHeaders scheme(CharSequence value) {
        return pseudo(SCHEME, value);
    }

    @Override
    public Http2RequestHeaders authority(CharSequence value) {
        return pseudo(AUTHORITY, value);
    }

    @Override
    public Http2RequestHeaders path(CharSequence value) {
        return pseudo(PATH, value);
    }

    private Http2RequestHeaders pseudo(int slot, CharSequence value) {
        pseudo[slot] = value;
        return this;
    }

    /** A request has no {@code :status}. */
    @Override
    public Http2RequestHeaders status(CharSequence value) {
        throw new UnsupportedOperationException(":status in a request");
    }

    @Override
    public CharSequence method() {
        return pseudo[METHOD];
    }

    @Override
    public CharSequence scheme() {
        return pseudo[SCHEME];
    }

    @Override
    public CharSequence authority() {
        return pseudo[AUTHORITY];
    }

    @Override
    public CharSequence path() {
        return pseudo[PATH];
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
        String separator = "";
        for (Map.Entry<CharSequence, CharSequence> e : new Fields().start()) {
            sb.append(separator).append(e.getKey()).append(": ").append(e.getValue());
            separator = ", ";
        }
        return sb.append(']').toString();
    }

    /**
     * An iterator over the pseudo-header fields that are set, then the fields (RFC 9113 8.3: pseudo-header
     * fields first), and its own entry: {@link #next} moves it and returns it.
     */
    private final class Fields implements Iterator<Map.Entry<CharSequence, CharSequence>>,
            Map.Entry<CharSequence, CharSequence>, Iterable<Map.Entry<CharSequence, CharSequence>> {
        /** Positions 0 to 3 are the pseudo-header slots, then field i is at 4 + i. */
        private int next;
        private int current;

        Fields start() {
            next = skipUnset(0);
            return this;
        }

        private int skipUnset(int at) {
            while (at < PSEUDO.length && pseudo[at] == null) {
                at++;
            }
            return at;
        }

        @Override
        public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
            return this;
        }

        @Override
        public boolean hasNext() {
            return next < PSEUDO.length + size;
        }

        @Override
        public Map.Entry<CharSequence, CharSequence> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            current = next;
            next = skipUnset(next + 1);
            return this;
        }

        @Override
        public CharSequence getKey() {
            return current < PSEUDO.length ? PSEUDO[current] : names[current - PSEUDO.length];
        }

        @Override
        public CharSequence getValue() {
            return current < PSEUDO.length ? pseudo[current] : values[current - PSEUDO.length];
        }

        @Override
        public CharSequence setValue(CharSequence value) {
            throw new UnsupportedOperationException();
        }
    }
}
