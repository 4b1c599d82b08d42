package io.paduraksa.policy.attack;

/** The parts of a request a rule may look at, as bits of {@link AttackRule#parts()}. */
public final class Part {
    /** The path of the request target as sent (decoded here). */
    public static final int PATH = 1;
    /** Query parameter names and values. */
    public static final int QUERY = 2;
    /** Cookie names and values. */
    public static final int COOKIE = 4;
    /** Named headers other than User-Agent (Referer by default). */
    public static final int HEADER = 8;
    /** The User-Agent header. */
    public static final int USER_AGENT = 16;
    /** The upload file-name headers ({@code X-Filename}, {@code X_Filename}, {@code X-File-Name}), inspected with the path. */
    public static final int FILE_NAME = 32;
    /** Every part except the path. */
    static final int ARGS = QUERY | COOKIE | HEADER | USER_AGENT;
    static final int ALL = PATH | ARGS;
    /** Number of part kinds (bits). */
    static final int KINDS = 6;

    private Part() {
    }

    /** The bit's index, 0 to {@link #KINDS} - 1. */
    static int index(int part) {
        return Integer.numberOfTrailingZeros(part);
    }

    /** The name used in logs and explain output. */
    public static String name(int part) {
        return switch (part) {
            case PATH -> "path";
            case QUERY -> "query";
            case COOKIE -> "cookie";
            case HEADER -> "header";
            case USER_AGENT -> "user_agent";
            case FILE_NAME -> "file_name";
            default -> "part" + part;
        };
    }
}
