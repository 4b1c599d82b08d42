package io.paduraksa.respond;

/** Standard reason phrases (RFC 9110 section 15), indexed by status code; built once. */
public final class ReasonPhrases {
    private static final String[] PHRASES = new String[600];

    static {
        put(100, "Continue");
        put(101, "Switching Protocols");
        put(200, "OK");
        put(201, "Created");
        put(202, "Accepted");
        put(204, "No Content");
        put(206, "Partial Content");
        put(301, "Moved Permanently");
        put(302, "Found");
        put(303, "See Other");
        put(304, "Not Modified");
        put(307, "Temporary Redirect");
        put(308, "Permanent Redirect");
        put(400, "Bad Request");
        put(401, "Unauthorized");
        put(403, "Forbidden");
        put(404, "Not Found");
        put(405, "Method Not Allowed");
        put(408, "Request Timeout");
        put(410, "Gone");
        put(411, "Length Required");
        put(413, "Content Too Large");
        put(414, "URI Too Long");
        put(415, "Unsupported Media Type");
        put(417, "Expectation Failed");
        put(421, "Misdirected Request");
        put(426, "Upgrade Required");
        put(429, "Too Many Requests");
        put(431, "Request Header Fields Too Large");
        put(451, "Unavailable For Legal Reasons");
        put(500, "Internal Server Error");
        put(501, "Not Implemented");
        put(502, "Bad Gateway");
        put(503, "Service Unavailable");
        put(504, "Gateway Timeout");
        put(505, "HTTP Version Not Supported");
    }

    private ReasonPhrases() {
    }

    private static void put(int status, String phrase) {
        PHRASES[status] = phrase;
    }

    /** The phrase for {@code status}, or a generic one for its class when the code is unusual. */
    public static String of(int status) {
        String phrase = status >= 100 && status < 600 ? PHRASES[status] : null;
        if (phrase != null) {
            return phrase;
        }
        return switch (status / 100) {
            case 1 -> "Informational";
            case 2 -> "Success";
            case 3 -> "Redirection";
            case 4 -> "Client Error";
            default -> "Server Error";
        };
    }
}
