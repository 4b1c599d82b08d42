package io.paduraksa.server.connection;

import java.nio.file.Path;

/**
 * TLS material that cannot be used. The message starts with the offending file
 * ({@code /etc/paduraksa/site.pem: no PEM certificate in the file}); {@link #certificateIndex()} says which
 * entry of the listener's certificate list it belongs to, so that the config compiler can point at the
 * YAML line.
 */
public final class TlsException extends Exception {
    /** {@link #certificateIndex()} for the client-certificate CA file, which belongs to no certificate entry. */
    public static final int CLIENT_CA = -1;

    private final transient Path file;
    private final int certificateIndex;

    TlsException(Path file, int certificateIndex, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = file;
        this.certificateIndex = certificateIndex;
    }

    /** The file at fault. */
    public Path file() {
        return file;
    }

    /** 0-based index into the certificate list, or {@link #CLIENT_CA}. */
    public int certificateIndex() {
        return certificateIndex;
    }
}
