package io.paduraksa.config;

import java.time.Duration;

/**
 * Durations as operators write them: a number and a unit, {@code 250ms}, {@code 5s}, {@code 1m},
 * {@code 2h}, {@code 1d}, or several from larger to smaller units, {@code 1m30s}. No sign, no
 * fraction, no space ({@code 5 s} is rejected so that a value is one token), no unitless number
 * ({@code 5} could mean seconds or milliseconds).
 */
final class DurationText {
    static final String EXPECTED = "expected a duration like 500ms, 5s, 1m, 2h";

    /** Units from largest to smallest; a value must use them in this order, each at most once. */
    private static final String[] UNITS = {"d", "h", "m", "s", "ms"};
    private static final long[] UNIT_MILLIS = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};

    private DurationText() {
    }

    /** The duration, or null when {@code text} is not one. */
    static Duration parse(String text) {
        int i = 0;
        int n = text.length();
        int nextUnit = 0;
        long millis = 0;
        if (n == 0) {
            return null;
        }
        while (i < n) {
            int digitsStart = i;
            while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i == digitsStart || i - digitsStart > 12) {
                return null;
            }
            long amount = Long.parseLong(text, digitsStart, i, 10);
            int unit = unitAt(text, i, nextUnit);
            if (unit < 0) {
                return null;
            }
            i += UNITS[unit].length();
            nextUnit = unit + 1;
            try {
                millis = Math.addExact(millis, Math.multiplyExact(amount, UNIT_MILLIS[unit]));
            } catch (ArithmeticException tooLong) {
                return null;
            }
        }
        return Duration.ofMillis(millis);
    }

    private static int unitAt(String text, int i, int from) {
        if (text.startsWith("ms", i)) {
            return from <= 4 ? 4 : -1;
        }
        for (int u = from; u < 4; u++) {
            if (text.startsWith(UNITS[u], i)) {
                return u;
            }
        }
        return -1;
    }

    /** The shortest text {@link #parse} reads back as {@code d}: {@code 1m30s}, {@code 250ms}. */
    static String format(Duration d) {
        long millis = d.toMillis();
        if (millis == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        for (int u = 0; u < UNITS.length; u++) {
            long amount = millis / UNIT_MILLIS[u];
            if (amount > 0) {
                sb.append(amount).append(UNITS[u]);
                millis -= amount * UNIT_MILLIS[u];
            }
        }
        return sb.toString();
    }
}
