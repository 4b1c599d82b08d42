package io.paduraksa.ops;

/**
 * Writes the Prometheus text exposition format, version 0.0.4: per family one {@code # HELP} and
 * one {@code # TYPE} line, then its samples; label values escaped (backslash, double quote, line
 * feed), HELP text escaped (backslash, line feed). Scrape time only: allocates freely.
 */
final class PrometheusText {
    private final StringBuilder sb = new StringBuilder(4096);

    /** Starts a family: {@code type} is counter, gauge or histogram. */
    PrometheusText family(String name, String type, String help) {
        sb.append("# HELP ").append(name).append(' ');
        escape(help, false);
        sb.append("\n# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** A sample; {@code labels} alternates names and values. */
    PrometheusText sample(String name, double value, String... labels) {
        sb.append(name);
        if (labels.length > 0) {
            sb.append('{');
            for (int i = 0; i < labels.length; i += 2) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(labels[i]).append("=\"");
                escape(labels[i + 1], true);
                sb.append('"');
            }
            sb.append('}');
        }
        sb.append(' ');
        number(value);
        sb.append('\n');
        return this;
    }

    private void number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            sb.append((long) value);
        } else if (Double.isInfinite(value)) {
            sb.append(value > 0 ? "+Inf" : "-Inf");
        } else if (Double.isNaN(value)) {
            sb.append("NaN");
        } else {
            sb.append(value);
        }
    }

    private void escape(String s, boolean quote) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '"' -> sb.append(quote ? "\\\"" : "\"");
                default -> sb.append(c);
            }
        }
    }

    /** A bucket bound in seconds from microseconds, as Prometheus clients print it ({@code 0.0005}, {@code 2.5}). */
    static String seconds(long micros) {
        return java.math.BigDecimal.valueOf(micros, 6).stripTrailingZeros().toPlainString();
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
