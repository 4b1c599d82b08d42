package io.paduraksa.snapshot;

import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.route.RouteTable;
import java.util.List;

/**
 * A host entry: the names it was configured with, its policy chain, its ordered routes, its
 * response-header rules and, when it has {@code error_pages} of its own, its versions of the
 * snapshot's error-page answers.
 */
public final class CompiledHost {
    private final int index;
    private final List<String> names;
    private final RequestPolicy[] policies;
    private final RouteTable<CompiledRoute> routes;
    private final ResponseHeaderRules responseHeaders;
    /** By {@link PrecomputedResponse#errorPageSlot()}; null when the host has no error pages of its own. */
    private final PrecomputedResponse[] pageAnswers;

    CompiledHost(int index, List<String> names, RequestPolicy[] policies, RouteTable<CompiledRoute> routes,
            ResponseHeaderRules responseHeaders, PrecomputedResponse[] pageAnswers) {
        this.index = index;
        this.names = List.copyOf(names);
        this.policies = policies;
        this.routes = routes;
        this.responseHeaders = responseHeaders;
        this.pageAnswers = pageAnswers;
    }

    /** Position in the file ({@code hosts[index]}). */
    public int index() {
        return index;
    }

    public List<String> names() {
        return names;
    }

    /** Policies every request to this host runs, before the route's. Do not modify. */
    public RequestPolicy[] policies() {
        return policies;
    }

    public RouteTable<CompiledRoute> routes() {
        return routes;
    }

    /** Response-header transforms for responses forwarded for this host (its own merged over the defaults). */
    public ResponseHeaderRules responseHeaders() {
        return responseHeaders;
    }

    /**
     * The answer this host sends for {@code answer}: its own version when {@code answer} is an
     * error page and the host has {@code error_pages} of its own, else {@code answer} itself (also
     * null). Per request: a field read and an array load, 0 B.
     */
    public PrecomputedResponse answer(PrecomputedResponse answer) {
        PrecomputedResponse[] own = pageAnswers;
        if (own == null || answer == null) {
            return answer;
        }
        int slot = answer.errorPageSlot();
        return slot < 0 ? answer : own[slot];
    }

    @Override
    public String toString() {
        return "hosts[" + index + "] " + names;
    }
}
