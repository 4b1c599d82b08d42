package io.paduraksa.server;

import io.paduraksa.gate.Gate;
import io.paduraksa.proxy.Forwarder;
import io.paduraksa.respond.DateHeader;

/**
 * What every protocol handler of a server shares: the gate (and through it the snapshot store),
 * the forwarder for FORWARD outcomes, the once-a-second Date, and an optional {@link GateMeter}
 * (null in production).
 */
public record GateContext(Gate gate, Forwarder forwarder, DateHeader date, GateMeter meter) {
}
