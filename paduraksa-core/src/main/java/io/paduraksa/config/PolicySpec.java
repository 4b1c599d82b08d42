package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A named request policy, chosen by {@code type}. {@code action} says what a denial does
 * (default: respond 403); it may respond, redirect or drop, but never forward.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = PolicySpec.Ip.class, name = "ip"),
    @JsonSubTypes.Type(value = PolicySpec.UserAgent.class, name = "user_agent"),
    @JsonSubTypes.Type(value = PolicySpec.PathPrefix.class, name = "path"),
    @JsonSubTypes.Type(value = PolicySpec.Method.class, name = "method"),
    @JsonSubTypes.Type(value = PolicySpec.RateLimit.class, name = "rate_limit"),
    @JsonSubTypes.Type(value = PolicySpec.Request.class, name = "request"),
    @JsonSubTypes.Type(value = PolicySpec.Challenge.class, name = "challenge"),
    @JsonSubTypes.Type(value = PolicySpec.Country.class, name = "country"),
    @JsonSubTypes.Type(value = PolicySpec.ForwardAuth.class, name = "forward_auth"),
    @JsonSubTypes.Type(value = PolicySpec.Attacks.class, name = "attacks"),
})
public sealed interface PolicySpec {

    /** What a denial does; never null after binding. */
    ActionSpec action();

    /**
     * Client IP ranges (CIDRs or single addresses). With {@code allow}, clients outside it are
     * denied; {@code deny} is checked first and always wins.
     */
    record Ip(List<String> allow, List<String> deny, ActionSpec action) implements PolicySpec {
        public Ip {
            allow = allow == null ? List.of() : List.copyOf(allow);
            deny = deny == null ? List.of() : List.copyOf(deny);
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }
    }

    /** User-Agent substrings (ASCII case-insensitive); {@code deny_empty} also denies a missing UA. */
    record UserAgent(List<String> deny, Boolean denyEmpty, ActionSpec action) implements PolicySpec {
        public UserAgent {
            deny = deny == null ? List.of() : List.copyOf(deny);
            denyEmpty = denyEmpty != null && denyEmpty;
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }
    }

    /**
     * Segment-aware path prefixes, matched on the normalised path. {@code deny} wins; with
     * {@code allow}, paths outside it are denied.
     */
    record PathPrefix(List<String> allow, List<String> deny, ActionSpec action) implements PolicySpec {
        public PathPrefix {
            allow = allow == null ? List.of() : List.copyOf(allow);
            deny = deny == null ? List.of() : List.copyOf(deny);
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }
    }

    /** Allowed request methods (case-sensitive, RFC 9110 section 9.1); others are denied (405). */
    record Method(List<String> allow, ActionSpec action) implements PolicySpec {
        public Method {
            allow = allow == null ? List.of() : List.copyOf(allow);
            action = action == null ? ActionSpec.DEFAULT_METHOD_NOT_ALLOWED : action;
        }
    }

    /**
     * A rate limit: one limiter per policy, keyed by {@code key} ({@code client_ip},
     * {@code client_ip_and_host}, {@code client_ip_and_route} or {@code header:<Name>}), refilled at
     * {@code rate} up to {@code burst} requests. At most {@code max_keys} keys are tracked; a key idle
     * for {@code idle_after} (or whose bucket has refilled) may be evicted, and when none can be,
     * {@code when_full} ({@code deny} or {@code allow}) decides. Default answer: 429 with
     * {@code Retry-After} = the whole seconds until the next request is allowed. With {@code headers}
     * every response to a request the policy checked carries {@code RateLimit-Limit},
     * {@code RateLimit-Remaining} and {@code RateLimit-Reset}.
     */
    record RateLimit(String key, String rate, Integer burst, Integer maxKeys, String whenFull, Duration idleAfter,
            Distributed distributed, Boolean headers, ActionSpec action) implements PolicySpec {
        public static final int DEFAULT_MAX_KEYS = 100_000;
        public static final Duration DEFAULT_IDLE_AFTER = Duration.ofMinutes(10);

        public RateLimit {
            key = key == null ? "client_ip" : key;
            RequestRate parsed = rate == null ? null : RequestRate.parseOrNull(rate);
            burst = burst != null ? burst : parsed == null ? 1 : (int) Math.min(parsed.count(), Integer.MAX_VALUE);
            maxKeys = maxKeys == null ? DEFAULT_MAX_KEYS : maxKeys;
            whenFull = whenFull == null ? "deny" : whenFull;
            idleAfter = idleAfter == null ? DEFAULT_IDLE_AFTER : idleAfter;
            headers = headers != null && headers;
            action = action != null ? action : tooManyRequests(parsed);
        }

        private static ActionSpec tooManyRequests(RequestRate rate) {
            Map<String, String> headers = rate == null ? Map.of() : Map.of("Retry-After", Long.toString(rate.retryAfterSeconds()));
            return new ActionSpec(new RespondSpec(429, null, null, null, headers), null, null, null);
        }

        /**
         * Distributed mode: the boxes share each key's counts through Redis at {@code redis}, every
         * {@code sync_every}; while it is unreachable, {@code when_unreachable} {@code allow} limits
         * locally at {@code share} of the rate, {@code deny} answers the action.
         */
        public record Distributed(String redis, Duration syncEvery, Share share, String whenUnreachable, String keyPrefix) {
            public static final Duration DEFAULT_SYNC_EVERY = Duration.ofMillis(100);
            public static final String DEFAULT_KEY_PREFIX = "paduraksa:rl:";

            public Distributed {
                syncEvery = syncEvery == null ? DEFAULT_SYNC_EVERY : syncEvery;
                share = share == null ? new Share(1) : share;
                whenUnreachable = whenUnreachable == null ? "allow" : whenUnreachable;
                keyPrefix = keyPrefix == null ? DEFAULT_KEY_PREFIX : keyPrefix;
            }
        }
    }

    /**
     * Request rules: any {@code deny} rule that matches denies, every {@code allow} rule must match;
     * {@code max_body} denies a larger {@code Content-Length} (413); {@code bot_signal} denies a
     * browser-looking User-Agent without {@code Accept} or {@code Accept-Language}.
     */
    record Request(List<RequestRuleSpec> deny, List<RequestRuleSpec> allow, DataSize maxBody, Boolean botSignal,
            ActionSpec action) implements PolicySpec {
        public Request {
            deny = deny == null ? List.of() : List.copyOf(deny);
            allow = allow == null ? List.of() : List.copyOf(allow);
            botSignal = botSignal != null && botSignal;
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }
    }

    /**
     * A proof-of-work challenge: requests without a valid clearance cookie get a page whose script
     * finds a nonce giving {@code difficulty} leading zero bits of SHA-256 within {@code solve_within},
     * then earns a cookie named {@code cookie} for {@code ttl}, signed with the first of {@code keys}
     * (all of them verify: rotation) and bound to the client's address ({@code bind: ip}) or network
     * ({@code bind: prefix}, {@code prefix_v4} / {@code prefix_v6} bits), to this policy, and with
     * {@code bind_host} (default true) to the host name it was earned at. Requests that cannot run
     * the page (not a GET or HEAD asking for text/html) and failed proofs get {@code non_browser}.
     */
    record Challenge(Integer difficulty, String cookie, Duration ttl, Duration solveWithin, List<ChallengeKeySpec> keys,
            String bind, Integer prefixV4, Integer prefixV6, ActionSpec nonBrowser, Boolean bindHost) implements PolicySpec {
        public static final ActionSpec DEFAULT_NON_BROWSER = new ActionSpec(new RespondSpec(403,
                "403 Forbidden\nThis site lets visitors in after their browser solves a small JavaScript puzzle.\n"
                        + "Open it in a web browser with JavaScript enabled.\nrequest id: ${request_id}\n",
                null, "no-store", null), null, null, null);

        public Challenge {
            difficulty = difficulty == null ? 16 : difficulty;
            cookie = cookie == null ? "pdk_clearance" : cookie;
            ttl = ttl == null ? Duration.ofHours(1) : ttl;
            solveWithin = solveWithin == null ? Duration.ofMinutes(5) : solveWithin;
            keys = keys == null ? List.of() : List.copyOf(keys);
            bind = bind == null ? "ip" : bind;
            prefixV4 = prefixV4 == null ? 24 : prefixV4;
            prefixV6 = prefixV6 == null ? 64 : prefixV6;
            nonBrowser = nonBrowser == null ? DEFAULT_NON_BROWSER : nonBrowser;
            bindHost = bindHost == null || bindHost;
        }

        /** The denial is {@code non_browser}. */
        @Override
        public ActionSpec action() {
            return nonBrowser;
        }
    }

    /**
     * Country rules on ISO 3166 alpha-2 codes ({@code deny} first, then {@code allow} when given).
     * The country is the {@code header} (default {@code CF-IPCountry}) when the peer is a trusted
     * proxy, else the peer address looked up once per connection in {@code database} (a MaxMind
     * format .mmdb; one database per configuration). {@code unknown} decides for requests without a
     * country; by default they are treated as in no list (denied by an allow list, allowed by a deny list).
     */
    record Country(List<String> allow, List<String> deny, String database, String unknown, String header,
            ActionSpec action) implements PolicySpec {
        public Country {
            allow = allow == null ? List.of() : List.copyOf(allow);
            deny = deny == null ? List.of() : List.copyOf(deny);
            header = header == null ? "CF-IPCountry" : header;
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }
    }

    /**
     * Forward-auth (like nginx {@code auth_request}): a subrequest with {@code method} to {@code url}
     * carrying {@code forward_headers} and the {@code X-Forwarded-*} facts of the request decides.
     * 2xx continues (with {@code copy_response_headers} of the answer added to the upstream request),
     * 401 and 403 go to the client with the service's {@code WWW-Authenticate} and body, a redirect
     * with its {@code Location}; anything else, a timeout or a refused connection is
     * {@code when_unavailable}: {@code deny} answers {@code action} (default 503), {@code allow}
     * continues. Decisions are cached by the values of {@code cache.key} for {@code cache.ttl}.
     * {@code ca}: PEM trust anchors for an {@code https://} url (null: the system trust store).
     */
    record ForwardAuth(URI url, String method, List<String> forwardHeaders, List<String> copyResponseHeaders,
            Cache cache, Duration timeout, String whenUnavailable, ActionSpec action, String ca) implements PolicySpec {
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
        public static final ActionSpec DEFAULT_UNAVAILABLE =
                new ActionSpec(new RespondSpec(503, null, null, null, null), null, null, null);

        public ForwardAuth {
            method = method == null ? "GET" : method;
            forwardHeaders = forwardHeaders == null ? List.of("Cookie", "Authorization") : List.copyOf(forwardHeaders);
            copyResponseHeaders = copyResponseHeaders == null ? List.of() : List.copyOf(copyResponseHeaders);
            timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
            whenUnavailable = whenUnavailable == null ? "deny" : whenUnavailable;
            action = action == null ? DEFAULT_UNAVAILABLE : action;
        }

        /**
         * The decision cache: keyed by the values of the {@code key} headers (default: the forwarded
         * ones), each decision kept for {@code ttl}, at most {@code max_entries} of them.
         */
        public record Cache(List<String> key, Duration ttl, Integer maxEntries) {
            public static final int DEFAULT_MAX_ENTRIES = 100_000;

            public Cache {
                key = key == null ? null : List.copyOf(key);
                ttl = ttl == null ? Duration.ofSeconds(30) : ttl;
                maxEntries = maxEntries == null ? DEFAULT_MAX_ENTRIES : maxEntries;
            }
        }
    }
    /**
     * Attack detection with CRS-style anomaly scoring: the {@code inspect} parts of a request run
     * through the rules of {@code paranoia} level 1 to 4 and lower; each matching rule adds its score
     * (critical 5, warning 3) and the request is denied when the sum reaches {@code threshold}. With
     * {@code detect_only} matches are logged and counted but never deny. {@code exclusions} stop
     * rules from counting on given arguments and paths.
     */
    record Attacks(Integer paranoia, Integer threshold, Inspect inspect, Boolean detectOnly, List<Exclusion> exclusions,
            ActionSpec action) implements PolicySpec {
        public Attacks {
            paranoia = paranoia == null ? 1 : paranoia;
            threshold = threshold == null ? 5 : threshold;
            inspect = inspect == null ? new Inspect(null, null, null, null, null, null) : inspect;
            detectOnly = detectOnly != null && detectOnly;
            exclusions = exclusions == null ? List.of() : List.copyOf(exclusions);
            action = action == null ? ActionSpec.DEFAULT_DENY : action;
        }

        /**
         * Which parts are inspected; by default the path, the query, the cookies, User-Agent and
         * Referer. {@code allHeaders}: every other header field line too, with the rules CRS applies
         * to all request headers (default false).
         */
        public record Inspect(Boolean path, Boolean query, Boolean cookies, List<String> headers, Boolean allHeaders, BodyInspect body) {
            public Inspect {
                path = path == null || path;
                query = query == null || query;
                cookies = cookies == null || cookies;
                headers = headers == null ? List.of("User-Agent", "Referer") : List.copyOf(headers);
                allHeaders = allHeaders != null && allHeaders;
            }
        }

        /**
         * Request body inspection: {@code application/x-www-form-urlencoded}, JSON,
         * {@code multipart/form-data} and XML bodies, up to {@code max} bytes per request, waiting at
         * most {@code timeout} for the body; a larger body (or one not whole in time) is inspected as
         * far as it arrived and goes on ({@code on_oversize: inspect_prefix}) or is denied
         * ({@code deny}). Of a multipart file part, the first {@code file_bytes} of its content are
         * inspected (default 0: only its name and file name).
         */
        public record BodyInspect(DataSize max, String onOversize, Duration timeout, DataSize fileBytes) {
            public static final DataSize DEFAULT_MAX = new DataSize(64 * 1024);
            public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

            public BodyInspect {
                max = max == null ? DEFAULT_MAX : max;
                onOversize = onOversize == null ? "inspect_prefix" : onOversize;
                timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
                fileBytes = fileBytes == null ? new DataSize(0) : fileBytes;
            }
        }

        /**
         * Matches of {@code rules} (ids like 942100 or groups like 942; none: all) in the query
         * parameters or cookies named {@code arguments} (none: every part) on paths under {@code paths}
         * (none: every path) do not count.
         */
        public record Exclusion(List<Integer> rules, List<String> arguments, List<String> paths) {
            public Exclusion {
                rules = rules == null ? List.of() : List.copyOf(rules);
                arguments = arguments == null ? List.of() : List.copyOf(arguments);
                paths = paths == null ? List.of() : List.copyOf(paths);
            }
        }
    }
}
