package io.paduraksa.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.paduraksa.config.Http3Spec;
import io.paduraksa.config.ListenerSpec;
import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.Gate;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.GateTrace;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.StaticRequestView;
import io.paduraksa.host.HostTable;
import io.paduraksa.net.IpParser;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.proxy.cache.CacheExplain;
import io.paduraksa.respond.DateHeader;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.route.PathNormalizer;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code paduraksa explain}: runs one request through a compiled snapshot without a network and
 * prints what the gate decides and why: the client IP, the host entry and route, each policy's
 * verdict in order, and the answer or the cluster. A {@code ws://} or {@code wss://} URL explains a
 * WebSocket handshake, which the gate judges as a {@code GET} of its path whether it comes as an
 * HTTP/1.1 Upgrade or as an HTTP/2 extended CONNECT (RFC 8441).
 */
final class Explain implements GateTrace {
    private final PrintStream out;
    private final Snapshot snapshot;
    /** The request being explained, for policies' own explain lines. */
    private final RequestState state = new RequestState();

    private Explain(PrintStream out, Snapshot snapshot) {
        this.out = out;
        this.snapshot = snapshot;
    }

    /**
     * Explains {@code method url} as sent by {@code peer} with {@code headers} ("Name: value").
     *
     * @return the gate's outcome
     * @throws IllegalArgumentException for an unusable URL, peer or header
     */
    static GateOutcome run(PrintStream out, Snapshot snapshot, String peer, List<String> headers, String method, String url) {
        long[] ip = new long[2];
        if (!IpParser.parse(peer, 0, peer.length(), ip)) {
            throw new IllegalArgumentException("--peer '" + peer + "' is not an IP address");
        }
        boolean trusted = snapshot.trustedProxies().contains(ip[0], ip[1]);
        String authority = null;
        String target = url;
        boolean websocket = false;
        if (!url.startsWith("/") && !url.equals("*")) {
            URI uri = parseUrl(url);
            websocket = "ws".equalsIgnoreCase(uri.getScheme()) || "wss".equalsIgnoreCase(uri.getScheme());
            authority = uri.getRawAuthority();
            target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        }
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("-H '" + h + "' is not a header (expected 'Name: value')");
            }
            String name = h.substring(0, colon).trim();
            if (name.equalsIgnoreCase("host")) {
                authority = h.substring(colon + 1).trim();
            }
        }
        StaticRequestView view = new StaticRequestView().client(new ClientInfo(ip[0], ip[1], trusted, ClientInfo.NO_COUNTRY))
                .method(websocket ? "GET" : method);
        for (String h : headers) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim();
            if (!name.equalsIgnoreCase("host")) {
                view.header(name, h.substring(colon + 1).trim());
            }
        }
        view.authority(authority).target(target);
        Explain explain = new Explain(out, snapshot);
        out.printf("config    %s (generation %d, sha256 %s)%n", snapshot.sourceName(), snapshot.generation(),
                snapshot.sourceSha256().substring(0, 16));
        http3(out, snapshot);
        out.printf("request   %s %s (Host: %s)%n", websocket ? "GET" : method, target, authority == null ? "none" : authority);
        if (websocket) {
            out.printf("websocket a WebSocket handshake, judged as GET %s: an HTTP/1.1 Upgrade, or an HTTP/2 extended CONNECT"
                    + " (:protocol websocket) where the listener's h2_websockets is on; forwarded to an http1 cluster as an"
                    + " Upgrade, to an h2c/h2 cluster as an extended CONNECT if that upstream advertises"
                    + " SETTINGS_ENABLE_CONNECT_PROTOCOL (else 502)%n", target);
        }
        out.printf("peer      %s%s%n", IpParser.format(ip[0], ip[1]), trusted
                ? " (a trusted proxy: " + snapshot.clientIpHeader() + " is honoured)"
                : " (not a trusted proxy: " + snapshot.clientIpHeader() + " is ignored)");
        return new Gate(new SnapshotStore(snapshot)).run(view, explain.state, explain);
    }

    /** One line per listener that serves HTTP/3: its UDP port, limits, and the Alt-Svc its other answers carry. */
    static void http3(PrintStream out, Snapshot snapshot) {
        for (ListenerSpec l : snapshot.spec().listeners()) {
            if (!l.servesHttp3()) {
                continue;
            }
            Http3Spec h = l.http3();
            String port = l.address().substring(l.address().lastIndexOf(':') + 1);
            out.printf("http3     listener %s: h3 over QUIC on UDP %s (max_streams %d, max_field_section_size %s, idle_timeout %ds);"
                            + " its HTTP/1.1 and HTTP/2 answers carry Alt-Svc: h3=\":%s\"; ma=%d%n",
                    l.name() == null ? l.address() : l.name(), l.address(), h.maxStreams(), h.maxFieldSectionSize(),
                    h.idleTimeout().toSeconds(), port, h.altSvcMaxAge().toSeconds());
        }
    }

    private static URI parseUrl(String url) {
        try {
            URI uri = new URI(url);
            if (uri.getRawAuthority() == null) {
                throw new IllegalArgumentException("URL '" + url + "' has no host (expected http://host/path or /path)");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("URL '" + url + "' is not valid: " + e.getReason());
        }
    }

    @Override
    public void clientIp(long high, long low, boolean fromHeader) {
        out.printf("client IP %s%s%n", IpParser.format(high, low), fromHeader ? " (from " + snapshot.clientIpHeader() + ")" : " (the peer)");
    }

    @Override
    public void host(CharSequence authority, CompiledHost host) {
        if (host == null) {
            boolean noHost = authority == null || authority.isEmpty();
            out.printf("host      %s: %s -> the default action%n", noHost ? "(no Host header)" : authority,
                    noHost || !snapshot.hosts().hasCatchAll() ? "no host entry matches" : "not a valid host name, so not the catch-all either");
            return;
        }
        HostTable.Found<CompiledHost> found = snapshot.hosts().describe(authority);
        String why = switch (found.match()) {
            case EXACT -> "exact name " + found.name();
            case WILDCARD -> "wildcard " + found.name() + ", the longest parent that matches";
            case CATCH_ALL -> "the catch-all '*': no other entry takes the name";
        };
        out.printf("host      %s -> hosts[%d] %s (%s)%n", authority, host.index(), host.names(), why);
    }

    @Override
    public void path(byte[] normalised, int length) {
        if (length < 0) {
            out.printf("path      rejected: %s%n", PathNormalizer.describe(length));
        } else {
            out.printf("path      %s (normalised; what the upstream receives)%n", new String(normalised, 0, length, StandardCharsets.US_ASCII));
        }
    }

    @Override
    public void route(CompiledRoute route) {
        out.println(route == null ? "route     none matches -> 404" : "route     routes[" + route.index() + "] " + route.prefix() + " -> " + route.action());
    }

    @Override
    public void policy(RequestPolicy policy, boolean hostLevel, PolicyDecision decision) {
        out.printf("policy    %-20s %-6s %s%n", policy.name(), hostLevel ? "host" : "route", decision);
        for (String line : policy.explain(state)) {
            out.printf("          %s%n", line);
        }
    }

    @Override
    public void outcome(GateOutcome outcome, RequestState state) {
        String by = state.decidingPolicy() == null ? "" : " (policy " + state.decidingPolicy().name() + ")";
        switch (outcome) {
            case FORWARD -> {
                out.printf("decision  FORWARD to cluster '%s' %s%n", state.cluster().name(), destinations(state));
                out.printf("cache     %s%n", CacheExplain.describe(state));
            }
            case DROP -> out.printf("decision  DROP: the connection is closed (HTTP/2: the stream is reset) without an answer%s%n", by);
            case NEEDS_ASYNC -> out.printf("decision  NEEDS_ASYNC%s%n", by);
            default -> {
                out.printf("decision  %s %d%s%n", outcome, state.response().status(), by);
                printAnswer(state.response(), state);
            }
        }
    }

    private static String destinations(RequestState state) {
        StringBuilder sb = new StringBuilder("[");
        for (var d : state.cluster().destinations()) {
            sb.append(sb.length() == 1 ? "" : ", ").append(d.url());
        }
        return sb.append(']').toString();
    }

    private void printAnswer(PrecomputedResponse response, RequestState state) {
        ByteBuf buf = Unpooled.buffer();
        try {
            if (response.headerTemplate() != null) {
                out.printf("          (%s filled from the request: %s)%n",
                        response.headerNames()[response.templateHeaderIndex()], response.headerTemplate().text());
            }
            response.writeHttp1Head(buf, new DateHeader(), false, state);
            response.writeBody(buf, state.requestId());
            String wire = buf.toString(StandardCharsets.UTF_8);
            for (String line : wire.split("\r?\n", -1)) {
                out.println("          " + line);
            }
        } finally {
            buf.release();
        }
    }
}
