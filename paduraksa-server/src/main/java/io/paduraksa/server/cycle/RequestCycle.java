package io.paduraksa.server.cycle;

import io.paduraksa.gate.ClientInfo;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.gate.RequestState;
import io.paduraksa.gate.RequestView;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.ops.Metrics;
import io.netty.buffer.ByteBuf;
import io.paduraksa.policy.AsyncPolicy;
import io.paduraksa.policy.BodyPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.proxy.TraceParent;
import io.paduraksa.respond.PrecomputedResponse;

/**
 * The one request cycle every protocol uses, one per listener: run the gate (metered when a
 * {@link GateMeter} is installed), dispatch its outcome to the protocol's {@link ProtocolExchange}
 * (answer, drop, forward, or wait for an asynchronous policy and resume), count the request and
 * decide what its access-log line says. Protocol handlers only turn bytes into a {@link RequestView}
 * and carry out what the cycle tells them.
 *
 * <p>Per request on an event loop: holds no per-request state (it is in the exchange's
 * {@link RequestState}), allocates nothing on the synchronous path. The asynchronous path (a
 * policy's I/O) allocates freely.
 */
public final class RequestCycle implements AsyncPolicy.Decided {
    private final ListenerServices services;

    RequestCycle(ListenerServices services) {
        this.services = services;
    }

    /** When a request's head arrived, for its access-log line: 0 when the log is off (no clock read). */
    public long startNanos() {
        return services.accessLog() == null ? 0 : System.nanoTime();
    }

    /** Runs the gate over the request and dispatches its outcome. */
    public void run(RequestView view, ProtocolExchange exchange) {
        RequestState state = exchange.state();
        GateMeter meter = services.meter();
        long before = meter == null ? 0 : meter.before();
        GateOutcome outcome = services.gate().run(view, state);
        if (meter != null) {
            meter.after(before);
        }
        exchange.logDecision(AccessLog.decision(outcome, state.response() == null ? 0 : state.response().status()));
        dispatch(outcome, exchange);
    }

    /**
     * Answers a request refused before the gate (malformed, a refused method or target, a limit, a
     * timeout) with the current snapshot's answer for {@code status}, counted as refused.
     */
    public void refuse(ProtocolExchange exchange, int status) {
        exchange.logDecision(AccessLog.REFUSED);
        Metrics m = services.metrics();
        if (m != null) {
            m.refused(services.listener(), status);
        }
        exchange.writeAnswer(services.gate().store().current().statusAnswer(status));
    }

    private void dispatch(GateOutcome outcome, ProtocolExchange exchange) {
        switch (outcome) {
            case RESPOND, CHALLENGE -> {
                PrecomputedResponse response = exchange.state().response();
                count(exchange.state(), outcome, response.status());
                exchange.writeAnswer(response);
            }
            case FORWARD -> exchange.forward(); // counted when its status is known (forwarded)
            case DROP -> {
                count(exchange.state(), outcome, 0);
                exchange.drop();
            }
            default -> awaitPolicy(exchange);
        }
    }

    /** Counts a request the gate decided (status 0: dropped). 0 B. */
    private void count(RequestState state, GateOutcome outcome, int status) {
        Metrics m = services.metrics();
        if (m != null) {
            m.answered(services.listener(), state, outcome, status);
        }
    }

    /**
     * A forwarded request's client-side status is known: the upstream's head, the forwarder's own
     * answer, or 0 when it ended without one. The protocol calls it once per forwarded request. 0 B.
     */
    public void forwarded(RequestState state, int status) {
        state.status(status);
        Metrics m = services.metrics();
        if (m != null) {
            m.forwardedResponse(services.listener(), state, status);
        }
    }

    /**
     * The request's one end-of-request hook: its access-log line (0 B on the loop; nothing when the
     * log is off). {@code view} is null when the request's head is gone (a refusal before it parsed).
     */
    public void log(int protocol, RequestState state, RequestView view, ClientInfo client, long startNanos, int decision) {
        AccessLog log = services.accessLog();
        if (log != null) {
            state.startNanos(startNanos);
            TraceParent.keepClientTrace(state, view); // the client's trace, when no traceparent went upstream
            log.log(services.listener(), protocol, state, view, client, decision);
        }
    }

    // ---- NEEDS_ASYNC: a policy's I/O, off the common path ----

    /**
     * Starts the I/O the deciding policy asked for, through the starter registered for its kind
     * ({@link AsyncPolicies}); the protocol holds the request's body meanwhile. The wait is bounded
     * by the policy (its timeout).
     */
    private void awaitPolicy(ProtocolExchange exchange) {
        RequestState state = exchange.state();
        if (state.decidingPolicy() instanceof BodyPolicy body) {
            awaitBody(body, exchange);
            return;
        }
        if (!(state.decidingPolicy() instanceof AsyncPolicy policy) || !services.asyncPolicies().has(policy)) {
            // A policy asked for I/O no starter can do: our error, not the client's.
            count(state, GateOutcome.NEEDS_ASYNC, 500);
            exchange.writeAnswer(state.statusAnswer(500));
            return;
        }
        exchange.pauseReads();
        services.asyncPolicies().start(policy, exchange, this);
    }

    // ---- NEEDS_ASYNC from a BodyPolicy: the body is read and inspected as it arrives ----

    /**
     * A body-reading policy waits for the body: the protocol holds the body and keeps reading,
     * handing each chunk to {@link #bodyChunk} and the end to {@link #bodyEnd}; the wait is bounded
     * by the policy's size bound (the scan decides when it is reached) and its timeout
     * ({@link BodyWaits}). 0 B after warm-up.
     */
    private void awaitBody(BodyPolicy policy, ProtocolExchange exchange) {
        RequestState state = exchange.state();
        GateMeter meter = services.meter();
        long before = meter == null ? 0 : meter.before();
        BodyWaits.Entry wait = BodyWaits.current().start(this, exchange, policy.startBody(state, exchange.bodyHoldLimit()),
                policy.bodyTimeoutNanos());
        state.bodyWait(wait);
        if (meter != null) {
            meter.addBody(before);
        }
        exchange.inspectBody();
    }

    /**
     * A chunk of a body a policy reads ({@link ProtocolExchange#inspectBody}): the protocol has
     * already taken it into its held body; it is inspected in place, not consumed. Does nothing when
     * no body phase waits for the request (decided already). 0 B unless a rule matches.
     */
    public void bodyChunk(ProtocolExchange exchange, ByteBuf chunk) {
        if (exchange.state().bodyWait() instanceof BodyWaits.Entry wait) {
            GateMeter meter = services.meter();
            long before = meter == null ? 0 : meter.before();
            PolicyDecision d = wait.scan.feed(chunk);
            if (meter != null) {
                meter.addBody(before);
            }
            if (d != null) {
                bodyDecided(wait, d);
            }
        }
    }

    /** The body a policy reads ended (after its last {@link #bodyChunk}): the policy decides. */
    public void bodyEnd(ProtocolExchange exchange) {
        if (exchange.state().bodyWait() instanceof BodyWaits.Entry wait) {
            GateMeter meter = services.meter();
            long before = meter == null ? 0 : meter.before();
            PolicyDecision d = wait.scan.end();
            if (meter != null) {
                meter.addBody(before);
            }
            bodyDecided(wait, d);
        }
    }

    /** The body phase decided: its wait ends and the gate goes on as after any asynchronous policy. */
    void bodyDecided(BodyWaits.Entry wait, PolicyDecision decision) {
        ProtocolExchange exchange = wait.exchange;
        long requestId = wait.requestId;
        exchange.state().bodyWait(null);
        BodyWaits.current().finish(wait);
        decided(exchange, requestId, decision);
    }

    /** The policy decided (on the request's event loop): the gate goes on after it, then the outcome's dispatch. */
    @Override
    public void decided(Object token, long requestId, PolicyDecision decision) {
        ProtocolExchange exchange = (ProtocolExchange) token;
        if (!exchange.awaits(requestId)) {
            return; // the client went away meanwhile (the state was cleared or recycled)
        }
        GateOutcome outcome = services.gate().resume(exchange.state(), decision, null);
        exchange.resumeReads(outcome);
        dispatch(outcome, exchange);
        exchange.resumed(outcome);
    }
}
