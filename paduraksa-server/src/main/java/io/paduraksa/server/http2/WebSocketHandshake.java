package io.paduraksa.server.http2;

import io.netty.util.AsciiString;
import io.paduraksa.http1.WebSocketAccept;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The HTTP/1.1 side of a WebSocket over HTTP/2 (RFC 8441 5): an HTTP/2 client sends no
 * {@code Sec-WebSocket-Key} and never sees a {@code Sec-WebSocket-Accept}, so the proxy is the
 * HTTP/1.1 client of the upstream's handshake (RFC 6455 4.1): a fresh key of 16 random bytes from
 * a CSPRNG for every handshake, and the upstream's accept checked against
 * base64(SHA-1(key + GUID)) before the stream is answered 200. One per recycled exchange, reused;
 * a handshake allocates only the key's text ({@link #newKey}), once per tunnel, never per frame.
 */
final class WebSocketHandshake {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int KEY_LENGTH = 24;
    private static final int ACCEPT_LENGTH = WebSocketAccept.LENGTH;

    private final byte[] nonce = new byte[16];
    private final byte[] key = new byte[KEY_LENGTH];
    private final byte[] accept = new byte[ACCEPT_LENGTH];
    private boolean armed;

    /**
     * A fresh {@code Sec-WebSocket-Key} (24 base64 characters) for the upstream request, remembering
     * the accept it must come back with. A retry on another connection gets another key.
     */
    AsciiString newKey() {
        RANDOM.nextBytes(nonce);
        Base64.getEncoder().encode(nonce, key);
        WebSocketAccept.compute(key, KEY_LENGTH, accept);
        armed = true;
        return new AsciiString(key, true); // an immutable copy: a header block may keep it
    }

    /** Whether {@code value} is the accept for the last key (exact bytes, RFC 6455 4.1 point 4). */
    boolean accepts(CharSequence value) {
        if (!armed || value == null || value.length() != ACCEPT_LENGTH) {
            return false;
        }
        for (int i = 0; i < ACCEPT_LENGTH; i++) {
            if (value.charAt(i) != accept[i]) {
                return false;
            }
        }
        return true;
    }

    void reset() {
        armed = false;
    }
}
