package io.paduraksa.config;

/**
 * What path normalisation does with bytes that have no single safe meaning: an encoded slash
 * ({@code %2F}), a backslash (raw or {@code %5C}). Each is {@code reject} (400, the default),
 * {@code decode} (treated as a slash) or {@code keep} (left as it is, never a segment boundary).
 * An encoded NUL ({@code %00}) is always rejected.
 *
 * <p>{@code pathParameters} says what a segment parameter ({@code ;} raw or as {@code %3B}, and
 * the rest of its segment) does: {@code strip} (the default: removed before dot segments are
 * resolved, as servlet containers route), {@code reject} (400) or {@code keep} (part of the segment;
 * unsafe in front of servlet backends, which read {@code /admin;x} as {@code /admin}).
 */
public record NormalizeSpec(String encodedSlash, String backslash, String pathParameters) {
    public static final NormalizeSpec DEFAULT = new NormalizeSpec("reject", "reject", "strip");

    public NormalizeSpec {
        encodedSlash = encodedSlash == null ? "reject" : encodedSlash;
        backslash = backslash == null ? "reject" : backslash;
        pathParameters = pathParameters == null ? "strip" : pathParameters;
    }
}
