package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.Idempotency;
import io.paduraksa.snapshot.RouteCache;

/**
 * What {@code paduraksa explain} says about the cache for a forwarded request: off on the route,
 * not used (and why), or used, with the key and the route's settings. Whether a response is then
 * stored depends on the response, which {@code explain} does not fetch. Tool path; allocates.
 */
public final class CacheExplain {
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final AsciiString TRANSFER_ENCODING = AsciiString.cached("transfer-encoding");
    private static final AsciiString UPGRADE = AsciiString.cached("upgrade");

    private CacheExplain() {
    }

    /** One line (without the {@code cache} label) for the request the gate forwarded in {@code state}. */
    public static String describe(RequestState state) {
        RouteCache settings = state.route() == null ? null : state.route().cache();
        if (settings == null) {
            return "off on this route (no routes[].cache)";
        }
        CharSequence length = state.view().header(CONTENT_LENGTH);
        boolean body = state.view().header(TRANSFER_ENCODING) != null || (length != null && !length.toString().trim().equals("0"));
        boolean upgrade = state.view().header(UPGRADE) != null;
        String refusal = CachingForwarder.refusal(state.method(), body ? 1 : 0, upgrade, state.view(), settings);
        if (refusal != null) {
            return "not used: " + refusal + "; forwarded as it is";
        }
        CacheKey key = new CacheKey(256);
        if (!key.primary(state)) {
            return "not used: the key would be longer than " + CacheKey.MAX_LENGTH + " bytes";
        }
        String head = Idempotency.isHead(state.method()) ? " (HEAD: answered from the stored GET; a miss is forwarded, not stored)" : "";
        return "eligible" + head + ": key " + key + " (plus the fields a stored response's Vary names); " + settings
                + "; stored if the response allows it (Cache-Control, Expires, Vary, Set-Cookie)";
    }
}
