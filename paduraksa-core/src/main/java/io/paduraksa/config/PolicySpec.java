package io.paduraksa.config;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

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
}
