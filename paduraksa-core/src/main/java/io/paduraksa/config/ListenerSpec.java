package io.paduraksa.config;

import java.util.List;

/**
 * One listening socket. {@code protocols} lists {@code http1}, {@code h2c} (cleartext HTTP/2 with
 * prior knowledge) and, on TLS listeners, {@code h2} (offered through ALPN). {@code proxyProtocol}
 * lists the senders (CIDRs) whose PROXY protocol v1/v2 header is required and believed; empty turns
 * PROXY protocol off. {@code trustedOnly} locks the listener down to {@code client_ip.trusted_proxies}
 * (e.g. Cloudflare): other peers are refused at accept time, before a byte is read. {@code admin}
 * makes it the admin listener (health, readiness, metrics, config status). {@code h2Websockets}
 * (default on) advertises {@code SETTINGS_ENABLE_CONNECT_PROTOCOL} on its HTTP/2 connections and
 * accepts WebSockets over HTTP/2 (RFC 8441 extended CONNECT); off, such a request is malformed.
 * {@code h3} in {@code protocols} (TLS listeners only) serves HTTP/3 over QUIC on the same port's
 * UDP side, with {@code http3}'s settings ({@link Http3Spec#DEFAULT} when absent).
 */
public record ListenerSpec(
        String name, String address, List<String> protocols, TlsSpec tls, boolean admin,
        List<String> proxyProtocol, boolean trustedOnly, Boolean h2Websockets, Http3Spec http3) {
    public ListenerSpec {
        h2Websockets = h2Websockets == null ? Boolean.TRUE : h2Websockets;
        http3 = http3 == null ? Http3Spec.DEFAULT : http3;
        protocols = protocols == null ? List.of("http1") : List.copyOf(protocols);
        proxyProtocol = proxyProtocol == null ? List.of() : List.copyOf(proxyProtocol);
    }

    /** Whether this listener serves HTTP/3 (QUIC on its UDP port). */
    public boolean servesHttp3() {
        return protocols.contains("h3");
    }
}
