package io.paduraksa.server.connection;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The server TLS contexts of one listener: one {@link SslContext} per certificate, chosen per connection
 * by SNI over the names in each certificate's subjectAltName (exact and {@code *.} wildcard), the first
 * certificate being the default (no SNI, or an unknown name). ALPN offers the configured protocols
 * ({@code h2}, {@code http/1.1} by default). Optionally requires a client certificate signed by a given CA
 * (Cloudflare Authenticated Origin Pulls).
 *
 * <p>Built at start and on reload (SIGHUP) with {@link #load(Settings)} or {@link #reload()}, which re-read
 * every file and fail with a {@link TlsException} naming the file, leaving the running contexts alone.
 * Immutable; per connection only {@link #newHandler()} runs (one {@link SniHandler}, which looks the
 * host name up once and swaps itself for an {@code SslHandler}).
 *
 * <p>Uses OpenSSL (BoringSSL from {@code netty-tcnative-boringssl-static}) when it loads, else the JDK.
 * Contexts are the non-reference-counted kind, so a replaced set is freed by the garbage collector once
 * its last connection is gone.
 */
public final class TlsContexts {
    /**
     * The cipher suites we offer, strongest kinds first: TLS 1.2's ECDHE with AEAD ciphers only (the
     * "intermediate" list of Mozilla's server-side TLS guide), then TLS 1.3's three. RFC 9113 section
     * 9.2.2 and Appendix A (RFC 7540 9.2.2, Appendix A) forbid HTTP/2 over every older TLS 1.2 suite
     * (CBC, static RSA, DHE), and the same list suits HTTP/1.1. The same nine as Netty's
     * {@code Http2SecurityUtil.CIPHERS} of 4.2.18, copied so that no HTTP/2 codec of Netty's is
     * needed at run time.
     */
    static final List<String> CIPHERS = List.of(
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");

    /** What ALPN offers when the listener does not say: HTTP/2 first. */
    public static final List<String> DEFAULT_ALPN = List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1);
    /** How long a client gets to send its ClientHello (SniHandler) and to finish the handshake (SslHandler). */
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MILLIS = 10_000;

    /** A PEM certificate chain (leaf first) and its unencrypted PKCS#8 private key. */
    public record CertificateFiles(Path cert, Path key) {
    }

    /** Which TLS implementation to use. */
    public enum Provider {
        /** OpenSSL when it loads, else the JDK. */
        AUTO,
        /** BoringSSL through netty-tcnative; an error if it does not load. */
        OPENSSL,
        JDK
    }

    /**
     * One listener's TLS settings.
     *
     * @param certificates          at least one; the first is the default
     * @param alpn                  protocols ALPN offers, in the server's order of preference; empty: no ALPN
     * @param clientCa              PEM CA certificates a client certificate must chain to; null: none asked for
     * @param provider              TLS implementation
     * @param handshakeTimeoutMillis ClientHello and handshake timeout
     */
    public record Settings(List<CertificateFiles> certificates, List<String> alpn, Path clientCa, Provider provider,
                           long handshakeTimeoutMillis) {
        public Settings {
            certificates = List.copyOf(certificates);
            alpn = alpn == null ? DEFAULT_ALPN : List.copyOf(alpn);
            provider = provider == null ? Provider.AUTO : provider;
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("a TLS listener needs at least one certificate");
            }
        }

        /** Default ALPN, no client certificates, provider chosen automatically. */
        public static Settings of(List<CertificateFiles> certificates) {
            return new Settings(certificates, DEFAULT_ALPN, null, Provider.AUTO, DEFAULT_HANDSHAKE_TIMEOUT_MILLIS);
        }
    }

    private final Settings settings;
    private final SslProvider provider;
    private final List<SslContext> contexts;
    private final Map<String, Integer> certificateByName;
    private final Mapping<String, SslContext> mapping;
    private final List<KeyAndChain> keys;
    private final X509Certificate[] clientCas;

    /**
     * One certificate as read and checked (key matching the leaf), for a protocol that builds its
     * own TLS context from the same files: QUIC ({@code server.http3}) cannot use an {@link SslContext}.
     */
    public record KeyAndChain(PrivateKey key, X509Certificate[] chain) {
    }

    private TlsContexts(Settings settings, SslProvider provider, List<SslContext> contexts,
                        Map<String, Integer> certificateByName, Mapping<String, SslContext> mapping,
                        List<KeyAndChain> keys, X509Certificate[] clientCas) {
        this.settings = settings;
        this.provider = provider;
        this.contexts = contexts;
        this.certificateByName = certificateByName;
        this.mapping = mapping;
        this.keys = keys;
        this.clientCas = clientCas;
    }

    /**
     * Reads every file and builds the contexts.
     *
     * @throws TlsException naming the first file that cannot be used (unreadable, not PEM, key not matching
     *                      its certificate, a later certificate without DNS names), or the provider
     */
    public static TlsContexts load(Settings settings) throws TlsException {
        SslProvider provider = provider(settings);
        X509Certificate[] clientCas = settings.clientCa() == null ? null
                : PemFiles.certificates(settings.clientCa(), TlsException.CLIENT_CA).toArray(new X509Certificate[0]);
        List<SslContext> contexts = new ArrayList<>();
        List<KeyAndChain> keys = new ArrayList<>();
        Map<String, Integer> byName = new LinkedHashMap<>();
        for (int i = 0; i < settings.certificates().size(); i++) {
            CertificateFiles files = settings.certificates().get(i);
            List<X509Certificate> chain = PemFiles.certificates(files.cert(), i);
            X509Certificate leaf = chain.get(0);
            PrivateKey key = PemFiles.privateKey(files.key(), i, leaf.getPublicKey().getAlgorithm());
            PemFiles.requireKeyMatches(leaf, key, files.key(), files.cert(), i);
            List<String> names = dnsNames(leaf, files.cert(), i);
            if (names.isEmpty() && i > 0) {
                throw new TlsException(files.cert(), i, "no DNS name in subjectAltName, so SNI can never choose"
                        + " this certificate (only the first certificate is used without a name)", null);
            }
            for (String name : names) {
                byName.putIfAbsent(name, i); // the first certificate listing a name serves it
            }
            contexts.add(build(settings, provider, chain, key, clientCas, files.cert(), i));
            keys.add(new KeyAndChain(key, chain.toArray(new X509Certificate[0])));
        }
        DomainWildcardMappingBuilder<SslContext> mapping = new DomainWildcardMappingBuilder<>(byName.size() + 1, contexts.get(0));
        for (Map.Entry<String, Integer> e : byName.entrySet()) {
            mapping.add(e.getKey(), contexts.get(e.getValue()));
        }
        return new TlsContexts(settings, provider, List.copyOf(contexts), byName, mapping.build(), List.copyOf(keys), clientCas);
    }

    /** Reads the same files again (SIGHUP); this instance stays usable whatever happens. */
    public TlsContexts reload() throws TlsException {
        return load(settings);
    }

    /**
     * A handler for one new connection: reads the ClientHello, picks the context by SNI and replaces itself
     * with the {@code SslHandler}. Put it after {@link ClientInfoHandler}; read the negotiated protocol with
     * {@code SslHandler.applicationProtocol()} once the handshake completes (null: no ALPN, treat as HTTP/1.1).
     */
    public SniHandler newHandler() {
        return new SniHandler(mapping, settings.handshakeTimeoutMillis());
    }

    /** The context for {@code hostName}, as SNI would choose it. */
    public SslContext contextFor(String hostName) {
        return mapping.map(hostName);
    }

    /** Each certificate's key and chain, in the order of {@code tls.certificates} (indexes as {@link #certificateByName}). */
    public List<KeyAndChain> keys() {
        return keys;
    }

    /** The CA certificates client certificates must chain to ({@code tls.client_ca}), or null. */
    public X509Certificate[] clientCas() {
        return clientCas == null ? null : clientCas.clone();
    }

    /** The first certificate's context: used without SNI or for names no certificate lists. */
    public SslContext defaultContext() {
        return contexts.get(0);
    }

    /** Every DNS name from the certificates' subjectAltNames (lower case), with its certificate's index. */
    public Map<String, Integer> certificateByName() {
        return java.util.Collections.unmodifiableMap(certificateByName);
    }

    /** {@code OPENSSL} or {@code JDK}, for the start-up log. */
    public SslProvider provider() {
        return provider;
    }

    private static SslContext build(Settings settings, SslProvider provider, List<X509Certificate> chain,
                                    PrivateKey key, X509Certificate[] clientCas, Path certFile, int index)
            throws TlsException {
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain.toArray(new X509Certificate[0]))
                .sslProvider(provider)
                .protocols("TLSv1.3", "TLSv1.2")
                // RFC 9113 section 9.2.2: HTTP/2 forbids the older suites; the same list suits HTTP/1.1.
                .ciphers(CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(alpn(settings.alpn()));
        if (clientCas != null) {
            builder.trustManager(clientCas).clientAuth(ClientAuth.REQUIRE);
        }
        try {
            return builder.build();
        } catch (Exception e) {
            throw new TlsException(certFile, index, "cannot make a TLS context (" + e.getMessage() + ")", e);
        }
    }

    private static ApplicationProtocolConfig alpn(List<String> protocols) {
        if (protocols.isEmpty()) {
            return ApplicationProtocolConfig.DISABLED;
        }
        // OpenSSL supports only these two behaviours: a client offering none of ours gets no ALPN answer
        // and is served HTTP/1.1.
        return new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols);
    }

    private static SslProvider provider(Settings settings) throws TlsException {
        return switch (settings.provider()) {
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new TlsException(settings.certificates().get(0).cert(), 0,
                            "OpenSSL was asked for but does not load (" + OpenSsl.unavailabilityCause() + ")",
                            OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    /** The leaf's subjectAltName DNS entries, lower-cased; the subject CN is ignored (RFC 6125 section 6.4.4). */
    static List<String> dnsNames(X509Certificate leaf, Path certFile, int index) throws TlsException {
        Collection<List<?>> sans;
        try {
            sans = leaf.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new TlsException(certFile, index, "unreadable subjectAltName (" + e.getMessage() + ")", e);
        }
        List<String> names = new ArrayList<>();
        if (sans == null) {
            return names;
        }
        for (List<?> san : sans) {
            if (san.size() >= 2 && Integer.valueOf(2).equals(san.get(0)) && san.get(1) instanceof String dns) {
                names.add(dns.toLowerCase(Locale.ROOT));
            }
        }
        return names;
    }
}
