package io.paduraksa.gate;

import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.respond.ValueTemplate;
import io.paduraksa.route.PathNormalizer;
import io.paduraksa.snapshot.CompiledAction;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The synchronous gate every request runs first, on its connection's event loop:
 * snapshot read (one volatile read), state reset, client IP, host lookup, path normalisation,
 * route match, host then route policies, decision. It allocates nothing; the outcome's details
 * (answer, cluster, matched host and route) are left in the {@link RequestState}.
 */
public final class Gate {
    private final SnapshotStore store;

    public Gate(SnapshotStore store) {
        this.store = store;
    }

    public SnapshotStore store() {
        return store;
    }

    /** Decides one request. */
    public GateOutcome run(RequestView view, RequestState state) {
        return run(view, state, null);
    }

    /** Decides one request, reporting each step to {@code trace} when it is not null. */
    public GateOutcome run(RequestView view, RequestState state, GateTrace trace) {
        Snapshot snapshot = store.current();
        state.reset(snapshot, view, ThreadLocalRandom.current().nextLong());
        resolveClientIp(snapshot, view, state, trace);
        CharSequence authority = view.authority();
        CompiledHost host = authority == null ? null : snapshot.hosts().find(authority);
        if (trace != null) {
            trace.host(authority, host);
        }
        if (host == null) {
            return unknownHost(snapshot, view, state, trace);
        }
        state.host(host);
        int status = normalisePath(snapshot, view, state, trace);
        if (status != 0) {
            return respondStatus(snapshot, status, state, trace);
        }
        CompiledRoute route = host.routes().match(state.path(), state.pathLength());
        if (trace != null) {
            trace.route(route);
        }
        if (route == null) {
            return respondStatus(snapshot, 404, state, trace);
        }
        state.route(route);
        return finish(runPolicies(host, route, 0, state, trace), state, trace);
    }

    /**
     * Continues a request after the policy that returned NEEDS_ASYNC has decided (its slow path
     * ran on the same event loop). Runs the rest of the chain and the route's action.
     */
    public GateOutcome resume(RequestState state, PolicyDecision decision, GateTrace trace) {
        int index = state.asyncPolicy();
        GateOutcome outcome = fromDecision(decision, state.decidingPolicy(), index, state);
        if (outcome == null) {
            outcome = runPolicies(state.host(), state.route(), index + 1, state, trace);
        }
        return finish(outcome, state, trace);
    }

    /**
     * The default action for a host no entry names. A forward needs the normalised path (the
     * upstream request line is written from it), so it is normalised first, as for a known host;
     * an answer or a drop does not look at the path.
     */
    private static GateOutcome unknownHost(Snapshot snapshot, RequestView view, RequestState state, GateTrace trace) {
        CompiledAction action = snapshot.unknownHost();
        if (action.kind() == CompiledAction.Kind.FORWARD || action.kind() == CompiledAction.Kind.RESPOND
                && action.response().headerTemplate() != null && action.response().headerTemplate().needsPath()) {
            int status = normalisePath(snapshot, view, state, trace);
            if (status != 0) {
                return respondStatus(snapshot, status, state, trace);
            }
        }
        return finish(act(action, state), state, trace);
    }

    private static void resolveClientIp(Snapshot snapshot, RequestView view, RequestState state, GateTrace trace) {
        ClientInfo client = view.client();
        long high = client.ipHigh();
        long low = client.ipLow();
        boolean fromHeader = false;
        if (client.isTrustedProxy()) {
            CharSequence value = view.header(snapshot.clientIpHeader());
            long[] ip = state.ipScratch();
            if (value != null && ClientIpMemo.current().parse(value, ip)) {
                high = ip[0];
                low = ip[1];
                fromHeader = true;
            }
        }
        state.clientIp(high, low, fromHeader);
        if (trace != null) {
            trace.clientIp(high, low, fromHeader);
        }
    }

    /** Normalises the path into the state; returns 0, or the status to answer (400, 414). */
    private static int normalisePath(Snapshot snapshot, RequestView view, RequestState state, GateTrace trace) {
        CharSequence target = view.target();
        int end = target.length();
        int length = PathNormalizer.copyIfNormalPath(target, state.pathBuffer());
        int pathEnd = length >= 0 ? length : PathNormalizer.pathEnd(target, 0, end);
        if (pathEnd < end) {
            state.query(pathEnd + 1, end);
        }
        if (length < 0) {
            length = PathNormalizer.normalize(target, 0, pathEnd, state.pathBuffer(), snapshot.normalizeOptions());
        }
        if (trace != null) {
            trace.path(state.pathBuffer(), length);
        }
        if (length < 0) {
            return length == PathNormalizer.REJECT_TOO_LONG ? 414 : 400;
        }
        state.pathLength(length);
        return 0;
    }

    /** Runs the combined chain (host policies, then the route's) from position {@code start}. */
    private static GateOutcome runPolicies(CompiledHost host, CompiledRoute route, int start, RequestState state, GateTrace trace) {
        RequestPolicy[] hostPolicies = host.policies();
        RequestPolicy[] routePolicies = route.policies();
        int hostCount = hostPolicies.length;
        int total = hostCount + routePolicies.length;
        for (int i = start; i < total; i++) {
            boolean hostLevel = i < hostCount;
            RequestPolicy policy = hostLevel ? hostPolicies[i] : routePolicies[i - hostCount];
            PolicyDecision decision = policy.evaluate(state);
            if (trace != null) {
                trace.policy(policy, hostLevel, decision);
            }
            GateOutcome outcome = fromDecision(decision, policy, i, state);
            if (outcome != null) {
                return outcome;
            }
        }
        return act(route.action(), state);
    }

    /** The outcome a decision forces, or null to go on with the chain. */
    private static GateOutcome fromDecision(PolicyDecision decision, RequestPolicy policy, int index, RequestState state) {
        PolicyDecision.Action action = decision.action();
        if (action == PolicyDecision.Action.CONTINUE) {
            return null;
        }
        state.decidedBy(policy, index);
        switch (action) {
            case RESPOND:
                state.response(decision.response());
                return GateOutcome.RESPOND;
            case CHALLENGE:
                state.response(decision.response());
                return GateOutcome.CHALLENGE;
            case DROP:
                return GateOutcome.DROP;
            default:
                return GateOutcome.NEEDS_ASYNC;
        }
    }

    private static GateOutcome act(CompiledAction action, RequestState state) {
        switch (action.kind()) {
            case RESPOND:
                state.response(action.response());
                return GateOutcome.RESPOND;
            case FORWARD:
                state.cluster(action.cluster());
                return GateOutcome.FORWARD;
            default:
                return GateOutcome.DROP;
        }
    }

    private static GateOutcome respondStatus(Snapshot snapshot, int status, RequestState state, GateTrace trace) {
        state.response(snapshot.statusAnswer(status));
        return finish(GateOutcome.RESPOND, state, trace);
    }

    private static GateOutcome finish(GateOutcome outcome, RequestState state, GateTrace trace) {
        if (outcome == GateOutcome.RESPOND) {
            ValueTemplate template = state.response().headerTemplate();
            if (template != null && !template.expands(state)) {
                // A redirect built from the request whose host is no valid name: never echo it.
                state.response(state.snapshot().statusAnswer(400));
            }
        }
        if (trace != null) {
            trace.outcome(outcome, state);
        }
        return outcome;
    }
}
