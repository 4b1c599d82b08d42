package io.paduraksa.server;

import io.paduraksa.gate.Gate;
import io.paduraksa.ops.AccessLog;
import io.paduraksa.ops.Metrics;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.respond.DateHeader;

/**
 * What every protocol handler of a listener shares: the gate (and through it the snapshot store),
 * the forwarder for FORWARD outcomes, the once-a-second Date, an optional {@link GateMeter}
 * (null in production), the server's {@link Metrics} (null only in handler tests), the listener's
 * index in {@code listeners:} (the label its requests are counted under) and the access log (null
 * when off).
 */
public record GateContext(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener,
                          AccessLog accessLog) {

    /** Without metrics (handler tests). */
    public GateContext(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter) {
        this(gate, forwarder, date, meter, null, 0, null);
    }

    /** Without an access log. */
    public GateContext(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter, Metrics metrics, int listener) {
        this(gate, forwarder, date, meter, metrics, listener, null);
    }

    /** The same context for another listener. */
    public GateContext forListener(int index) {
        return new GateContext(gate, forwarder, date, meter, metrics, index, accessLog);
    }
}
