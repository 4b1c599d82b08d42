package io.paduraksa.config;

/**
 * A request rate as operators write it: a positive whole number of requests per second, minute or
 * hour, {@code 10/s}, {@code 600/m}, {@code 5000/h}. Made at config load; the compiler turns it into
 * the limiter's emission interval ({@link #intervalNanos()}), nothing reads it per request.
 */
public record RequestRate(long count, long periodNanos) {
    static final String EXPECTED = "expected a rate like 10/s, 600/m or 5000/h";

    private static final long SECOND = 1_000_000_000L;

    public RequestRate {
        if (count <= 0 || periodNanos <= 0) {
            throw new IllegalArgumentException("a rate needs a positive count and period");
        }
    }

    /** The rate, or null when {@code text} is not one (no unit, zero, sign, fraction, space, more than 1e9 per unit). */
    public static RequestRate parseOrNull(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash > 10 || slash != text.length() - 2) {
            return null;
        }
        for (int i = 0; i < slash; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return null;
            }
        }
        long count = Long.parseLong(text, 0, slash, 10);
        long period = switch (text.charAt(slash + 1)) {
            case 's' -> SECOND;
            case 'm' -> 60 * SECOND;
            case 'h' -> 3600 * SECOND;
            default -> -1;
        };
        return count == 0 || count > 1_000_000_000L || period < 0 ? null : new RequestRate(count, period);
    }

    /** Time between two requests at this rate (GCRA's emission interval), at least 1 ns. */
    public long intervalNanos() {
        return Math.max(1, periodNanos / count);
    }

    /** {@code Retry-After} for a limited client: the whole seconds until one more request is allowed, at least 1. */
    public long retryAfterSeconds() {
        return Math.max(1, (intervalNanos() + SECOND - 1) / SECOND);
    }

    @Override
    public String toString() {
        return count + (periodNanos == SECOND ? "/s" : periodNanos == 60 * SECOND ? "/m" : "/h");
    }
}
