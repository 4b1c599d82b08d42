/**
 * Distributed rate limits: shares each distributed {@code rate_limit} policy's counts between boxes
 * through Redis. Runs beside the gate but never in it: on one scheduler thread of its own plus
 * Lettuce's I/O threads, never on an event loop; the gate only reads the limiter's table, which
 * this package updates under the table's bucket locks.
 */
package io.paduraksa.ops.ratelimit;
