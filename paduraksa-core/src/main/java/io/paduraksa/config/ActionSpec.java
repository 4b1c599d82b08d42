package io.paduraksa.config;

/**
 * What to do with a request: exactly one of {@code respond}, {@code redirect}, {@code forward}
 * (a cluster name) or {@code drop: true}. Used by routes (inline), by policy denials and by
 * {@code default} (unknown hosts). The compiler checks that exactly one is set.
 */
public record ActionSpec(RespondSpec respond, RedirectSpec redirect, String forward, Boolean drop) {
    public static final ActionSpec DEFAULT_DENY = new ActionSpec(new RespondSpec(403, null, null, null, null), null, null, null);
    public static final ActionSpec DEFAULT_METHOD_NOT_ALLOWED =
            new ActionSpec(new RespondSpec(405, null, null, null, null), null, null, null);
    public static final ActionSpec DEFAULT_UNKNOWN_HOST =
            new ActionSpec(new RespondSpec(421, null, null, null, null), null, null, null);

    public ActionSpec {
        drop = drop != null && drop;
    }

    /** How many of the four actions are set (valid specs have exactly one). */
    public int actionCount() {
        return (respond != null ? 1 : 0) + (redirect != null ? 1 : 0) + (forward != null ? 1 : 0) + (drop ? 1 : 0);
    }
}
