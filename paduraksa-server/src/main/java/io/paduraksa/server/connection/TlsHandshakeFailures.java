package io.paduraksa.server.connection;

import io.netty.channel.Channel;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one TLS listener does with a failed handshake: one DEBUG line with the peer and the reason, a
 * count by reason (the {@code paduraksa_tls_handshake_failures_total} counter) and at most one INFO
 * summary a minute. Netty's default is a WARN with a stack trace of about 30 lines per failure, so a
 * scanner on port 443 filled the journal. Runs on the connection's event loop, once per failed
 * handshake; allocates (the log line), which a failed handshake may.
 */
public final class TlsHandshakeFailures {
    private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakeFailures.class);
    private static final long SUMMARY_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int MAX_DETAIL = 160;

    /** Why a handshake failed; {@link #label()} is the counter's {@code reason} label. */
    public enum Reason {
        /** The first bytes are not a TLS record: plain HTTP on the TLS port, a scanner's probe, garbage. */
        NOT_TLS("not_tls"),
        /** No ClientHello, or no finished handshake, within the handshake timeout. */
        TIMEOUT("timeout"),
        /** The peer closed or reset the connection before the handshake finished. */
        CLOSED("closed"),
        /** The TLS exchange itself failed: no common version or cipher, an alert from the client, a bad client certificate. */
        PROTOCOL("protocol");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Where failures are counted (the server's metrics). */
    @FunctionalInterface
    public interface Counter {
        void handshakeFailed(int listener, Reason reason);
    }

    private final int listener;
    private final String name;
    private final Counter counter;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong nextSummary = new AtomicLong(System.nanoTime());

    /**
     * @param listener the listener's index in {@code listeners:}
     * @param name     its name (the address text when unnamed), for the log
     */
    public TlsHandshakeFailures(int listener, String name, Counter counter) {
        this.listener = listener;
        this.name = name;
        this.counter = counter;
    }

    /** Counts and logs one failed handshake on {@code channel}; call once per connection. */
    public void failed(Channel channel, Throwable cause) {
        Reason reason = reason(cause);
        counter.handshakeFailed(listener, reason);
        long n = failures.incrementAndGet();
        if (LOG.isDebugEnabled()) {
            LOG.debug("listener {}: TLS handshake with {} failed: {} ({})", name, peer(channel.remoteAddress()), reason.label(),
                    detail(cause));
        }
        long now = System.nanoTime();
        long next = nextSummary.get();
        if (now - next >= 0 && nextSummary.compareAndSet(next, now + SUMMARY_INTERVAL_NANOS)) {
            LOG.info("listener {}: {} failed TLS handshakes since start (counted in paduraksa_tls_handshake_failures_total; "
                    + "each is logged at DEBUG by {}); the next summary comes in a minute at the earliest", name, n,
                    TlsHandshakeFailures.class.getName());
        }
    }

    /** Failed handshakes on this listener since start. */
    public long count() {
        return failures.get();
    }

    /** The reason for {@code cause}: the first recognised type on its cause chain, else {@link Reason#PROTOCOL}. */
    static Reason reason(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NotSslRecordException) {
                return Reason.NOT_TLS;
            }
            if (t instanceof SslHandshakeTimeoutException) {
                return Reason.TIMEOUT;
            }
            if (t instanceof ClosedChannelException || (t instanceof IOException && !(t instanceof SSLException))) {
                return Reason.CLOSED;
            }
        }
        return Reason.PROTOCOL;
    }

    static String peer(SocketAddress address) {
        if (address instanceof InetSocketAddress a && a.getAddress() != null) {
            String host = a.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
        }
        return String.valueOf(address);
    }

    /** The innermost message, one line, cut short (NotSslRecordException carries a hex dump of the whole read). */
    static String detail(Throwable cause) {
        Throwable t = cause;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        if (t instanceof ClosedChannelException) {
            return "connection closed before the handshake finished";
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        m = m.replace('\n', ' ').replace('\r', ' ');
        return m.length() <= MAX_DETAIL ? m : m.substring(0, MAX_DETAIL) + "...";
    }
}
