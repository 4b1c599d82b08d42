/**
 * Answers the gate gives itself: {@link io.paduraksa.respond.PrecomputedResponse} (encoded once per
 * snapshot into pooled direct buffers) and {@link io.paduraksa.respond.DateHeader} (formatted once a
 * second). Writing an answer on the event loop copies bytes and allocates nothing.
 */
package io.paduraksa.respond;
