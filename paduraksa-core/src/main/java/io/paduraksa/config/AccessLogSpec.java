package io.paduraksa.config;

/**
 * The access log: one line per request, written off the event loops (docs/operations.md).
 *
 * @param enabled      off by default
 * @param path         the file (appended to, reopened on SIGHUP), or {@code -} for standard output
 * @param format       {@code json} (default) or {@code combined} (Apache/nginx combined log format)
 * @param queue        how many lines may wait for the writer (about 256 B each, split over the
 *                     event loops); a line that finds its loop's share full is dropped and counted
 * @param includeQuery log the query string (capped); off by default: queries carry tokens
 */
public record AccessLogSpec(Boolean enabled, String path, String format, Integer queue, Boolean includeQuery) {
    public static final AccessLogSpec DEFAULT = new AccessLogSpec(null, null, null, null, null);

    public AccessLogSpec {
        enabled = enabled == null ? Boolean.FALSE : enabled;
        path = path == null ? "/var/log/paduraksa/access.log" : path;
        format = format == null ? "json" : format;
        queue = queue == null ? 65_536 : queue;
        includeQuery = includeQuery == null ? Boolean.FALSE : includeQuery;
    }
}
