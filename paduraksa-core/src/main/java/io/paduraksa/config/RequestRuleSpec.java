package io.paduraksa.config;

import java.util.List;

/**
 * One rule of a {@code type: request} policy: what it looks at (exactly one of {@code header},
 * {@code query} or {@code method}) and, for a header or query parameter, how it matches (exactly one
 * of {@code present}, {@code exact}, {@code prefix}, {@code contains}). {@code case_sensitive} is
 * null when not written: the compiler then folds ASCII case in {@code deny} rules and not in
 * {@code allow} rules, so that case games can only cause a denial, never a bypass.
 */
public record RequestRuleSpec(String header, String query, List<String> method, Boolean present, String exact,
        String prefix, String contains, Boolean caseSensitive) {
    public RequestRuleSpec {
        method = method == null ? null : List.copyOf(method);
    }
}
