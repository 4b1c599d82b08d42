package io.paduraksa.server.http3;

import io.paduraksa.config.Http3Spec;
import io.paduraksa.config.LimitsSpec;

/**
 * What one HTTP/3 client may cost, from the listener's {@code http3} block and the server's
 * {@code limits}: open request streams per connection, the decoded field section, the QUIC idle
 * timeout, the request body ({@code limits.max_body_size}), open connections
 * ({@code limits.max_connections}, counted apart from the TCP side's), and the graceful wait after
 * a stop's GOAWAY. The QUIC layer (quiche) enforces the anti-amplification limit (RFC 9000 8.1:
 * at most three times the bytes received from an unvalidated address) on its own.
 */
record Http3Limits(int maxStreams, long maxFieldSectionSize, long idleTimeoutMillis, long maxBodySize, int maxConnections) {

    static Http3Limits of(Http3Spec http3, LimitsSpec limits) {
        return new Http3Limits(http3.maxStreams(), http3.maxFieldSectionSize().bytes(), http3.idleTimeout().toMillis(),
                limits.maxBodySize().bytes(), limits.maxConnections());
    }
}
