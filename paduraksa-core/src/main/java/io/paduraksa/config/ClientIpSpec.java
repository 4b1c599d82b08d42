package io.paduraksa.config;

import java.util.List;

/**
 * Where the client IP comes from: the connection peer, or {@code header} when the peer is in
 * {@code trustedProxies} (CIDRs, e.g. Cloudflare's ranges).
 */
public record ClientIpSpec(List<String> trustedProxies, String header) {
    public static final String DEFAULT_HEADER = "CF-Connecting-IP";
    public static final ClientIpSpec DEFAULT = new ClientIpSpec(List.of(), DEFAULT_HEADER);

    public ClientIpSpec {
        trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
        header = header == null ? DEFAULT_HEADER : header;
    }
}
