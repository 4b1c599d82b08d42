package io.paduraksa.config;

import java.util.List;

/** PEM certificates of a TLS listener; SNI picks one by host name. */
public record TlsSpec(List<CertificateSpec> certificates) {
    public TlsSpec {
        certificates = certificates == null ? List.of() : List.copyOf(certificates);
    }

    /** A PEM certificate chain and its private key, by file path. */
    public record CertificateSpec(String cert, String key) {
    }
}
