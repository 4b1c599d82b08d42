package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.snapshot.ResponseHeaderRules;

/**
 * A stored response shown to a client exchange as an upstream head: its fields plus
 * {@code Age} (RFC 9111 5.1), whose digits are written per hit into this view's own array. One per
 * event-loop thread, re-pointed for every hit and read while the exchange writes the head, as an
 * upstream head is; 0 B per hit. An HTTP/1.1 client gets the stored fields as one encoded block
 * ({@link #http1Lines}) and Age after it.
 */
final class StoredHead implements ResponseHead {
    private static final AsciiString AGE = AsciiString.cached("Age");

    private final Digits age = new Digits();
    private StoredResponse response;

    StoredHead point(StoredResponse r, long ageSeconds) {
        this.response = r;
        age.set(ageSeconds);
        return this;
    }

    void clear() {
        response = null;
    }

    @Override
    public int status() {
        return response.status();
    }

    @Override
    public int headerCount() {
        return response.fieldCount() + 1;
    }

    @Override
    public CharSequence headerName(int index) {
        return index < response.fieldCount() ? response.name(index) : AGE;
    }

    @Override
    public CharSequence headerValue(int index) {
        return index < response.fieldCount() ? response.value(index) : age;
    }

    @Override
    public long contentLength() {
        return response.contentLength();
    }

    @Override
    public boolean hasBody() {
        return response.body() != null;
    }

    /** The stored fields encoded once ({@link StoredResponse#http1Lines}); Age, the last field, follows per hit. */
    @Override
    public byte[] http1Lines(ResponseHeaderRules rules, boolean withoutRateLimit) {
        return response.http1Lines(rules, withoutRateLimit);
    }

    @Override
    public int http1LineCount() {
        return response.fieldCount();
    }

    /** Hop-by-hop fields and the Connection options were left out when the response was stored. */
    @Override
    public boolean isConnectionOption(CharSequence headerName) {
        return false;
    }

    /** A non-negative decimal number as a reusable char sequence (no String per hit). */
    static final class Digits implements CharSequence {
        private final char[] chars = new char[20];
        private int length;

        void set(long value) {
            long v = Math.max(0, value);
            int n = 0;
            do {
                chars[chars.length - 1 - n] = (char) ('0' + v % 10);
                v /= 10;
                n++;
            } while (v > 0);
            System.arraycopy(chars, chars.length - n, chars, 0, n);
            length = n;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            if (index >= length) {
                throw new IndexOutOfBoundsException(index);
            }
            return chars[index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(chars, start, end - start);
        }

        @Override
        public String toString() {
            return new String(chars, 0, length);
        }
    }
}
