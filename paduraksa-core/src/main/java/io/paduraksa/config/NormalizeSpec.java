package io.paduraksa.config;

/**
 * What path normalisation does with bytes that have no single safe meaning: an encoded slash
 * ({@code %2F}), a backslash (raw or {@code %5C}). Each is {@code reject} (400, the default),
 * {@code decode} (treated as a slash) or {@code keep} (left as it is, never a segment boundary).
 * An encoded NUL ({@code %00}) is always rejected.
 */
public record NormalizeSpec(String encodedSlash, String backslash) {
    public static final NormalizeSpec DEFAULT = new NormalizeSpec("reject", "reject");

    public NormalizeSpec {
        encodedSlash = encodedSlash == null ? "reject" : encodedSlash;
        backslash = backslash == null ? "reject" : backslash;
    }
}
