package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * {@code Sec-WebSocket-Accept} for a {@code Sec-WebSocket-Key} (RFC 6455 4.2.2 point 5.4):
 * base64(SHA-1(key + GUID)), 28 characters. Used where the proxy is one end of an HTTP/1.1
 * handshake: checking an HTTP/1.1 upstream's 101 for an HTTP/2 client's WebSocket, and answering an
 * HTTP/1.1 client's handshake whose WebSocket goes to an HTTP/2 upstream (RFC 8441 extended
 * CONNECT, no key on that side). Once per handshake, never per frame; the digest is one per thread.
 */
public final class WebSocketAccept {
    /** RFC 6455 1.3. */
    private static final byte[] GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11".getBytes(StandardCharsets.US_ASCII);
    private static final FastThreadLocal<MessageDigest> SHA1 = new FastThreadLocal<>() {
        @Override
        protected MessageDigest initialValue() throws NoSuchAlgorithmException {
            return MessageDigest.getInstance("SHA-1");
        }
    };
    /** base64 of a 20-byte SHA-1. */
    public static final int LENGTH = 28;

    private WebSocketAccept() {
    }

    /** The accept for {@code key[0, length)} into {@code out[0, 28)}. */
    public static void compute(byte[] key, int length, byte[] out) {
        MessageDigest sha1 = SHA1.get();
        sha1.update(key, 0, length);
        finish(sha1, out);
    }

    /** The accept for the key bytes {@code src[from, to)} into {@code out[0, 28)}. */
    public static void compute(ByteBuf src, int from, int to, byte[] out) {
        MessageDigest sha1 = SHA1.get();
        for (int i = from; i < to; i++) {
            sha1.update(src.getByte(i));
        }
        finish(sha1, out);
    }

    private static void finish(MessageDigest sha1, byte[] out) {
        sha1.update(GUID);
        byte[] digest = new byte[20];
        try {
            sha1.digest(digest, 0, digest.length);
        } catch (DigestException e) {
            throw new IllegalStateException(e); // a 20-byte buffer always fits SHA-1
        }
        Base64.getEncoder().encode(digest, out);
    }
}
