package io.paduraksa.config;

/**
 * A number of bytes as operators write it: {@code 512} or {@code 512B}, binary units {@code KiB},
 * {@code MiB}, {@code GiB}, {@code TiB} (powers of 1024) and decimal units {@code kB}, {@code MB},
 * {@code GB}, {@code TB} (powers of 1000). Whole numbers only, no sign, no space. {@code KB} is
 * rejected because it means 1000 to some readers and 1024 to others.
 *
 * <p>Made at config load; the server reads {@link #bytes()} once when it compiles its limits.
 */
public record DataSize(long bytes) {
    static final String EXPECTED = "expected a size like 512, 64KiB, 1MiB, 2GiB or 1kB, 1MB, 1GB";

    private static final String[] UNITS = {"TiB", "GiB", "MiB", "KiB", "TB", "GB", "MB", "kB", "B"};
    private static final long[] FACTORS = {
        1L << 40, 1L << 30, 1L << 20, 1L << 10, 1_000_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L
    };

    public DataSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size: " + bytes);
        }
    }

    public static DataSize ofBytes(long bytes) {
        return new DataSize(bytes);
    }

    public static DataSize ofKibibytes(long kibibytes) {
        return new DataSize(Math.multiplyExact(kibibytes, 1024L));
    }

    public static DataSize ofMebibytes(long mebibytes) {
        return new DataSize(Math.multiplyExact(mebibytes, 1024L * 1024L));
    }

    /**
     * Reads {@code 64KiB}, {@code 10MB}, {@code 512}.
     *
     * @throws IllegalArgumentException naming the text and what is expected
     */
    public static DataSize parse(String text) {
        DataSize size = parseOrNull(text);
        if (size == null) {
            throw new IllegalArgumentException("'" + text + "' is not a size (" + EXPECTED + ")");
        }
        return size;
    }

    /** The size, or null when {@code text} is not one (negative, fractional, unknown unit, past {@code Long.MAX_VALUE}). */
    static DataSize parseOrNull(String text) {
        int n = text.length();
        int i = 0;
        while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        if (i == 0 || i > 19) {
            return null;
        }
        long factor = factor(text.substring(i));
        if (factor < 0) {
            return null;
        }
        try {
            return new DataSize(Math.multiplyExact(Long.parseLong(text, 0, i, 10), factor));
        } catch (ArithmeticException | NumberFormatException tooLarge) {
            return null;
        }
    }

    private static long factor(String unit) {
        if (unit.isEmpty()) {
            return 1;
        }
        for (int u = 0; u < UNITS.length; u++) {
            if (UNITS[u].equals(unit)) {
                return FACTORS[u];
            }
        }
        return -1;
    }

    /** The largest binary unit that divides the size exactly: {@code 64KiB}, {@code 1000B}. */
    @Override
    public String toString() {
        for (int u = 0; u < 4; u++) {
            if (bytes != 0 && bytes % FACTORS[u] == 0) {
                return bytes / FACTORS[u] + UNITS[u];
            }
        }
        return bytes + "B";
    }
}
