/**
 * Step 6 of a request: the policies, after the route is known. The host's chain runs first, then
 * the route's; each policy answers with one of its precomputed {@link io.paduraksa.policy.PolicyDecision}s
 * ({@code CONTINUE} moves on to the next policy, anything else ends the chain).
 *
 * <p>Policies are compiled once per snapshot, off the event loops (automata, prefix sets and
 * decisions are built in their constructors), and are immutable afterwards.
 * {@link io.paduraksa.policy.RequestPolicy#evaluate} runs on the request's event loop: it reads
 * the recycled {@link io.paduraksa.policy.PolicyInput}, never blocks and allocates nothing.
 */
package io.paduraksa.policy;
