package io.paduraksa.config;

import io.paduraksa.respond.HttpToken;
import io.paduraksa.respond.ValueTemplate;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The value rules of the binding pass, beyond what the Java type says: ranges, enumerations,
 * listener addresses, destination URLs, header-safe text. What needs other parts of the file
 * (names of clusters and policies, exactly one action, CIDR syntax, host collisions) is the
 * snapshot compiler's, not this class's.
 */
final class SpecChecks {
    private static final String ADDRESS = "host:port or [v6]:port with a port from 1 to 65535, like 0.0.0.0:8080 or [::]:8443";
    private static final String URL = "an absolute http:// or https:// URL with a host and an optional port, like http://192.0.2.10:8080";
    private static final String AUTH_URL = "an http:// or https:// URL with a host, like http://127.0.0.1:9090/auth";
    private static final String PROTOCOLS = "one of: http1, h2c, h2, h3";
    private static final List<String> TRANSPORTS = List.of("auto", "io_uring", "epoll", "nio");
    private static final List<String> LOAD_BALANCING = List.of("round_robin", "least_requests", "power_of_two_choices", "random", "first_available");
    private static final List<String> NORMALIZE = List.of("reject", "decode", "keep");
    private static final List<String> PATH_PARAMETERS = List.of("strip", "reject", "keep");
    private static final String POSITIVE = "a positive integer";
    private static final String MAX_STREAMS = "an integer from 1 to 10000";
    private static final String FIELD_SECTION = "a size from 1KiB to 1MiB, like 32KiB";
    private static final String NOT_NEGATIVE = "0 or a positive integer";
    private static final String WEIGHT = "an integer from 1 to 1000";
    private static final String ATTEMPTS = "an integer from 0 to 5";
    private static final List<String> UPSTREAM_PROTOCOLS = List.of("http1", "h2c", "h2");
    private static final List<String> X_FORWARDED_FOR = List.of("replace", "append", "off");
    private static final List<String> UNDERSCORES = List.of("drop", "pass");
    private static final List<String> ACCESS_LOG_FORMATS = List.of("json", "combined");
    private static final String QUEUE = "an integer from 1024 to 16777216";
    private static final String TAKEOVER_SOCKET = "an absolute path, like /run/paduraksa/takeover.sock";
    /**
     * Headers the proxy manages itself (RFC 9110 section 7.6.1 hop-by-hop fields, message framing,
     * Host): configuring them away or setting them would break the connection or the framing.
     */
    private static final List<String> MANAGED_HEADERS = List.of("connection", "keep-alive", "te", "trailer",
            "transfer-encoding", "upgrade", "content-length", "host");
    private static final List<String> WHEN_FULL = List.of("deny", "allow");
    private static final List<String> ON_OVERSIZE = List.of("inspect_prefix", "deny");
    /** The most body bytes an attacks policy inspects per request. */
    static final long MAX_BODY_INSPECTED = 16L * 1024 * 1024;
    private static final String REDIS = "a redis:// or rediss:// URI with a host, like redis://127.0.0.1:6379/0";
    private static final String SHARE_ABOVE_ZERO = "a share above 0% up to 100%, like 50% or 0.5";
    private static final String RATE_KEY = "one of: client_ip, client_ip_and_host, client_ip_and_route, header:<Name>";
    private static final List<String> RULE_SUBJECTS = List.of("header", "query", "method");
    private static final List<String> RULE_MATCHES = List.of("present", "exact", "prefix", "contains");
    private static final List<String> BIND = List.of("ip", "prefix");
    private static final List<String> UNKNOWN_COUNTRY = List.of("allow", "deny");
    private static final String COUNTRY_CODE = "an ISO 3166 alpha-2 code like DE, or T1 (Tor, as Cloudflare sends it)";

    private SpecChecks() {
    }

    private static String key(SpecBinder.Slot slot) {
        return slot.owner().getSimpleName() + "." + slot.component();
    }

    /** Durations that may be {@code 0s} (which then means "never" or "once"); all others must be positive. */
    static boolean allowsZeroDuration(SpecBinder.Slot slot) {
        return slot != null && key(slot).equals("ClusterSpec.resolveEvery");
    }

    /** Keys that must be present (and not empty). */
    static boolean isRequired(SpecBinder.Slot slot) {
        return switch (key(slot)) {
            case "ListenerSpec.address", "DestinationSpec.url", "RedirectSpec.location", "CertificateSpec.cert",
                    "CertificateSpec.key", "HostSpec.names", "ClusterSpec.destinations", "RateLimit.rate", "Challenge.keys",
                    "ChallengeKeySpec.id", "Distributed.redis", "ForwardAuth.url" -> true;
            default -> false;
        };
    }

    /** What a value of this slot looks like, for messages; null to describe it by its Java type. */
    static String expected(SpecBinder.Slot slot) {
        return switch (key(slot)) {
            case "ListenerSpec.address" -> ADDRESS;
            case "ListenerSpec.protocols" -> "protocols, " + PROTOCOLS;
            case "DestinationSpec.url" -> URL;
            case "DestinationSpec.weight" -> WEIGHT;
            case "PassiveHealthSpec.consecutiveFailures", "LimitsSpec.maxHeaders", "LimitsSpec.maxConnections",
                    "ActiveHealthSpec.healthyThreshold", "ActiveHealthSpec.unhealthyThreshold", "PoolSpec.maxConnections" -> POSITIVE;
            case "Http3Spec.maxStreams" -> MAX_STREAMS;
            case "PoolSpec.maxRequestsPerConnection", "RetrySpec.minPerSecond" -> NOT_NEGATIVE;
            case "RetrySpec.attempts" -> ATTEMPTS;
            case "ClusterSpec.protocol" -> "one of: " + String.join(", ", UPSTREAM_PROTOCOLS);
            case "ForwardingSpec.xForwardedFor" -> "one of: " + String.join(", ", X_FORWARDED_FOR);
            case "ForwardingSpec.headersWithUnderscores" -> "one of: " + String.join(", ", UNDERSCORES);
            case "AccessLogSpec.format" -> "one of: " + String.join(", ", ACCESS_LOG_FORMATS);
            case "AccessLogSpec.queue" -> QUEUE;
            case "AccessLogSpec.path" -> "a file path, or - for standard output";
            case "ServerSpec.takeoverSocket" -> TAKEOVER_SOCKET;
            case "AffinitySpec.cookie" -> "a cookie name (letters, digits and !#$%&'*+-.^_`|~)";
            case "UpstreamTlsSpec.sni" -> "a host name like api.internal.test";
            case "RespondSpec.status" -> "a status from 200 to 599";
            case "RedirectSpec.status" -> "one of: 301, 302, 303, 307, 308";
            case "RedirectSpec.location" -> "a URL or an absolute path";
            case "HostSpec.names" -> "host names like www.example.test or *.example.test";
            case "ClusterSpec.destinations" -> "destinations like {url: http://192.0.2.10:8080}";
            case "ClusterSpec.loadBalancing" -> "one of: " + String.join(", ", LOAD_BALANCING);
            case "ServerSpec.transport" -> "one of: " + String.join(", ", TRANSPORTS);
            case "NormalizeSpec.encodedSlash", "NormalizeSpec.backslash" -> "one of: " + String.join(", ", NORMALIZE);
            case "NormalizeSpec.pathParameters" -> "one of: " + String.join(", ", PATH_PARAMETERS);
            case "CertificateSpec.cert" -> "the path of a PEM certificate chain";
            case "CertificateSpec.key" -> "the path of a PEM private key";
            case "RateLimit.rate" -> RequestRate.EXPECTED.substring("expected ".length());
            case "RateLimit.key" -> RATE_KEY;
            case "RateLimit.burst", "RateLimit.maxKeys" -> POSITIVE;
            case "RateLimit.whenFull" -> "one of: " + String.join(", ", WHEN_FULL);
            case "Distributed.redis" -> REDIS;
            case "Distributed.whenUnreachable" -> "one of: " + String.join(", ", WHEN_FULL);
            case "Distributed.share" -> SHARE_ABOVE_ZERO;
            case "RequestRuleSpec.method" -> "methods like TRACE";
            case "Challenge.difficulty" -> "leading zero bits from 1 to 32 (16 takes a browser well under a second)";
            case "Challenge.cookie" -> "a cookie name (letters, digits and !#$%&'*+-.^_`|~)";
            case "Challenge.bind" -> "one of: " + String.join(", ", BIND);
            case "Challenge.prefixV4" -> "an integer from 1 to 32";
            case "Challenge.prefixV6" -> "an integer from 1 to 128";
            case "Challenge.keys" -> "keys like [{id: k1, secret_file: /etc/paduraksa/challenge.key}]";
            case "ChallengeKeySpec.id" -> "1 to 16 letters, digits, '-' or '_'";
            case "Country.allow", "Country.deny" -> "a list of " + COUNTRY_CODE;
            case "Country.unknown" -> "one of: " + String.join(", ", UNKNOWN_COUNTRY);
            case "ForwardAuth.url" -> AUTH_URL;
            case "ForwardAuth.whenUnavailable" -> "one of: " + String.join(", ", WHEN_FULL);
            case "ForwardAuth.method" -> "a method like GET";
            case "Cache.maxEntries" -> POSITIVE;
            case "Attacks.paranoia" -> "an integer from 1 to 4";
            case "Attacks.threshold" -> POSITIVE;
            case "Inspect.headers" -> "header names like User-Agent";
            case "BodyInspect.onOversize" -> "one of: " + String.join(", ", ON_OVERSIZE);
            case "BodyInspect.max" -> "a size from 1 B to 16MiB";
            case "BodyInspect.fileBytes" -> "a size from 0 B to 16MiB";
            default -> null;
        };
    }

    /** Rules for one bound value; {@code node} is where it was written. */
    static void check(SpecBinder.Slot slot, YamlNode node, Object value, String path, ErrorList errors) {
        switch (key(slot)) {
            case "ListenerSpec.address" -> single(node, value, path, errors, SpecChecks::address);
            case "ListenerSpec.protocols" -> protocols(node, path, errors);
            case "DestinationSpec.url" -> single(node, value, path, errors, v -> url((URI) v));
            case "DestinationSpec.weight" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 1000, WEIGHT));
            case "PassiveHealthSpec.consecutiveFailures", "LimitsSpec.maxHeaders", "LimitsSpec.maxConnections",
                    "ActiveHealthSpec.healthyThreshold", "ActiveHealthSpec.unhealthyThreshold",
                    "PoolSpec.maxConnections" -> single(node, value, path, errors, SpecChecks::positive);
            case "PoolSpec.maxRequestsPerConnection", "RetrySpec.minPerSecond" ->
                    single(node, value, path, errors, v -> intRange((Integer) v, 0, Integer.MAX_VALUE, NOT_NEGATIVE));
            case "RetrySpec.attempts" -> single(node, value, path, errors, v -> intRange((Integer) v, 0, 5, ATTEMPTS));
            case "RetrySpec.budget" -> single(node, value, path, errors, SpecChecks::share);
            case "ClusterSpec.protocol" -> single(node, value, path, errors, v -> oneOf(v, UPSTREAM_PROTOCOLS));
            case "ForwardingSpec.xForwardedFor" -> single(node, value, path, errors, v -> oneOf(v, X_FORWARDED_FOR));
            case "ForwardingSpec.headersWithUnderscores" -> single(node, value, path, errors, v -> oneOf(v, UNDERSCORES));
            case "AccessLogSpec.format" -> single(node, value, path, errors, v -> oneOf(v, ACCESS_LOG_FORMATS));
            case "AccessLogSpec.queue" -> single(node, value, path, errors, v -> intRange((Integer) v, 1024, 1 << 24, QUEUE));
            case "ServerSpec.takeoverSocket" -> single(node, value, path, errors,
                    v -> ((String) v).startsWith("/") ? null : "found '" + v + "' (expected " + TAKEOVER_SOCKET + ")");
            case "AccessLogSpec.path" -> single(node, value, path, errors,
                    v -> ((String) v).isBlank() ? "found an empty path (expected a file path, or - for standard output)" : null);
            case "AffinitySpec.cookie" -> single(node, value, path, errors, SpecChecks::cookieName);
            case "UpstreamTlsSpec.sni" -> single(node, value, path, errors, SpecChecks::sni);
            case "ForwardingSpec.via" -> single(node, value, path, errors, SpecChecks::pseudonym);
            case "RequestIdSpec.header" -> single(node, value, path, errors, SpecChecks::forwardedHeaderName);
            case "ForwardingSpec.removeRequestHeaders", "ResponseHeadersSpec.remove", "ForwardingSpec.identityHeaders",
                    "ForwardingSpec.identityHeadersFromTrustedProxies" ->
                    items(node, path, errors, SpecChecks::forwardedHeaderName);
            case "ResponseHeadersSpec.set" -> setHeaders(node, path, errors);
            case "LimitsSpec.maxRequestLine", "LimitsSpec.maxHeaderSize", "LimitsSpec.maxBodySize",
                    "LimitsSpec.bodyMinRate" -> single(node, value, path, errors, SpecChecks::positiveSize);
            case "Http3Spec.maxStreams" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 10_000, MAX_STREAMS));
            case "Http3Spec.maxFieldSectionSize" -> single(node, value, path, errors, SpecChecks::fieldSectionSize);
            case "RespondSpec.status" -> single(node, value, path, errors, v -> range((Integer) v, 200, 599));
            case "RedirectSpec.status" -> single(node, value, path, errors, SpecChecks::redirectStatus);
            case "RedirectSpec.location" -> single(node, value, path, errors, SpecChecks::location);
            case "RespondSpec.contentType", "RespondSpec.cacheControl", "ErrorPageSpec.contentType" -> single(node, value, path, errors, SpecChecks::headerValue);
            case "RespondSpec.headers" -> headers(node, path, errors);
            case "ClientIpSpec.header" -> single(node, value, path, errors, SpecChecks::headerName);
            case "ClusterSpec.loadBalancing" -> single(node, value, path, errors, v -> oneOf(v, LOAD_BALANCING));
            case "ServerSpec.transport" -> single(node, value, path, errors, v -> oneOf(v, TRANSPORTS));
            case "ClusterSpec.destinations", "HostSpec.names" -> notEmpty(node, path, errors, key(slot));
            case "NormalizeSpec.encodedSlash", "NormalizeSpec.backslash" -> single(node, value, path, errors, v -> oneOf(v, NORMALIZE));
            case "NormalizeSpec.pathParameters" -> single(node, value, path, errors, v -> oneOf(v, PATH_PARAMETERS));
            case "RouteSpec.path", "ActiveHealthSpec.path" -> single(node, value, path, errors, SpecChecks::absolutePath);
            case "PathPrefix.allow", "PathPrefix.deny" -> items(node, path, errors, SpecChecks::absolutePath);
            case "Method.allow" -> items(node, path, errors, SpecChecks::method);
            case "UserAgent.deny" -> items(node, path, errors, SpecChecks::needle);
            case "RateLimit.rate" -> single(node, value, path, errors, SpecChecks::rate);
            case "RateLimit.key" -> single(node, value, path, errors, SpecChecks::rateKey);
            case "RateLimit.burst", "RateLimit.maxKeys" -> single(node, value, path, errors, SpecChecks::positive);
            case "RateLimit.whenFull" -> single(node, value, path, errors, v -> oneOf(v, WHEN_FULL));
            case "Distributed.redis" -> single(node, value, path, errors, SpecChecks::redisUri);
            case "Distributed.whenUnreachable" -> single(node, value, path, errors, v -> oneOf(v, WHEN_FULL));
            case "Distributed.share" -> single(node, value, path, errors,
                    v -> ((Share) v).fraction() > 0 && ((Share) v).fraction() <= 1 ? null : "found '" + v + "' (expected " + SHARE_ABOVE_ZERO + ")");
            case "Request.maxBody" -> single(node, value, path, errors, SpecChecks::positiveSize);
            case "RequestRuleSpec.header" -> single(node, value, path, errors, SpecChecks::headerName);
            case "RequestRuleSpec.query" -> single(node, value, path, errors, SpecChecks::queryName);
            case "RequestRuleSpec.method" -> methodList(node, path, errors);
            case "RequestRuleSpec.exact", "RequestRuleSpec.prefix", "RequestRuleSpec.contains" ->
                    single(node, value, path, errors, SpecChecks::ruleValue);
            case "Challenge.difficulty" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 32, "an integer from 1 to 32"));
            case "Challenge.cookie" -> single(node, value, path, errors, SpecChecks::cookieName);
            case "Challenge.bind" -> single(node, value, path, errors, v -> oneOf(v, BIND));
            case "Challenge.prefixV4" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 32, "an integer from 1 to 32"));
            case "Challenge.prefixV6" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 128, "an integer from 1 to 128"));
            case "Challenge.keys" -> notEmptyList(node, path, errors, "at least one key, like [{id: k1, secret_file: /etc/paduraksa/challenge.key}]");
            case "ChallengeKeySpec.id" -> single(node, value, path, errors, SpecChecks::keyId);
            case "Country.allow", "Country.deny" -> items(node, path, errors, SpecChecks::countryCode);
            case "Country.unknown" -> single(node, value, path, errors, v -> oneOf(v, UNKNOWN_COUNTRY));
            case "Country.header" -> single(node, value, path, errors, SpecChecks::headerName);
            case "ForwardAuth.url" -> single(node, value, path, errors, v -> authUrl((URI) v));
            case "ForwardAuth.method" -> single(node, value, path, errors, SpecChecks::method);
            case "ForwardAuth.whenUnavailable" -> single(node, value, path, errors, v -> oneOf(v, WHEN_FULL));
            case "ForwardAuth.forwardHeaders", "ForwardAuth.copyResponseHeaders", "Cache.key" ->
                    items(node, path, errors, SpecChecks::forwardedHeaderName);
            case "Cache.maxEntries" -> single(node, value, path, errors, SpecChecks::positive);
            case "Attacks.paranoia" -> single(node, value, path, errors, v -> intRange((Integer) v, 1, 4, "an integer from 1 to 4"));
            case "Attacks.threshold" -> single(node, value, path, errors, SpecChecks::positive);
            case "Inspect.headers" -> items(node, path, errors, SpecChecks::headerName);
            case "BodyInspect.onOversize" -> single(node, value, path, errors, v -> oneOf(v, ON_OVERSIZE));
            case "BodyInspect.max" -> single(node, value, path, errors, SpecChecks::inspectedBodySize);
            case "BodyInspect.fileBytes" -> single(node, value, path, errors, SpecChecks::inspectedFileBytes);
            case "Exclusion.paths" -> items(node, path, errors, SpecChecks::absolutePath);
            default -> {
            }
        }
    }

    /** Rules between the values of one record (after each value was bound). */
    static void checkRecord(Class<?> type, YamlNode.Mapping mapping, List<String> keys, Object[] values, String path,
            ErrorList errors) {
        if (type == ListenerSpec.class) {
            listenerProtocolsAndTls(mapping, values[keys.indexOf("tls")] != null, path, errors);
        } else if (type == ClusterSpec.PassiveHealthSpec.class) {
            ejectForOrder(mapping, (java.time.Duration) values[keys.indexOf("eject_for")],
                    (java.time.Duration) values[keys.indexOf("max_eject_for")], path, errors);
        } else if (type == ResponseHeadersSpec.class) {
            setAndRemoved(mapping, path, errors);
        } else if (type == RequestRuleSpec.class) {
            requestRule(mapping, keys, path, errors);
        } else if (type == PolicySpec.Request.class) {
            requestPolicyNotEmpty(mapping, path, errors);
        } else if (type == ChallengeKeySpec.class) {
            oneSecret(mapping, path, errors);
        } else if (type == PolicySpec.Country.class) {
            countryPolicyNotEmpty(mapping, path, errors);
        }
    }

    private static void single(YamlNode node, Object value, String path, ErrorList errors, Function<Object, String> rule) {
        String problem = rule.apply(value);
        if (problem != null) {
            errors.add(path, node.at(), problem);
        }
    }

    private static void items(YamlNode node, String path, ErrorList errors, Function<Object, String> rule) {
        if (node instanceof YamlNode.Sequence seq) {
            for (int i = 0; i < seq.items().size(); i++) {
                if (seq.items().get(i) instanceof YamlNode.Scalar s && !s.isNull()) {
                    single(s, s.text(), YamlPath.index(path, i), errors, rule);
                }
            }
        }
    }

    private static void notEmpty(YamlNode node, String path, ErrorList errors, String slot) {
        if (node instanceof YamlNode.Sequence seq && seq.items().isEmpty()) {
            errors.add(path, node.at(), "found an empty list (expected at least one, like " + emptyListExpectation(slot) + ")");
        }
    }

    private static String emptyListExpectation(String slot) {
        return slot.equals("HostSpec.names") ? "www.example.test or *.example.test" : "{url: http://192.0.2.10:8080}";
    }

    private static String positive(Object value) {
        int n = (Integer) value;
        return n > 0 ? null : "found '" + n + "' (expected " + POSITIVE + ")";
    }

    private static String intRange(int n, int low, int high, String expected) {
        return n >= low && n <= high ? null : "found '" + n + "' (expected " + expected + ")";
    }

    private static String share(Object value) {
        Share share = (Share) value;
        double f = share.fraction();
        return f >= 0 && f <= 1 ? null : "found '" + share + "', out of range (" + Share.EXPECTED + ")";
    }

    /** RFC 6265 section 4.1.1: a cookie-name is a token. */
    private static String cookieName(Object value) {
        String s = (String) value;
        return HttpToken.isToken(s) ? null : "'" + escape(s) + "' is not a cookie name (expected letters, digits and !#$%&'*+-.^_`|~)";
    }

    /** RFC 6066 section 3: SNI carries a DNS host name; IP literals are not permitted. */
    private static String sni(Object value) {
        String s = (String) value;
        boolean ipv4 = !s.isEmpty() && s.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
        return !ipv4 && isHost(s) ? null : "'" + escape(s) + "' is not a host name; SNI carries no IP literals (expected a host name like api.internal.test)";
    }

    /** RFC 9110 section 7.6.3: the received-by part of Via is a host or a pseudonym (a token). */
    private static String pseudonym(Object value) {
        String s = (String) value;
        return s.isEmpty() || HttpToken.isToken(s) ? null
                : "'" + escape(s) + "' is not a Via pseudonym (expected empty for no Via header, or a token like paduraksa)";
    }

    /** A header name the forwarder may set or remove: a token, and not one the proxy manages itself. */
    static String forwardedHeaderName(Object value) {
        String problem = headerName(value);
        if (problem != null) {
            return problem;
        }
        String s = (String) value;
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        return MANAGED_HEADERS.contains(lower) || lower.startsWith("proxy-")
                ? "'" + s + "' is a hop-by-hop or framing header that the proxy manages itself (expected an end-to-end header such as X-Frame-Options)"
                : null;
    }

    /** RFC 9110 section 5.5: field values of visible ASCII, space and tab; no CR, LF, NUL or other controls. */
    static String visibleHeaderValue(Object value) {
        String s = (String) value;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c == ' ' || c == '\t' || c > 0x20 && c < 0x7F)) {
                return "'" + escape(s) + "' has a character other than visible ASCII, space or tab (expected one line of header text)";
            }
        }
        return null;
    }

    /** {@code set:} names (forwardable tokens, each once regardless of case) and their values. */
    private static void setHeaders(YamlNode node, String path, ErrorList errors) {
        if (!(node instanceof YamlNode.Mapping mapping)) {
            return;
        }
        Set<String> seen = new HashSet<>();
        for (YamlNode.Entry e : mapping.entries().values()) {
            String entryPath = YamlPath.key(path, e.key());
            String nameProblem = forwardedHeaderName(e.key());
            if (nameProblem == null && !seen.add(e.key().toLowerCase(java.util.Locale.ROOT))) {
                nameProblem = "'" + e.key() + "' is set twice (expected each header once; names are case-insensitive)";
            }
            if (nameProblem != null) {
                errors.add(entryPath, e.keyAt(), nameProblem);
            }
            if (e.value() instanceof YamlNode.Scalar s && !s.isNull()) {
                single(s, s.text(), entryPath, errors, SpecChecks::visibleHeaderValue);
            }
        }
    }

    /** A header both set and removed at one level is a contradiction; which one was meant is unclear. */
    private static void setAndRemoved(YamlNode.Mapping mapping, String path, ErrorList errors) {
        YamlNode.Entry set = mapping.entries().get("set");
        YamlNode.Entry remove = mapping.entries().get("remove");
        if (set == null || remove == null || !(set.value() instanceof YamlNode.Mapping setMap)
                || !(remove.value() instanceof YamlNode.Sequence seq)) {
            return;
        }
        Set<String> setNames = new HashSet<>();
        for (String name : setMap.entries().keySet()) {
            setNames.add(name.toLowerCase(java.util.Locale.ROOT));
        }
        for (int i = 0; i < seq.items().size(); i++) {
            if (seq.items().get(i) instanceof YamlNode.Scalar s && !s.isNull()
                    && setNames.contains(s.text().toLowerCase(java.util.Locale.ROOT))) {
                errors.add(YamlPath.index(YamlPath.key(path, "remove"), i), s.at(), "'" + s.text()
                        + "' is both set and removed (expected it in one of set or remove; a set header already replaces the upstream's)");
            }
        }
    }

    /** Ejections grow from {@code eject_for} up to {@code max_eject_for}, so the cap cannot be below the start. */
    private static void ejectForOrder(YamlNode.Mapping mapping, java.time.Duration ejectFor, java.time.Duration maxEjectFor,
            String path, ErrorList errors) {
        java.time.Duration first = ejectFor == null ? java.time.Duration.ofSeconds(30) : ejectFor;
        java.time.Duration max = maxEjectFor == null ? java.time.Duration.ofSeconds(300) : maxEjectFor;
        if (max.compareTo(first) < 0) {
            YamlNode.Entry at = mapping.entries().get(maxEjectFor != null ? "max_eject_for" : "eject_for");
            String key = maxEjectFor != null ? "max_eject_for" : "eject_for";
            errors.add(YamlPath.key(path, key), at.value().at(), "max_eject_for " + DurationText.format(max)
                    + " is shorter than eject_for " + DurationText.format(first) + " (expected max_eject_for >= eject_for)");
        }
    }

    private static String inspectedBodySize(Object value) {
        DataSize size = (DataSize) value;
        return size.bytes() > 0 && size.bytes() <= MAX_BODY_INSPECTED ? null
                : "found '" + size + "', the inspected body size must be from 1 B to 16MiB (" + DataSize.EXPECTED + ")";
    }

    private static String inspectedFileBytes(Object value) {
        DataSize size = (DataSize) value;
        return size.bytes() >= 0 && size.bytes() <= MAX_BODY_INSPECTED ? null
                : "found '" + size + "', the inspected file bytes must be from 0 B to 16MiB (" + DataSize.EXPECTED + ")";
    }

    private static String positiveSize(Object value) {
        DataSize size = (DataSize) value;
        return size.bytes() > 0 ? null : "found '" + size + "', a size must be positive (" + DataSize.EXPECTED + ")";
    }

    private static String range(int n, int low, int high) {
        return n >= low && n <= high ? null : "found '" + n + "' (expected a status from " + low + " to " + high + ")";
    }

    private static String redirectStatus(Object value) {
        int n = (Integer) value;
        return n == 301 || n == 302 || n == 303 || n == 307 || n == 308
                ? null : "found '" + n + "' (expected one of: 301, 302, 303, 307, 308)";
    }

    private static String oneOf(Object value, List<String> allowed) {
        if (allowed.contains(value)) {
            return null;
        }
        String near = NearestKey.of((String) value, allowed);
        return "unknown value '" + value + "' (" + (near != null ? "did you mean '" + near + "'? " : "")
                + "expected one of: " + String.join(", ", allowed) + ")";
    }

    /** {@code host:port}, {@code [v6]:port}; a bare IPv6 address would make the port ambiguous. */
    static String address(Object value) {
        String s = (String) value;
        String bad = "'" + s + "' ";
        int portStart;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0 || !isIpv6Literal(s.substring(1, close))) {
                return bad + "has no valid bracketed IPv6 address (expected " + ADDRESS + ")";
            }
            if (close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                return bad + "has no port (expected " + ADDRESS + ")";
            }
            portStart = close + 2;
        } else {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                return bad + "has no port (expected " + ADDRESS + ")";
            }
            String host = s.substring(0, colon);
            if (host.indexOf(':') >= 0) {
                return bad + "needs brackets around its IPv6 address (expected " + ADDRESS + ")";
            }
            if (!isHost(host)) {
                return bad + "has no valid host (expected " + ADDRESS + ")";
            }
            portStart = colon + 1;
        }
        return isPort(s.substring(portStart)) ? null : bad + "has no valid port (expected " + ADDRESS + ")";
    }

    private static boolean isIpv6Literal(String s) {
        if (s.indexOf(':') < 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
                return false;
            }
        }
        return true;
    }

    /** A host name or an IPv4 address; an all-numeric name must be a valid dotted quad. */
    private static boolean isHost(String host) {
        if (host.isEmpty()) {
            return false;
        }
        boolean numeric = true;
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean letter = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-';
            if (!letter && c != '.' && (c < '0' || c > '9')) {
                return false;
            }
            numeric &= !letter;
        }
        return !numeric || isIpv4(host);
    }

    private static boolean isIpv4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || part.length() > 1 && part.charAt(0) == '0'
                    || Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPort(String s) {
        if (s.isEmpty() || s.length() > 5) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        // 0 asks the kernel for a free port (tests and tools); the server logs the port it got.
        int port = Integer.parseInt(s);
        return port >= 0 && port <= 65535;
    }

    /** The upstream URL; a path is refused because the forwarder sends the client's path as it is. */
    static String url(URI u) {
        String bad = "'" + u + "' ";
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            return bad + "is not an http:// or https:// URL (expected " + URL + ")";
        }
        if (u.getRawAuthority() == null || u.getHost() == null) {
            return bad + "has no valid host (expected " + URL + ")";
        }
        if (u.getRawUserInfo() != null) {
            return bad + "has user info, which would be sent nowhere (expected " + URL + ")";
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null) {
            return bad + "has a query or fragment (expected " + URL + ")";
        }
        if (u.getRawPath() != null && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/")) {
            return bad + "has a path; requests keep their own path (expected " + URL + ")";
        }
        if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65535)) {
            return bad + "has no valid port (expected " + URL + ")";
        }
        return null;
    }

    /** An auth service's URL: like a destination's, but with the path (and query) the service wants. */
    static String authUrl(URI u) {
        String bad = "'" + u + "' ";
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || u.getRawAuthority() == null || u.getHost() == null) {
            return bad + "is not an http:// or https:// URL with a host (expected " + AUTH_URL + ")";
        }
        if (u.getRawUserInfo() != null || u.getRawFragment() != null) {
            return bad + "has user info or a fragment, which would be sent nowhere (expected " + AUTH_URL + ")";
        }
        if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65535)) {
            return bad + "has no valid port (expected " + AUTH_URL + ")";
        }
        return null;
    }

    /** An HTTP/3 field-section limit: at least 1KiB (a browser's request), at most 1MiB (a bound on what one stream holds). */
    private static String fieldSectionSize(Object value) {
        long n = ((DataSize) value).bytes();
        return n >= 1024 && n <= 1024 * 1024 ? null : "found '" + value + "' (expected " + FIELD_SECTION + ")";
    }

    private static void protocols(YamlNode node, String path, ErrorList errors) {
        if (node instanceof YamlNode.Sequence seq && seq.items().isEmpty()) {
            errors.add(path, node.at(), "found an empty list (expected at least one of: http1, h2c, h2, h3)");
            return;
        }
        Set<String> seen = new HashSet<>();
        items(node, path, errors, v -> {
            String p = (String) v;
            if (!p.equals("http1") && !p.equals("h2c") && !p.equals("h2") && !p.equals("h3")) {
                return "unknown protocol '" + p + "' (expected " + PROTOCOLS + ")";
            }
            return seen.add(p) ? null : "'" + p + "' is listed twice (expected each protocol once)";
        });
    }

    /**
     * {@code h2} is negotiated by ALPN inside TLS; {@code h2c} is the cleartext prior-knowledge form;
     * {@code h3} is QUIC, TLS 1.3 always.
     */
    private static void listenerProtocolsAndTls(YamlNode.Mapping mapping, boolean tls, String path, ErrorList errors) {
        YamlNode.Entry entry = mapping.entries().get("protocols");
        YamlNode.Entry http3 = mapping.entries().get("http3");
        if (http3 != null && !listsH3(entry)) {
            errors.add(YamlPath.key(path, "http3"), http3.keyAt(),
                    "HTTP/3 settings on a listener that does not serve HTTP/3 (expected h3 in this listener's protocols)");
        }
        if (entry == null || !(entry.value() instanceof YamlNode.Sequence seq)) {
            return;
        }
        for (int i = 0; i < seq.items().size(); i++) {
            if (seq.items().get(i) instanceof YamlNode.Scalar s) {
                if (!tls && s.text().equals("h2")) {
                    errors.add(YamlPath.index(YamlPath.key(path, "protocols"), i), s.at(),
                            "'h2' needs tls on this listener (expected http1 or h2c without tls)");
                } else if (!tls && s.text().equals("h3")) {
                    errors.add(YamlPath.index(YamlPath.key(path, "protocols"), i), s.at(),
                            "'h3' is HTTP/3 over QUIC, which always runs TLS, but this listener has no tls (expected http1 or h2c without tls)");
                } else if (tls && s.text().equals("h2c")) {
                    errors.add(YamlPath.index(YamlPath.key(path, "protocols"), i), s.at(),
                            "'h2c' is cleartext HTTP/2 but this listener has tls (expected http1 or h2 with tls)");
                }
            }
        }
    }

    private static boolean listsH3(YamlNode.Entry protocols) {
        if (protocols != null && protocols.value() instanceof YamlNode.Sequence seq) {
            for (YamlNode item : seq.items()) {
                if (item instanceof YamlNode.Scalar s && s.text().equals("h3")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void headers(YamlNode node, String path, ErrorList errors) {
        if (node instanceof YamlNode.Mapping mapping) {
            for (YamlNode.Entry e : mapping.entries().values()) {
                String entryPath = YamlPath.key(path, e.key());
                String nameProblem = headerName(e.key());
                if (nameProblem != null) {
                    errors.add(entryPath, e.keyAt(), nameProblem);
                }
                if (e.value() instanceof YamlNode.Scalar s && !s.isNull()) {
                    single(s, s.text(), entryPath, errors, SpecChecks::headerValue);
                }
            }
        }
    }

    /** RFC 9110 section 5.1: a field name is a token. */
    static String headerName(Object value) {
        String s = (String) value;
        return HttpToken.isToken(s) ? null : "'" + s + "' is not a header name (expected letters, digits and !#$%&'*+-.^_`|~)";
    }

    /** RFC 9110 section 5.5: no CR, LF or NUL in a field value (they would split the response). */
    static String headerValue(Object value) {
        String s = (String) value;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xFF) {
                return "'" + escape(s) + "' has a line break, NUL or non-Latin-1 character (expected one line of header text)";
            }
        }
        return null;
    }

    /** The value with control characters written as escapes, so that a message stays on one line. */
    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7F) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    private static String location(Object value) {
        String s = (String) value;
        if (s.isEmpty() || s.indexOf(' ') >= 0) {
            return "'" + s + "' is not a URL or absolute path (expected e.g. https://www.example.test/new or /new)";
        }
        if (ValueTemplate.hasPlaceholder(s)) {
            try {
                ValueTemplate.compile(s);
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        return headerValue(s);
    }

    private static String absolutePath(Object value) {
        String s = (String) value;
        return s.startsWith("/") ? null : "'" + s + "' does not start with '/' (expected a path like /admin)";
    }

    /** Methods are case-sensitive (RFC 9110 section 9.1): {@code get} would never match a GET. */
    private static String method(Object value) {
        String s = (String) value;
        if (!HttpToken.isToken(s)) {
            return "'" + s + "' is not a method (expected a token like GET, HEAD, POST)";
        }
        String upper = s.toUpperCase(java.util.Locale.ROOT);
        return upper.equals(s) ? null
                : "'" + s + "' would never match: methods are case-sensitive (expected '" + upper + "')";
    }

    /** An empty needle is contained in every User-Agent and would deny every request. */
    private static String needle(Object value) {
        return ((String) value).isEmpty() ? "found an empty string, which matches every User-Agent (expected a substring like sqlmap)" : null;
    }

    private static String rate(Object value) {
        return RequestRate.parseOrNull((String) value) != null ? null
                : "found '" + value + "' (" + RequestRate.EXPECTED + ", at most 1000000000 per unit)";
    }

    /** Lettuce's URI form; the password may sit in the user info ({@code redis://:secret@host}), never echoed. */
    private static String redisUri(Object value) {
        String s = (String) value;
        try {
            URI uri = new URI(s);
            boolean ok = ("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme())) && uri.getHost() != null;
            return ok ? null : "'" + escape(io.paduraksa.policy.DistributedLimit.redacted(s)) + "' is not a Redis URI (expected " + REDIS + ")";
        } catch (java.net.URISyntaxException e) {
            return "found a value that is not a URI (expected " + REDIS + ")";
        }
    }

    private static String rateKey(Object value) {
        String s = (String) value;
        if (s.startsWith("header:")) {
            String name = s.substring("header:".length());
            return HttpToken.isToken(name) ? null : "'" + s + "' does not name a header (expected header:<Name>, like header:X-Api-Key)";
        }
        return oneOf(s, List.of("client_ip", "client_ip_and_host", "client_ip_and_route"))
                == null ? null : "unknown key '" + s + "' (expected " + RATE_KEY + ")";
    }

    /** Query names are compared as written after percent-decoding; an empty name or a separator would never match. */
    private static String queryName(Object value) {
        String s = (String) value;
        if (s.isEmpty() || s.indexOf('&') >= 0 || s.indexOf(';') >= 0 || s.indexOf('=') >= 0 || s.indexOf('#') >= 0) {
            return "'" + s + "' is not a query parameter name (expected a name without &, ;, = or #, like debug)";
        }
        return headerValue(s);
    }

    /** An empty value would match everything (prefix, contains) or is better said with {@code present}. */
    private static String ruleValue(Object value) {
        String s = (String) value;
        return s.isEmpty() ? "found an empty string (expected a non-empty value, or present: true/false)" : headerValue(s);
    }

    private static void methodList(YamlNode node, String path, ErrorList errors) {
        if (node instanceof YamlNode.Sequence seq && seq.items().isEmpty()) {
            errors.add(path, node.at(), "found an empty list (expected at least one method, like [TRACE, TRACK])");
            return;
        }
        items(node, path, errors, SpecChecks::method);
    }

    /** A rule looks at exactly one thing; a header or query rule says exactly how it matches; a method rule says nothing more. */
    private static void requestRule(YamlNode.Mapping mapping, List<String> keys, String path, ErrorList errors) {
        if (!keys.containsAll(mapping.entries().keySet())) {
            return; // an unknown key was reported; a misspelt match key would only be reported twice
        }
        List<String> subjects = present(mapping, RULE_SUBJECTS);
        List<String> matches = present(mapping, RULE_MATCHES);
        if (subjects.size() != 1) {
            errors.add(path, mapping.at(), (subjects.isEmpty() ? "a rule needs what it looks at" : "a rule looks at one thing, found " + subjects)
                    + " (expected exactly one of: header, query, method)");
        } else if (subjects.get(0).equals("method")) {
            if (!matches.isEmpty() || mapping.entries().containsKey("case_sensitive")) {
                YamlNode.Entry extra = mapping.entries().get(matches.isEmpty() ? "case_sensitive" : matches.get(0));
                errors.add(YamlPath.key(path, extra.key()), extra.keyAt(), "a method rule lists methods only (expected {method: [TRACE, TRACK]})");
            }
        } else if (matches.size() != 1) {
            errors.add(path, mapping.at(), (matches.isEmpty() ? "a " + subjects.get(0) + " rule needs how it matches" : "found " + matches)
                    + " (expected exactly one of: present, exact, prefix, contains)");
        } else if (matches.get(0).equals("present") && mapping.entries().containsKey("case_sensitive")) {
            YamlNode.Entry extra = mapping.entries().get("case_sensitive");
            errors.add(YamlPath.key(path, extra.key()), extra.keyAt(), "case_sensitive has no meaning with present (expected exact, prefix or contains)");
        }
    }

    private static List<String> present(YamlNode.Mapping mapping, List<String> keys) {
        List<String> found = new java.util.ArrayList<>();
        for (String k : keys) {
            YamlNode.Entry e = mapping.entries().get(k);
            if (e != null && !(e.value() instanceof YamlNode.Scalar s && s.isNull())) {
                found.add(k);
            }
        }
        return found;
    }

    private static void requestPolicyNotEmpty(YamlNode.Mapping mapping, String path, ErrorList errors) {
        if (present(mapping, List.of("deny", "allow", "max_body", "bot_signal")).isEmpty()) {
            errors.add(path, mapping.at(), "a request policy checks nothing (expected at least one of: deny, allow, max_body, bot_signal)");
        }
    }

    private static void notEmptyList(YamlNode node, String path, ErrorList errors, String expected) {
        if (node instanceof YamlNode.Sequence seq && seq.items().isEmpty()) {
            errors.add(path, node.at(), "found an empty list (expected " + expected + ")");
        }
    }

    /** Key ids travel in cookies and URLs (see {@code ChallengeKey.isId}). */
    private static String keyId(Object value) {
        String s = (String) value;
        return io.paduraksa.policy.challenge.ChallengeKey.isId(s) ? null
                : "'" + escape(s) + "' is not a key id (expected 1 to 16 letters, digits, '-' or '_')";
    }

    /** Two letters (or T1, Cloudflare's Tor code); case is folded when compiled. */
    private static String countryCode(Object value) {
        String s = (String) value;
        return io.paduraksa.net.CountryCodes.index(s, 0, s.length()) != 0 ? null
                : "'" + escape(s) + "' is not a country code (expected " + COUNTRY_CODE + ")";
    }

    private static void oneSecret(YamlNode.Mapping mapping, String path, ErrorList errors) {
        List<String> found = present(mapping, List.of("secret", "secret_file"));
        if (found.size() != 1) {
            errors.add(path, mapping.at(), (found.isEmpty() ? "a key needs its secret" : "a key has one secret, found both")
                    + " (expected exactly one of: secret, secret_file)");
        }
    }

    private static void countryPolicyNotEmpty(YamlNode.Mapping mapping, String path, ErrorList errors) {
        if (present(mapping, List.of("allow", "deny")).isEmpty()) {
            errors.add(path, mapping.at(), "a country policy checks nothing (expected allow or deny, a list of " + COUNTRY_CODE + ")");
        }
    }
}
