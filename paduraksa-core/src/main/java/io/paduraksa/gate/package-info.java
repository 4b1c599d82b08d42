/**
 * Step 3 to 7 of a request: the synchronous gate. {@link io.paduraksa.gate.Gate#run} reads the
 * snapshot once, resets the recycled {@link io.paduraksa.gate.RequestState}, resolves the client
 * IP, looks up the host, normalises the path, matches the route, runs the policy chain and
 * decides. Runs on the connection's event loop, once per request, and allocates nothing.
 */
package io.paduraksa.gate;
