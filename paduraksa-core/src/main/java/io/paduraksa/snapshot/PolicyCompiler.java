package io.paduraksa.snapshot;

import io.paduraksa.config.ActionSpec;
import io.paduraksa.config.PolicySpec;
import io.paduraksa.config.RequestRate;
import io.paduraksa.config.RequestRuleSpec;
import io.paduraksa.config.RespondSpec;
import io.paduraksa.net.IpRangeSet;
import io.paduraksa.policy.DistributedLimit;
import io.paduraksa.policy.ForwardAuthPolicy;
import io.paduraksa.policy.IpPolicy;
import io.paduraksa.policy.MethodPolicy;
import io.paduraksa.policy.PathPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RateLimitPolicy;
import io.paduraksa.policy.RateLimiter;
import io.paduraksa.policy.RateLimiters;
import io.paduraksa.policy.RequestRule;
import io.paduraksa.policy.RequestRulesPolicy;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.policy.UserAgentPolicy;
import io.paduraksa.policy.CountryPolicy;
import io.paduraksa.policy.attack.AttackExclusion;
import io.paduraksa.policy.attack.AttackRules;
import io.paduraksa.policy.attack.AttacksPolicy;
import io.paduraksa.policy.challenge.ChallengeKey;
import io.paduraksa.policy.challenge.ChallengePage;
import io.paduraksa.policy.challenge.ChallengePolicy;
import io.paduraksa.policy.challenge.ChallengeToken;
import io.paduraksa.policy.challenge.ClearanceCookie;
import io.paduraksa.policy.challenge.ClientBinding;
import io.paduraksa.config.ChallengeKeySpec;
import io.paduraksa.net.CountryDatabase;
import io.paduraksa.respond.PrecomputedResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Compiles the named policies of {@code policies:}, with their denial actions. Compile time only. */
final class PolicyCompiler {
    private final CompileContext context;
    private final ActionCompiler actions;
    /** The one country database of this configuration (a connection is looked up once, before its host is known). */
    private CountryDatabase countries;
    private String countriesPath;

    PolicyCompiler(CompileContext context, ActionCompiler actions) {
        this.context = context;
        this.actions = actions;
    }


    /** Compiles every named policy; the ones with errors are left out (and reported). */
    Map<String, RequestPolicy> compile(Map<String, PolicySpec> specs) {
        Map<String, RequestPolicy> policies = new LinkedHashMap<>();
        for (Map.Entry<String, PolicySpec> e : specs.entrySet()) {
            String path = "policies." + e.getKey();
            RequestPolicy p = policy(e.getKey(), e.getValue(), path);
            if (p != null) {
                policies.put(e.getKey(), p);
            }
        }
        return policies;
    }

    private RequestPolicy policy(String name, PolicySpec spec, String path) {
        String actionPath = path + (spec instanceof PolicySpec.Challenge ? ".non_browser" : ".action");
        CompiledAction denial = actions.action(spec.action(), actionPath, false);
        PolicyDecision denied = denial == null ? PolicyDecision.DROP : decision(denial);
        try {
            return switch (spec) {
                case PolicySpec.Ip ip -> ipPolicy(name, ip, path, denied);
                case PolicySpec.UserAgent ua -> userAgentPolicy(name, ua, path, denied);
                case PolicySpec.PathPrefix pp -> pathPolicy(name, pp, path, denied);
                case PolicySpec.Method m -> methodPolicy(name, m, path, denied);
                case PolicySpec.RateLimit rl -> rateLimitPolicy(name, rl, path, denied);
                case PolicySpec.Request r -> requestPolicy(name, r, path, denied);
                case PolicySpec.Challenge c -> challengePolicy(name, c, path, denied);
                case PolicySpec.Country c -> countryPolicy(name, c, path, denied);
                case PolicySpec.ForwardAuth fa -> forwardAuthPolicy(name, fa, path, denied);
                case PolicySpec.Attacks a -> attacksPolicy(name, a, path, denied);
            };
        } catch (IllegalArgumentException e) {
            context.error(path, e.getMessage());
            return null;
        }
    }

    private RequestPolicy forwardAuthPolicy(String name, PolicySpec.ForwardAuth fa, String path, PolicyDecision denied) {
        PolicySpec.ForwardAuth.Cache cache = fa.cache();
        List<String> key = cache == null ? null : cache.key() != null ? cache.key() : fa.forwardHeaders();
        if (key != null && key.isEmpty()) {
            // One decision for every client would let the first allowed client's answer admit everyone.
            context.error(path + ".cache.key", "an empty key would share one decision between all clients (expected headers such as [Cookie, Authorization])");
            return null;
        }
        PolicyDecision unavailable = fa.whenUnavailable().equals("allow") ? PolicyDecision.CONTINUE : denied;
        Path ca = null;
        if (fa.ca() != null) {
            ca = context.resolve(fa.ca());
            if (!"https".equalsIgnoreCase(fa.url().getScheme())) {
                context.error(path + ".ca", "ca is set but the url is not https:// (expected an https:// url, or no ca)");
            } else if (!Files.isRegularFile(ca) || !Files.isReadable(ca)) {
                context.error(path + ".ca", "cannot read '" + ca + "' (expected a PEM file of CA certificates, relative to the configuration file)");
            }
        }
        return new ForwardAuthPolicy(name, fa.url(), fa.method(), fa.forwardHeaders(), fa.copyResponseHeaders(), key,
                cache == null ? 0 : cache.ttl().toNanos(), cache == null ? 0 : cache.maxEntries(),
                fa.timeout().toMillis(), unavailable, ca);
    }

    /** Attack detection; exclusions must name rules or groups that exist, so a typo cannot silently exclude nothing. */
    private RequestPolicy attacksPolicy(String name, PolicySpec.Attacks a, String path, PolicyDecision denied) {
        PolicySpec.Attacks.Inspect inspect = a.inspect();
        boolean ok = true;
        if (!inspect.path() && !inspect.query() && !inspect.cookies() && inspect.headers().isEmpty() && !inspect.allHeaders()
                && inspect.body() == null) {
            context.error(path + ".inspect",
                    "an attacks policy that inspects nothing (expected at least one of: path, query, cookies, headers, all_headers, body)");
            ok = false;
        }
        List<AttackExclusion> exclusions = new ArrayList<>();
        for (int i = 0; i < a.exclusions().size(); i++) {
            PolicySpec.Attacks.Exclusion e = a.exclusions().get(i);
            for (int k = 0; k < e.rules().size(); k++) {
                int id = e.rules().get(k);
                if (AttackRules.byId(id) == null && !AttackRules.isGroup(id)) {
                    context.error(path + ".exclusions[" + i + "].rules[" + k + "]", "no rule or group " + id
                            + " (expected a rule id like 942100 or a group like 942; see docs/security.md)");
                    ok = false;
                }
            }
            exclusions.add(new AttackExclusion(e.rules(), e.arguments(), e.paths()));
        }
        if (!ok) {
            return null;
        }
        PolicySpec.Attacks.BodyInspect body = inspect.body();
        return new AttacksPolicy(name, a.paranoia(), a.threshold(), inspect.path(), inspect.query(), inspect.cookies(),
                inspect.headers(), inspect.allHeaders(), a.detectOnly(), exclusions, denied, body == null ? 0 : body.max().bytes(),
                body != null && body.onOversize().equals("deny"), body == null ? 0 : body.timeout().toNanos(),
                body == null ? 0 : body.fileBytes().bytes());
    }

    private RequestPolicy ipPolicy(String name, PolicySpec.Ip ip, String path, PolicyDecision denied) {
        if (ip.allow().isEmpty() && ip.deny().isEmpty()) {
            context.error(path, "an ip policy needs allow or deny (expected a list of CIDRs in at least one)");
            return null;
        }
        IpRangeSet allow = ip.allow().isEmpty() ? null : context.ranges(ip.allow(), path + ".allow");
        IpRangeSet deny = ip.deny().isEmpty() ? null : context.ranges(ip.deny(), path + ".deny");
        return new IpPolicy(name, allow, deny, denied);
    }

    private RequestPolicy userAgentPolicy(String name, PolicySpec.UserAgent ua, String path, PolicyDecision denied) {
        if (ua.deny().isEmpty() && !ua.denyEmpty()) {
            context.error(path + ".deny", "a user_agent policy needs needles (expected a non-empty list, or deny_empty: true)");
            return null;
        }
        for (int i = 0; i < ua.deny().size(); i++) {
            if (ua.deny().get(i) == null || ua.deny().get(i).isEmpty()) {
                context.error(path + ".deny[" + i + "]", "empty needle would match every user agent (expected a non-empty substring)");
                return null;
            }
        }
        return new UserAgentPolicy(name, ua.deny(), ua.denyEmpty(), denied);
    }

    private RequestPolicy pathPolicy(String name, PolicySpec.PathPrefix pp, String path, PolicyDecision denied) {
        if (pp.allow().isEmpty() && pp.deny().isEmpty()) {
            context.error(path, "a path policy needs allow or deny (expected a list of path prefixes in at least one)");
            return null;
        }
        boolean ok = checkPrefixes(pp.allow(), path + ".allow") & checkPrefixes(pp.deny(), path + ".deny");
        return ok ? new PathPolicy(name, pp.allow(), pp.deny(), denied) : null;
    }

    private boolean checkPrefixes(List<String> prefixes, String path) {
        boolean ok = true;
        for (int i = 0; i < prefixes.size(); i++) {
            String problem = CompileContext.prefixProblem(prefixes.get(i));
            if (problem != null) {
                context.error(path + "[" + i + "]", problem);
                ok = false;
            }
        }
        return ok;
    }

    private RequestPolicy methodPolicy(String name, PolicySpec.Method m, String path, PolicyDecision denied) {
        if (m.allow().isEmpty()) {
            context.error(path + ".allow", "a method policy needs allowed methods (expected a list such as [GET, HEAD])");
            return null;
        }
        return new MethodPolicy(name, m.allow(), denied);
    }

    /**
     * One limiter per policy, shared by every host and route that lists it, and kept across a
     * reload while its settings are unchanged (see {@link RateLimiters}).
     */
    private RequestPolicy rateLimitPolicy(String name, PolicySpec.RateLimit rl, String path, PolicyDecision limited) {
        RequestRate rate = RequestRate.parseOrNull(rl.rate());
        if (rate == null) {
            context.error(path + ".rate", "found '" + rl.rate() + "' (expected a rate like 10/s, 600/m or 5000/h)");
            return null;
        }
        PolicySpec.RateLimit.Distributed d = rl.distributed();
        DistributedLimit distributed = d == null ? null : new DistributedLimit(d.redis(), d.syncEvery().toNanos(),
                d.share().fraction(), d.whenUnreachable().equals("deny"), d.keyPrefix());
        RateLimiter.Settings settings = new RateLimiter.Settings(rate.intervalNanos(), rl.burst(), rl.maxKeys(),
                rl.whenFull().equals("allow"), rl.idleAfter().toNanos(), distributed);
        RateLimitPolicy.Key key = RateLimitPolicy.Key.of(rl.key());
        String header = key == RateLimitPolicy.Key.HEADER ? rl.key().substring("header:".length()) : null;
        RateLimiter limiter = RateLimiters.shared(name, key == RateLimitPolicy.Key.HEADER ? "header:" + header.toLowerCase(java.util.Locale.ROOT) : rl.key(), settings);
        return new RateLimitPolicy(name, limiter, key, header, limited, rl.headers());
    }

    private RequestPolicy requestPolicy(String name, PolicySpec.Request r, String path, PolicyDecision denied) {
        List<RequestRule> deny = rules(r.deny(), path + ".deny", true);
        List<RequestRule> allow = rules(r.allow(), path + ".allow", false);
        if (deny == null || allow == null) {
            return null;
        }
        PolicyDecision tooLarge = denied;
        if (r.maxBody() != null) {
            ActionSpec payloadTooLarge = new ActionSpec(new RespondSpec(413, null, null, null, null), null, null, null);
            CompiledAction answer = actions.action(payloadTooLarge, path + ".max_body", false);
            tooLarge = answer == null ? PolicyDecision.DROP : decision(answer);
        }
        return new RequestRulesPolicy(name, deny, allow, r.maxBody() == null ? -1 : r.maxBody().bytes(), r.botSignal(), denied, tooLarge);
    }

    /** Deny rules fold ASCII case unless told otherwise, allow rules do not: case games can only deny. */
    private List<RequestRule> rules(List<RequestRuleSpec> specs, String path, boolean denyList) {
        List<RequestRule> rules = new ArrayList<>(specs.size());
        boolean ok = true;
        for (int i = 0; i < specs.size(); i++) {
            try {
                rules.add(rule(specs.get(i), denyList));
            } catch (IllegalArgumentException e) {
                context.error(path + "[" + i + "]", e.getMessage());
                ok = false;
            }
        }
        return ok ? rules : null;
    }

    private static RequestRule rule(RequestRuleSpec s, boolean denyList) {
        boolean ignoreCase = s.caseSensitive() == null ? denyList : !s.caseSensitive();
        if (s.method() != null) {
            return RequestRule.method(s.method(), ignoreCase);
        }
        RequestRule.Match match;
        String value;
        if (s.present() != null) {
            match = s.present() ? RequestRule.Match.PRESENT : RequestRule.Match.ABSENT;
            value = null;
        } else if (s.exact() != null) {
            match = RequestRule.Match.EXACT;
            value = s.exact();
        } else if (s.prefix() != null) {
            match = RequestRule.Match.PREFIX;
            value = s.prefix();
        } else {
            match = RequestRule.Match.CONTAINS;
            value = s.contains();
        }
        return s.header() != null ? RequestRule.header(s.header(), match, value, ignoreCase)
                : RequestRule.query(s.query(), match, value, ignoreCase);
    }

    /**
     * The challenge: keys (the first signs), cookie, token and the page, whose token slot is
     * filled per request. Secrets from files are read here, off the event loops.
     */
    private RequestPolicy challengePolicy(String name, PolicySpec.Challenge c, String path, PolicyDecision refused) {
        ChallengeKey[] keys = keys(c.keys(), path + ".keys");
        if (keys == null) {
            return null;
        }
        ClientBinding binding = c.bind().equals("prefix") ? new ClientBinding(c.prefixV4(), c.prefixV6()) : ClientBinding.IP;
        ClearanceCookie cookie = new ClearanceCookie(c.cookie(), keys, c.ttl().toSeconds(), binding, name, c.bindHost());
        ChallengeToken token = new ChallengeToken(keys, binding, c.difficulty(), c.solveWithin().toSeconds(), ChallengeToken.SYSTEM, name);
        PrecomputedResponse page = actions.own("challenge:" + name, path, PrecomputedResponse.builder(403)
                .header("Content-Type", "text/html; charset=utf-8")
                .header("Cache-Control", "no-store")
                .header("X-Robots-Tag", "noindex")
                .body(ChallengePage.html(c.difficulty()), ChallengePage.TOKEN_VARIABLE, token));
        if (page == null) {
            return null;
        }
        return new ChallengePolicy(name, cookie, token, PolicyDecision.challenge(page), refused, ChallengeToken.SYSTEM, actions.alloc());
    }

    private ChallengeKey[] keys(List<ChallengeKeySpec> specs, String path) {
        ChallengeKey[] keys = new ChallengeKey[specs.size()];
        Set<String> ids = new HashSet<>();
        boolean ok = true;
        for (int i = 0; i < specs.size(); i++) {
            ChallengeKeySpec k = specs.get(i);
            String keyPath = path + "[" + i + "]";
            if (!ids.add(k.id())) {
                context.error(keyPath + ".id", "key id '" + k.id() + "' is listed twice (expected each id once)");
                ok = false;
                continue;
            }
            byte[] secret = secret(k, keyPath);
            if (secret == null) {
                ok = false;
                continue;
            }
            try {
                keys[i] = new ChallengeKey(k.id(), secret);
            } catch (IllegalArgumentException e) {
                context.error(keyPath + (k.secretFile() != null ? ".secret_file" : ".secret"), e.getMessage());
                ok = false;
            }
        }
        return ok ? keys : null;
    }

    private byte[] secret(ChallengeKeySpec k, String keyPath) {
        if (k.secret() != null) {
            return ChallengeKey.secretBytes(k.secret());
        }
        Path file = context.resolve(k.secretFile());
        try {
            return ChallengeKey.secretBytes(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            context.error(keyPath + ".secret_file", "cannot read '" + file + "': " + e.getMessage() + " (expected a readable file holding the secret)");
            return null;
        }
    }

    /** Country rules; a named database is opened here, once per configuration. */
    private RequestPolicy countryPolicy(String name, PolicySpec.Country c, String path, PolicyDecision denied) {
        CountryDatabase database = null;
        if (c.database() != null) {
            database = database(c.database(), path + ".database");
            if (database == null) {
                return null;
            }
        }
        boolean denyUnknown = c.unknown() != null ? c.unknown().equals("deny") : !c.allow().isEmpty();
        return new CountryPolicy(name, c.allow(), c.deny(), denyUnknown, c.header(), database, denied);
    }

    private CountryDatabase database(String configured, String path) {
        Path file = context.resolve(configured).toAbsolutePath().normalize();
        if (countries != null) {
            if (countriesPath.equals(file.toString())) {
                return countries;
            }
            context.error(path, "a second country database '" + configured + "' (expected every country policy to name the same file, "
                    + countriesPath + ": a connection's country is looked up once, before its host is known)");
            return null;
        }
        try {
            countries = CountryDatabase.open(file);
            countriesPath = file.toString();
            return countries;
        } catch (IOException | RuntimeException e) {
            context.error(path, "cannot open '" + file + "' as a MaxMind database: " + e.getMessage()
                    + " (expected a country .mmdb such as GeoLite2-Country.mmdb)");
            return null;
        }
    }

    private static PolicyDecision decision(CompiledAction a) {
        return switch (a.kind()) {
            case RESPOND -> PolicyDecision.respond(a.response());
            case DROP -> PolicyDecision.DROP;
            case FORWARD -> throw new IllegalStateException("policy actions never forward");
        };
    }
}
