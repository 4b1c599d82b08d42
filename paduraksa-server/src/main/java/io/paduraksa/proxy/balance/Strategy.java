package io.paduraksa.proxy.balance;

/** How {@link LoadBalancer#choose} picks a destination; every strategy skips unavailable destinations. */
public enum Strategy {
    /** Smooth weighted round robin: an interleaved sequence (weights 5,1,1 give a a b a c a a), one shared counter. */
    ROUND_ROBIN,
    /** Fewest requests in flight divided by weight; ties go to the next destination in rotation. */
    LEAST_REQUESTS,
    /** Two distinct weighted-random picks; the one with fewer requests in flight per weight wins. */
    POWER_OF_TWO_CHOICES,
    /** One weighted-random pick. */
    RANDOM,
    /** The lowest-indexed available destination: primary and fall-backs in config order. */
    FIRST_AVAILABLE
}
