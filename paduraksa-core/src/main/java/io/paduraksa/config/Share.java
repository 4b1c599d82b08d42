package io.paduraksa.config;

/**
 * A share of a whole, written as a percentage ({@code 20%}, {@code 12.5%}) or a fraction
 * ({@code 0.2}); bound as a scalar like {@link DataSize}. The range (0 to 100 %) is checked by
 * {@link SpecChecks}.
 *
 * @param fraction the share as a fraction, {@code 20%} is 0.2
 */
public record Share(double fraction) {
    static final String EXPECTED = "expected a share like 20% or 0.2, from 0% to 100%";

    /** The share, or null when {@code text} is not a plain decimal number, optionally followed by {@code %}. */
    static Share parseOrNull(String text) {
        boolean percent = text.endsWith("%");
        String number = percent ? text.substring(0, text.length() - 1) : text;
        if (number.isEmpty() || number.length() > 12) {
            return null;
        }
        int dots = 0;
        for (int i = 0; i < number.length(); i++) {
            char c = number.charAt(i);
            if (c == '.') {
                dots++;
            } else if (c < '0' || c > '9') {
                return null;
            }
        }
        if (dots > 1 || number.charAt(0) == '.' || number.charAt(number.length() - 1) == '.') {
            return null;
        }
        double value = Double.parseDouble(number);
        return new Share(percent ? value / 100 : value);
    }

    @Override
    public String toString() {
        // BigDecimal.valueOf keeps the shortest decimal form: 0.2 prints as 20%, not 20.000000000000004%.
        return java.math.BigDecimal.valueOf(fraction).movePointRight(2).stripTrailingZeros().toPlainString() + "%";
    }
}
