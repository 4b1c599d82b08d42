package io.paduraksa.config;

import java.util.List;

/**
 * One listening socket. {@code protocols} lists {@code http1}, {@code h2c} (cleartext HTTP/2 with
 * prior knowledge) and, on TLS listeners, {@code h2} (offered through ALPN).
 */
public record ListenerSpec(String name, String address, List<String> protocols, TlsSpec tls, boolean admin) {
    public ListenerSpec {
        protocols = protocols == null ? List.of("http1") : List.copyOf(protocols);
    }
}
