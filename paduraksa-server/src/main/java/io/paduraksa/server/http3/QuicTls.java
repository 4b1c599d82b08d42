package io.paduraksa.server.http3;

import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.util.DomainWildcardMappingBuilder;
import io.paduraksa.server.connection.TlsContexts;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The QUIC side's TLS context, from the same certificates (already read and checked) as the
 * listener's TCP side: ALPN {@code h3}, TLS 1.3 (QUIC has no other), no 0-RTT (early data could be
 * replayed, RFC 9001 9.2, and the gate's decisions are not all idempotent), the client-certificate
 * requirement of {@code tls.client_ca}, and SNI choosing among several certificates by the same
 * names. Built at start and when a reload re-reads the certificates.
 */
final class QuicTls {
    private QuicTls() {
    }

    static QuicSslContext of(TlsContexts tls) {
        X509Certificate[] clientCas = tls.clientCas();
        List<QuicSslContext> contexts = new ArrayList<>();
        for (TlsContexts.KeyAndChain k : tls.keys()) {
            QuicSslContextBuilder b = QuicSslContextBuilder.forServer(k.key(), null, k.chain())
                    .applicationProtocols(Http3.supportedApplicationProtocols())
                    .earlyData(false);
            if (clientCas != null) {
                b.trustManager(clientCas).clientAuth(ClientAuth.REQUIRE);
            }
            contexts.add(b.build());
        }
        if (contexts.size() == 1) {
            return contexts.get(0);
        }
        DomainWildcardMappingBuilder<QuicSslContext> mapping = new DomainWildcardMappingBuilder<>(contexts.size() + 1, contexts.get(0));
        for (Map.Entry<String, Integer> e : tls.certificateByName().entrySet()) {
            mapping.add(e.getKey(), contexts.get(e.getValue()));
        }
        return QuicSslContextBuilder.buildForServerWithSni(mapping.build());
    }
}
