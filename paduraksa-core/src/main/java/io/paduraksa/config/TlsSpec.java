package io.paduraksa.config;

import java.util.List;

/**
 * PEM certificates of a TLS listener (SNI picks one by host name; the first is the default), and
 * optionally a CA whose client certificates are required (Cloudflare Authenticated Origin Pulls).
 */
public record TlsSpec(List<CertificateSpec> certificates, String clientCa) {
    public TlsSpec {
        certificates = certificates == null ? List.of() : List.copyOf(certificates);
    }

    /** A PEM certificate chain and its private key, by file path. */
    public record CertificateSpec(String cert, String key) {
    }
}
