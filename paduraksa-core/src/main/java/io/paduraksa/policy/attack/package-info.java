/**
 * The {@code attacks} policy (a CRS-like anomaly-scoring WAF), run by the gate on the event loop
 * in its synchronous policy phase: the parts of a request are copied into a per-thread scratch
 * buffer, transformed in place (URL decoding, HTML entities, lower case, comments, whitespace)
 * and walked through deterministic automata compiled from the rule table, so the time per request
 * is linear in the inspected bytes and a clean request allocates nothing.
 */
package io.paduraksa.policy.attack;
