package io.paduraksa.policy.challenge;

/**
 * The proofs one challenge policy has redeemed lately, so that a solved proof earns one clearance
 * only: a fixed ring of {@value #CAPACITY} entries (a 128-bit digest of the proof and the second
 * its token stops being accepted). An entry counts until that second; when more than
 * {@value #CAPACITY} proofs are redeemed within one {@code solve_within}, the oldest entry is
 * overwritten and that proof could be redeemed once more (from the same address or network, since
 * its token is bound to it). The set lives with the compiled policy: a reload starts an empty one.
 *
 * <p>Shared by the event loops; {@link #spend} runs only for proofs that passed verification (the
 * rare submit path), so it takes a lock and scans the ring (~100 KB, a few microseconds). 0 B.
 */
final class SpentProofs {
    static final int CAPACITY = 4096;

    private final long[] high = new long[CAPACITY];
    private final long[] low = new long[CAPACITY];
    private final long[] until = new long[CAPACITY];
    private int next;

    /**
     * Records the proof whose digest is {@code (digestHigh, digestLow)}, counted until
     * {@code untilSeconds}; false when it was already recorded and still counts at {@code nowSeconds}.
     */
    synchronized boolean spend(long digestHigh, long digestLow, long untilSeconds, long nowSeconds) {
        for (int i = 0; i < CAPACITY; i++) {
            if (until[i] > nowSeconds && high[i] == digestHigh && low[i] == digestLow) {
                return false;
            }
        }
        high[next] = digestHigh;
        low[next] = digestLow;
        until[next] = untilSeconds;
        next = next + 1 == CAPACITY ? 0 : next + 1;
        return true;
    }
}
