/**
 * Step 6 of a request, the proof-of-work challenge policy and its pieces: signing keys, the
 * per-thread HMAC-SHA-256 engine, the clearance cookie, the challenge token and its proof, the
 * challenge page and the redirect back after a solved challenge.
 *
 * <p>Compiled once per snapshot off the event loops. On the event loop, the valid-cookie check
 * and the challenge page's token are synchronous and allocate nothing; only a submitted proof
 * (a rare path: once per visitor and cookie lifetime) allocates its one-shot redirect answer.
 */
package io.paduraksa.policy.challenge;
