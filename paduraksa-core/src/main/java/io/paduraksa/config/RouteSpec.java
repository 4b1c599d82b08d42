package io.paduraksa.config;

import java.util.List;

/**
 * A route: a segment-aware path prefix ({@code /admin} matches {@code /admin} and
 * {@code /admin/x}, not {@code /administrator}), its extra policies and exactly one action.
 * Routes are tried in the order written; the first match wins. A {@code forward} route may cache
 * its responses ({@code cache}, null: no cache).
 */
public record RouteSpec(
        String path, List<String> policies, RespondSpec respond, RedirectSpec redirect, String forward, Boolean drop,
        RouteCacheSpec cache) {
    public RouteSpec {
        path = path == null ? "/" : path;
        policies = policies == null ? List.of() : List.copyOf(policies);
        drop = drop != null && drop;
    }

    /** The route's action as the shape shared with policies and {@code default}. */
    public ActionSpec action() {
        return new ActionSpec(respond, redirect, forward, drop);
    }
}
