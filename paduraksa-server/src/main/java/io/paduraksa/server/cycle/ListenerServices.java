package io.paduraksa.server.cycle;

import io.paduraksa.gate.Gate;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.respond.DateHeader;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every protocol handler of a listener shares: the gate (and through it the snapshot store),
 * the forwarder for FORWARD outcomes, the once-a-second Date, an optional {@link GateMeter}
 * (null in production), the server's {@link Metrics} (null only in handler tests), the listener's
 * index in {@code listeners:} (the label its requests are counted under), the access log (null
 * when off), the starters of asynchronous policies ({@link AsyncPolicies}) and the
 * {@link RequestCycle} built over them, and whether the server is stopping (shared by every
 * listener). Made once per listener at start.
 */
public final class ListenerServices {
    private final Gate gate;
    private final Forwarder forwarder;
    private final DateHeader date;
    private final GateMeter meter;
    private final Metrics metrics;
    private final int listener;
    private final AccessLog accessLog;
    private final AsyncPolicies asyncPolicies;
    private final RequestCycle cycle;
    private final AtomicBoolean stopping;
    /**
     * The listener's {@code Alt-Svc: h3=":PORT"; ma=N} as an HTTP/1.1 field line and as a value, or
     * null when it serves no HTTP/3; set once its UDP side is bound (read per answer: one volatile read).
     */
    private volatile AltSvc altSvc;

    /** An {@code Alt-Svc} advertisement, made once per listener. */
    public record AltSvc(byte[] http1Line, AsciiString value) {
    }

    public ListenerServices(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener,
                            AccessLog accessLog) {
        this(gate, forwarder, date, meter, metrics, listener, accessLog, AsyncPolicies.standard());
    }

    /** With the starters of asynchronous policies (tests register their own kinds). */
    public ListenerServices(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener,
                            AccessLog accessLog, AsyncPolicies asyncPolicies) {
        this(gate, forwarder, date, meter, metrics, listener, accessLog, asyncPolicies, new AtomicBoolean());
    }

    private ListenerServices(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener,
                             AccessLog accessLog, AsyncPolicies asyncPolicies, AtomicBoolean stopping) {
        this.stopping = stopping;
        this.asyncPolicies = asyncPolicies;
        this.gate = gate;
        this.forwarder = forwarder;
        this.date = date;
        this.meter = meter;
        this.metrics = metrics;
        this.listener = listener;
        this.accessLog = accessLog;
        this.cycle = new RequestCycle(this);
    }

    /** Without metrics (handler tests). */
    public ListenerServices(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter) {
        this(gate, forwarder, date, meter, null, 0, null);
    }

    /** Without an access log. */
    public ListenerServices(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener) {
        this(gate, forwarder, date, meter, metrics, listener, null);
    }

    /** The same services for another listener. */
    public ListenerServices forListener(int index) {
        return new ListenerServices(gate, forwarder, date, meter, metrics, index, accessLog, asyncPolicies, stopping);
    }

    /**
     * Whether the server's stop began. A protocol handler added after that (a connection accepted
     * while the listeners closed, which the stop's {@link DrainEvent} may have missed) drains at once.
     */
    public boolean stopping() {
        return stopping.get();
    }

    /** The stop began ({@link io.paduraksa.server.EdgeServer#stop}): set before the listeners close and the {@link DrainEvent}s go out. */
    public void stop() {
        stopping.set(true);
    }

    /**
     * The listener serves HTTP/3 on UDP {@code port}: its HTTP/1.1 and HTTP/2 answers and forwarded
     * responses advertise it from now on, for {@code maxAgeSeconds} (RFC 7838 3).
     */
    public void altSvc(int port, long maxAgeSeconds) {
        String value = "h3=\":" + port + "\"; ma=" + maxAgeSeconds;
        altSvc = new AltSvc(("Alt-Svc: " + value + "\r\n").getBytes(StandardCharsets.US_ASCII), AsciiString.cached(value));
    }

    /** The listener's {@code Alt-Svc} advertisement, or null (no HTTP/3). */
    public AltSvc altSvc() {
        return altSvc;
    }

    public Gate gate() {
        return gate;
    }

    public Forwarder forwarder() {
        return forwarder;
    }

    public DateHeader date() {
        return date;
    }

    public GateMeter meter() {
        return meter;
    }

    public Metrics metrics() {
        return metrics;
    }

    public int listener() {
        return listener;
    }

    public AccessLog accessLog() {
        return accessLog;
    }

    /** The starters of asynchronous policies, by kind. */
    public AsyncPolicies asyncPolicies() {
        return asyncPolicies;
    }

    /** The listener's request cycle: every protocol handler runs its requests through it. */
    public RequestCycle cycle() {
        return cycle;
    }
}
