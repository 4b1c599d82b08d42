package io.paduraksa.config;

import java.util.List;

/**
 * How requests are rewritten on their way to a cluster, for every host: the {@code X-Forwarded-*}
 * family, {@code X-Real-IP}, the request id, {@code Via}, request headers to drop, and the
 * response-header defaults each host merges its own {@code response_headers} over.
 *
 * @param xForwardedFor        {@code replace} (default: the client IP only), {@code append} (to a
 *                             trusted proxy's list) or {@code off} (the client's header passes untouched)
 * @param via                  empty (default) = no Via header; otherwise the pseudonym, {@code Via: 1.1 <via>}
 * @param identityHeaders      names that claim the client's address or origin, added to the compiled
 *                             defaults: never forwarded from a peer that is not a trusted proxy
 *                             ({@code -} and {@code _} folded together)
 * @param identityHeadersFromTrustedProxies identity names a trusted proxy sets itself and that pass
 *                             from it unchanged (besides {@code client_ip.header}); also identity names
 * @param headersWithUnderscores {@code drop} (default: no field whose name has a {@code _} is
 *                             forwarded, as nginx) or {@code pass}
 */
public record ForwardingSpec(
        String xForwardedFor,
        Boolean xForwardedProto,
        Boolean xForwardedHost,
        Boolean xRealIp,
        RequestIdSpec requestId,
        String via,
        List<String> removeRequestHeaders,
        ResponseHeadersSpec responseHeaders,
        TraceSpec trace,
        List<String> identityHeaders,
        List<String> identityHeadersFromTrustedProxies,
        String headersWithUnderscores) {

    public static final ForwardingSpec DEFAULT = new ForwardingSpec(null, null, null, null, null, null, null, null, null, null, null, null);

    public ForwardingSpec {
        xForwardedFor = xForwardedFor == null ? "replace" : xForwardedFor;
        xForwardedProto = xForwardedProto == null ? Boolean.TRUE : xForwardedProto;
        xForwardedHost = xForwardedHost == null ? Boolean.TRUE : xForwardedHost;
        xRealIp = xRealIp == null ? Boolean.FALSE : xRealIp;
        requestId = requestId == null ? RequestIdSpec.DEFAULT : requestId;
        via = via == null ? "" : via;
        removeRequestHeaders = removeRequestHeaders == null ? List.of() : List.copyOf(removeRequestHeaders);
        responseHeaders = responseHeaders == null ? ResponseHeadersSpec.EMPTY : responseHeaders;
        trace = trace == null ? TraceSpec.DEFAULT : trace;
        identityHeaders = identityHeaders == null ? List.of() : List.copyOf(identityHeaders);
        identityHeadersFromTrustedProxies = identityHeadersFromTrustedProxies == null ? List.of() : List.copyOf(identityHeadersFromTrustedProxies);
        headersWithUnderscores = headersWithUnderscores == null ? "drop" : headersWithUnderscores;
    }

    /**
     * The request-id header sent upstream: with {@code propagate} a client's id of 1 to 128 visible
     * ASCII characters is kept, otherwise (and by default) every request gets a generated id. With
     * {@code echo} (default) the client gets the id back in the same header, on forwarded responses
     * and on the gate's own answers. With {@code forward} off no id is sent upstream: the client's
     * field of that name and the upstream's answer field pass untouched, and {@code echo} puts the id
     * on the gate's own answers only ({@code propagate} needs {@code forward}).
     */
    public record RequestIdSpec(String header, Boolean propagate, Boolean echo, Boolean forward) {
        public static final RequestIdSpec DEFAULT = new RequestIdSpec(null, null, null, null);

        public RequestIdSpec {
            header = header == null ? "X-Request-Id" : header;
            propagate = propagate == null ? Boolean.FALSE : propagate;
            echo = echo == null ? Boolean.TRUE : echo;
            forward = forward == null ? Boolean.TRUE : forward;
        }
    }

    /**
     * W3C Trace Context ({@code traceparent}, {@code tracestate}) on forwarded requests.
     *
     * @param propagate       continue a client's valid trace (same trace id, our span id as the new parent)
     * @param startWhenAbsent start a new trace (random 128-bit id) when there is none to continue
     * @param sampled         the sampled flag of traces we start ({@code 01}); continued traces keep the client's flags
     */
    public record TraceSpec(Boolean propagate, Boolean startWhenAbsent, Boolean sampled) {
        public static final TraceSpec DEFAULT = new TraceSpec(null, null, null);

        public TraceSpec {
            propagate = propagate == null ? Boolean.TRUE : propagate;
            startWhenAbsent = startWhenAbsent == null ? Boolean.TRUE : startWhenAbsent;
            sampled = sampled == null ? Boolean.FALSE : sampled;
        }
    }
}
