package io.paduraksa.config;

import java.time.Duration;

/**
 * HTTP/3 settings of a TLS listener that lists {@code h3} in its {@code protocols} (QUIC on the
 * listener's UDP port, with its certificates). Read once when the listener starts (a change needs
 * a restart, as every listener setting). Absent keys take the defaults below.
 *
 * @param maxStreams          request streams a client may have open at once on one connection
 *                            (QUIC's initial_max_streams_bidi; default 100, the floor RFC 9114 6.1 asks for)
 * @param maxFieldSectionSize largest request field section, decoded (SETTINGS_MAX_FIELD_SECTION_SIZE,
 *                            RFC 9114 4.2.2; default 32KiB, as {@code limits.max_header_size})
 * @param idleTimeout         a connection without packets for this long is closed (QUIC's
 *                            max_idle_timeout; default 30s)
 * @param altSvcMaxAge        how long clients may remember the {@code Alt-Svc: h3} advertisement
 *                            on this listener's HTTP/1.1 and HTTP/2 answers (its {@code ma}; default 24h)
 */
public record Http3Spec(Integer maxStreams, DataSize maxFieldSectionSize, Duration idleTimeout, Duration altSvcMaxAge) {

    public static final Http3Spec DEFAULT = new Http3Spec(null, null, null, null);

    public Http3Spec {
        maxStreams = maxStreams == null ? 100 : maxStreams;
        maxFieldSectionSize = maxFieldSectionSize == null ? DataSize.ofKibibytes(32) : maxFieldSectionSize;
        idleTimeout = idleTimeout == null ? Duration.ofSeconds(30) : idleTimeout;
        altSvcMaxAge = altSvcMaxAge == null ? Duration.ofHours(24) : altSvcMaxAge;
    }
}
