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
    /**
     * Arguments of an {@code application/x-www-form-urlencoded} body: walked by the query's rules,
     * decoded as the query is ({@code +} is a space).
     */
    public static final int BODY_FORM = 64;
    /** Keys and string values of a JSON body ({@code \\uXXXX} decoded by the scanner): walked by the query's rules. */
    public static final int BODY_JSON = 128;
    /**
     * Part names and contents of a {@code multipart/form-data} body (a file part's first bytes
     * only): walked by the query's rules, not percent-decoded.
     */
    public static final int BODY_MULTIPART = 256;
    /** Element text and attribute values of an XML body: walked by the query's rules, not percent-decoded. */
    public static final int BODY_XML = 512;
    /**
     * Every other header field line, with {@code inspect.all_headers}: walked by the rules CRS 3.3
     * applies to all of {@code REQUEST_HEADERS} (Java, traversal, PHP objects, Shellshock), not by
     * those it applies to User-Agent and Referer only.
     */
    public static final int ANY_HEADER = 1024;
    /** Every part except the path. */
    static final int ARGS = QUERY | COOKIE | HEADER | USER_AGENT;
    static final int ALL = PATH | ARGS;
    /** Index space of the parts that have their own automata (bits up to {@link #ANY_HEADER}; body parts use the query's). */
    static final int KINDS = 11;

    private Part() {
    }

    /** The bit's index, 0 to {@link #KINDS} - 1. */
    static int index(int part) {
        return Integer.numberOfTrailingZeros(part);
    }

    /** The part whose rules and automata a value of {@code part} is walked with: a body's arguments are the query's. */
    static int rules(int part) {
        return part == BODY_FORM || part == BODY_JSON || part == BODY_MULTIPART || part == BODY_XML ? QUERY : part;
    }

    /** The name used in logs and explain output. */
    public static String name(int part) {
        return switch (part) {
            case PATH -> "path";
            case QUERY -> "query";
            case COOKIE -> "cookie";
            case HEADER, ANY_HEADER -> "header";
            case USER_AGENT -> "user_agent";
            case FILE_NAME -> "file_name";
            case BODY_FORM, BODY_JSON, BODY_MULTIPART, BODY_XML -> "body";
            default -> "part" + part;
        };
    }
}
