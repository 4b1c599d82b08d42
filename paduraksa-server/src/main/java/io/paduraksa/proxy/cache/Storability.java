package io.paduraksa.proxy.cache;

import io.netty.util.AsciiString;
import io.paduraksa.proxy.ResponseHead;
import io.paduraksa.snapshot.RouteCache;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether an upstream response may be stored, and for how long it is fresh and may be served
 * stale (RFC 9111 3 and 4.2, RFC 5861). Runs once per miss, on the response head; allocates.
 *
 * <p>Not stored: a status outside {@link #isCacheableStatus} (200, 203, 204, 300, 301, 308, 404, 410);
 * {@code no-store}, {@code private} or {@code no-cache} (this cache does not revalidate, so a
 * response that must be revalidated before each use is not kept); {@code Vary: *} or more than
 * {@link #MAX_VARY} varying fields; {@code Set-Cookie} unless the route allows it; a
 * {@code Content-Range}; a response to a request with {@code Authorization} unless the route allows
 * it and the response is {@code public} or has {@code s-maxage}; a response without a freshness
 * lifetime ({@code s-maxage}, then {@code max-age}, then {@code Expires} minus {@code Date}) when
 * the route has no {@code default_ttl}; and one that is stale on arrival with no stale window.
 */
final class Storability {
    /** A response that varies on more request fields than this is not stored. */
    static final int MAX_VARY = 4;

    private static final AsciiString CACHE_CONTROL = AsciiString.cached("cache-control");
    private static final AsciiString EXPIRES = AsciiString.cached("expires");
    private static final AsciiString DATE = AsciiString.cached("date");
    private static final AsciiString AGE = AsciiString.cached("age");
    private static final AsciiString VARY = AsciiString.cached("vary");
    private static final AsciiString SET_COOKIE = AsciiString.cached("set-cookie");
    private static final AsciiString CONTENT_RANGE = AsciiString.cached("content-range");

    long freshSeconds;
    long staleWhileRevalidateSeconds;
    long staleIfErrorSeconds;
    long initialAgeSeconds;
    /** Lower-case names of the varying request fields, or null. */
    AsciiString[] vary;
    boolean hasSetCookie;
    boolean hasDate;
    /** Why the response is not stored, or null when it is. */
    String refusal;

    /** Decides for {@code head}; {@code authorized}: the request carried Authorization. */
    static Storability of(ResponseHead head, RouteCache settings, boolean authorized, long nowMillis) {
        Storability s = new Storability();
        s.refusal = s.decide(head, settings, authorized, nowMillis);
        return s;
    }

    boolean isStorable() {
        return refusal == null;
    }

    static boolean isCacheableStatus(int status) {
        return switch (status) {
            case 200, 203, 204, 300, 301, 308, 404, 410 -> true;
            default -> false;
        };
    }

    private String decide(ResponseHead head, RouteCache settings, boolean authorized, long nowMillis) {
        if (!isCacheableStatus(head.status())) {
            return "status " + head.status();
        }
        CacheControl cc = new CacheControl();
        String expires = null;
        String date = null;
        List<AsciiString> varying = new ArrayList<>();
        for (int i = 0, n = head.headerCount(); i < n; i++) {
            CharSequence name = head.headerName(i);
            if (CACHE_CONTROL.contentEqualsIgnoreCase(name)) {
                cc.parse(head.headerValue(i));
            } else if (EXPIRES.contentEqualsIgnoreCase(name)) {
                expires = head.headerValue(i).toString();
            } else if (DATE.contentEqualsIgnoreCase(name)) {
                date = head.headerValue(i).toString();
                hasDate = true;
            } else if (AGE.contentEqualsIgnoreCase(name)) {
                CharSequence v = head.headerValue(i);
                initialAgeSeconds = Math.max(initialAgeSeconds, CacheControl.seconds(v, 0, v.length()));
            } else if (VARY.contentEqualsIgnoreCase(name)) {
                if (!addVary(head.headerValue(i), varying)) {
                    return "Vary: *";
                }
            } else if (SET_COOKIE.contentEqualsIgnoreCase(name)) {
                hasSetCookie = true;
            } else if (CONTENT_RANGE.contentEqualsIgnoreCase(name)) {
                return "Content-Range";
            }
        }
        if (cc.noStore || cc.isPrivate || cc.noCache) {
            return cc.noStore ? "no-store" : cc.isPrivate ? "private" : "no-cache";
        }
        if (hasSetCookie && !settings.storeSetCookie()) {
            return "Set-Cookie";
        }
        if (authorized && !cc.isPublic && cc.sMaxAge < 0) {
            return "Authorization without public or s-maxage";
        }
        if (varying.size() > MAX_VARY) {
            return "Vary names more than " + MAX_VARY + " fields";
        }
        vary = varying.isEmpty() ? null : varying.toArray(new AsciiString[0]);
        long fresh = cc.sMaxAge >= 0 ? cc.sMaxAge : cc.maxAge >= 0 ? cc.maxAge
                : expires != null ? expiresDelta(expires, date, nowMillis) : settings.defaultTtlSeconds();
        if (fresh < 0) {
            return "no freshness lifetime";
        }
        freshSeconds = settings.maxTtlSeconds() >= 0 ? Math.min(fresh, settings.maxTtlSeconds()) : fresh;
        staleWhileRevalidateSeconds = cc.mustRevalidate ? 0
                : cc.staleWhileRevalidate >= 0 ? cc.staleWhileRevalidate : settings.staleWhileRevalidateSeconds();
        staleIfErrorSeconds = cc.mustRevalidate ? 0 : cc.staleIfError >= 0 ? cc.staleIfError : settings.staleIfErrorSeconds();
        initialAgeSeconds = Math.max(0, initialAgeSeconds);
        if (freshSeconds <= initialAgeSeconds && staleWhileRevalidateSeconds == 0 && staleIfErrorSeconds == 0) {
            return "stale on arrival";
        }
        return null;
    }

    /** Adds the names of one Vary value (lower case); false for {@code *}. */
    private static boolean addVary(CharSequence v, List<AsciiString> out) {
        for (String part : v.toString().split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.equals("*")) {
                return false;
            }
            if (!name.isEmpty() && !out.contains(AsciiString.of(name))) {
                out.add(AsciiString.of(name));
            }
        }
        return true;
    }

    /** Expires minus Date (or now, without a valid Date), in seconds; 0 for an invalid Expires (RFC 9111 5.3: already expired). */
    private static long expiresDelta(String expires, String date, long nowMillis) {
        long e = httpDateMillis(expires);
        if (e < 0) {
            return 0;
        }
        long d = date == null ? -1 : httpDateMillis(date);
        return Math.max(0, (e - (d < 0 ? nowMillis : d)) / 1000);
    }

    /** An IMF-fixdate (RFC 9110 5.6.7) in epoch milliseconds, or -1. */
    static long httpDateMillis(String text) {
        try {
            return ZonedDateTime.parse(text.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            return -1;
        }
    }
}
