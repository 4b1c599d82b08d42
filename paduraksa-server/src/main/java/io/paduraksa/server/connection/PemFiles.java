package io.paduraksa.server.connection;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;

/**
 * Reads PEM certificate chains and PKCS#8 private keys, with errors that name the file and say what to do.
 * Runs when TLS contexts are built (start, reload), never per connection.
 */
final class PemFiles {
    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private PemFiles() {
    }

    /** The certificates in {@code file}, leaf first, as a server sends them. */
    static List<X509Certificate> certificates(Path file, int index) throws TlsException {
        byte[] pem = read(file, index);
        Collection<? extends Certificate> parsed;
        try {
            parsed = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        } catch (CertificateException e) {
            throw new TlsException(file, index, "not a PEM certificate chain (" + e.getMessage() + ")", e);
        }
        if (parsed.isEmpty()) {
            throw new TlsException(file, index, "no PEM certificate in the file (expected -----BEGIN CERTIFICATE-----)", null);
        }
        List<X509Certificate> chain = new ArrayList<>(parsed.size());
        for (Certificate c : parsed) {
            chain.add((X509Certificate) c);
        }
        return chain;
    }

    /** The unencrypted PKCS#8 key in {@code file}, for a certificate whose key algorithm is {@code algorithm}. */
    static PrivateKey privateKey(Path file, int index, String algorithm) throws TlsException {
        String pem = new String(read(file, index), StandardCharsets.US_ASCII);
        int begin = pem.indexOf(KEY_BEGIN);
        int end = pem.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            throw new TlsException(file, index, keyFormatProblem(pem), null);
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + KEY_BEGIN.length(), end));
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new TlsException(file, index, "not a readable " + algorithm + " private key (" + e.getMessage() + ")", e);
        }
    }

    /** Fails unless {@code key} signs what the certificate's public key verifies. */
    static void requireKeyMatches(X509Certificate leaf, PrivateKey key, Path keyFile, Path certFile, int index)
            throws TlsException {
        String algorithm = signatureAlgorithm(key.getAlgorithm());
        if (algorithm == null) {
            return; // an unusual key type: the handshake will tell
        }
        byte[] probe = "paduraksa key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // falls through: a key of another kind than the certificate's does not match either
        }
        throw new TlsException(keyFile, index, "the private key does not belong to the certificate in " + certFile, null);
    }

    private static String signatureAlgorithm(String keyAlgorithm) {
        return switch (keyAlgorithm) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> null;
        };
    }

    private static String keyFormatProblem(String pem) {
        if (pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            return "encrypted private keys are not supported (expected an unencrypted PKCS#8 key:"
                    + " openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)";
        }
        if (pem.contains("-----BEGIN RSA PRIVATE KEY-----") || pem.contains("-----BEGIN EC PRIVATE KEY-----")) {
            return "PKCS#1/SEC1 private key (expected PKCS#8, -----BEGIN PRIVATE KEY-----:"
                    + " openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)";
        }
        return "no PEM private key in the file (expected -----BEGIN PRIVATE KEY-----)";
    }

    private static byte[] read(Path file, int index) throws TlsException {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new TlsException(file, index, "cannot read (" + e + ")", e);
        }
    }
}
