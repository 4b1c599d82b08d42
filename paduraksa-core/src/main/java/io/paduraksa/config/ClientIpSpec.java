package io.paduraksa.config;

import java.util.List;

/**
 * Where the client IP comes from: the connection peer, or {@code header} when the peer is a trusted
 * proxy: in {@code trustedProxies} (CIDRs) or in one of {@code trustedProxiesFiles} (text files with
 * one CIDR per line and {@code #} comments, relative to the configuration file; Cloudflare's ranges
 * ship as {@code cloudflare-ips.txt}).
 */
public record ClientIpSpec(List<String> trustedProxies, List<String> trustedProxiesFiles, String header) {
    public static final String DEFAULT_HEADER = "CF-Connecting-IP";
    public static final ClientIpSpec DEFAULT = new ClientIpSpec(List.of(), List.of(), DEFAULT_HEADER);

    public ClientIpSpec {
        trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
        trustedProxiesFiles = trustedProxiesFiles == null ? List.of() : List.copyOf(trustedProxiesFiles);
        header = header == null ? DEFAULT_HEADER : header;
    }
}
