package io.paduraksa.gate;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyInput;
import io.paduraksa.policy.RequestPolicy;
import io.paduraksa.policy.UpstreamFields;
import io.paduraksa.respond.PrecomputedResponse;
import io.paduraksa.respond.ValueTemplate;
import io.paduraksa.snapshot.CompiledHost;
import io.paduraksa.snapshot.CompiledRoute;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.UpstreamCluster;

/**
 * Per-request state, recycled: one per HTTP/1.1 connection, one per live HTTP/2 stream (never
 * shared by two live requests). {@link Gate#run} resets it on entry; later stages (writer,
 * forwarder, access log) read it until the request ends and must not keep it afterwards.
 * Allocates only when constructed.
 */
public final class RequestState implements PolicyInput, ValueTemplate.Input {
    /** Default room for the normalised path. */
    public static final int DEFAULT_MAX_PATH = 8192;

    private final byte[] path;
    private final long[] ipScratch = new long[2];
    private Snapshot snapshot;
    private RequestView view;
    private long clientIpHigh;
    private long clientIpLow;
    private boolean clientIpFromHeader;
    private int pathLength;
    private int queryStart;
    private int queryEnd;
    private CompiledHost host;
    private CompiledRoute route;
    private PrecomputedResponse response;
    private UpstreamCluster cluster;
    private RequestPolicy decidingPolicy;
    /** What the request cycle keeps while a {@link io.paduraksa.policy.BodyPolicy} reads this request's body; null otherwise. */
    private Object bodyWait;
    /** What a policy matched ({@link #matches(CharSequence)}), for the access log; null when nothing matched. */
    private CharSequence matches;
    private int asyncPolicyIndex;
    private long requestId;
    private UpstreamFields upstreamFields;
    // RateLimit-* fields (0 limit: no rate-limit policy with headers checked the request).
    private int rateLimitLimit;
    private int rateLimitRemaining;
    private int rateLimitReset;
    // How the request ended: written by the protocol handler and the forwarder, read by metrics and the access log.
    private long startNanos;
    private int status;
    private long bytesSent;
    private int upstreamIndex;
    private long upstreamNanos;
    private int upstreamError;
    private long traceHigh;
    private long traceLow;

    public RequestState() {
        this(DEFAULT_MAX_PATH);
    }

    public RequestState(int maxPathBytes) {
        this.path = new byte[maxPathBytes];
    }

    /** Clears everything from the previous request; called by the gate first. */
    void reset(Snapshot snapshot, RequestView view, long requestId) {
        this.snapshot = snapshot;
        this.view = view;
        this.clientIpHigh = 0;
        this.clientIpLow = 0;
        this.clientIpFromHeader = false;
        this.pathLength = 0;
        this.queryStart = -1;
        this.queryEnd = -1;
        this.host = null;
        this.route = null;
        this.response = null;
        this.cluster = null;
        this.decidingPolicy = null;
        this.bodyWait = null;
        this.matches = null;
        this.asyncPolicyIndex = -1;
        this.requestId = requestId;
        this.upstreamFields = null;
        this.rateLimitLimit = 0;
        this.rateLimitRemaining = 0;
        this.rateLimitReset = 0;
        this.startNanos = 0;
        this.status = 0;
        this.bytesSent = 0;
        this.upstreamIndex = -1;
        this.upstreamNanos = -1;
        this.upstreamError = -1;
        this.traceHigh = 0;
        this.traceLow = 0;
    }

    /**
     * A copy of what the gate decided for this request, over {@code view} (a copy of the request that
     * shows the same method, target and authority): for work done on the request's behalf after it
     * ended, such as the response cache's background refresh. The copy is never recycled; its end
     * fields start empty. Allocates.
     */
    public RequestState detachedCopy(RequestView view) {
        RequestState c = new RequestState(Math.max(1, pathLength));
        c.reset(snapshot, view, requestId);
        c.clientIp(clientIpHigh, clientIpLow, clientIpFromHeader);
        System.arraycopy(path, 0, c.path, 0, pathLength);
        c.pathLength = pathLength;
        c.queryStart = queryStart;
        c.queryEnd = queryEnd;
        c.host = host;
        c.route = route;
        c.response = response;
        c.cluster = cluster;
        c.decidingPolicy = decidingPolicy;
        c.asyncPolicyIndex = asyncPolicyIndex;
        c.matches = matches;
        c.upstreamFields = upstreamFields;
        return c;
    }

    /** Drops references when the request ends, so an idle connection pins no old snapshot. */
    public void clear() {
        reset(null, null, 0);
    }

    // ---- written by the gate ----

    void clientIp(long high, long low, boolean fromHeader) {
        this.clientIpHigh = high;
        this.clientIpLow = low;
        this.clientIpFromHeader = fromHeader;
    }

    long[] ipScratch() {
        return ipScratch;
    }

    byte[] pathBuffer() {
        return path;
    }

    void pathLength(int length) {
        this.pathLength = length;
    }

    void query(int start, int end) {
        this.queryStart = start;
        this.queryEnd = end;
    }

    void host(CompiledHost host) {
        this.host = host;
    }

    void route(CompiledRoute route) {
        this.route = route;
    }

    /** The answer to write; an error page becomes the matched host's own, if it has one ({@link CompiledHost#answer}). */
    void response(PrecomputedResponse response) {
        this.response = host == null ? response : host.answer(response);
    }

    void cluster(UpstreamCluster cluster) {
        this.cluster = cluster;
    }

    void decidedBy(RequestPolicy policy, int index) {
        this.decidingPolicy = policy;
        this.asyncPolicyIndex = index;
    }

    // ---- read by policies and later stages ----

    /** The snapshot this request runs on (the same for every stage of the request). */
    public Snapshot snapshot() {
        return snapshot;
    }

    public RequestView view() {
        return view;
    }

    @Override
    public long clientIpHigh() {
        return clientIpHigh;
    }

    @Override
    public long clientIpLow() {
        return clientIpLow;
    }

    /** True when the client IP came from the trusted proxy's header rather than the peer address. */
    public boolean isClientIpFromHeader() {
        return clientIpFromHeader;
    }

    @Override
    public byte[] path() {
        return path;
    }

    @Override
    public int pathLength() {
        return pathLength;
    }

    /** The request target as the view shows it; the query is {@code [queryStart(), queryEnd())} of it. */
    @Override
    public CharSequence target() {
        return view.target();
    }

    @Override
    public CharSequence authority() {
        return view.authority();
    }

    @Override
    public int hostIndex() {
        return host == null ? -1 : host.index();
    }

    @Override
    public int routeIndex() {
        return route == null ? -1 : route.index();
    }

    /** Start of the query in {@link RequestView#target()} (after {@code ?}), or -1 without a query. */
    @Override
    public int queryStart() {
        return queryStart;
    }

    /** End of the query in {@link RequestView#target()}, or -1. */
    @Override
    public int queryEnd() {
        return queryEnd;
    }

    @Override
    public CharSequence method() {
        return view.method();
    }

    @Override
    public boolean isTls() {
        return view.client().isTls();
    }

    @Override
    public boolean isPeerTrustedProxy() {
        return view.client().isTrustedProxy();
    }

    @Override
    public int peerCountry() {
        return view.client().country();
    }

    @Override
    public boolean hasBody() {
        return view.hasBody();
    }

    @Override
    public void matches(CharSequence matches) {
        this.matches = matches;
    }

    /** What a policy matched (rule ids, parts, escaped excerpts), or null. */
    public CharSequence matches() {
        return matches;
    }

    /** The request cycle's record of a body phase in progress (its own type), or null. */
    public Object bodyWait() {
        return bodyWait;
    }

    public void bodyWait(Object wait) {
        this.bodyWait = wait;
    }

    @Override
    public CharSequence header(AsciiString lowerCaseName) {
        return view.header(lowerCaseName);
    }

    @Override
    public int headerCount() {
        return view.headerCount();
    }

    @Override
    public CharSequence headerName(int index) {
        return view.headerName(index);
    }

    @Override
    public CharSequence headerValue(int index) {
        return view.headerValue(index);
    }

    /** The matched host entry, or null for an unknown host. */
    public CompiledHost host() {
        return host;
    }

    /** The matched route, or null. */
    public CompiledRoute route() {
        return route;
    }

    /** The answer to write for RESPOND and CHALLENGE outcomes. */
    public PrecomputedResponse response() {
        return response;
    }

    /**
     * The protocol-level answer for {@code status} (see {@link Snapshot#statusAnswer}) as this
     * request's host sends it: with the host's own error page, if it has one. For answers made
     * after the gate (the forwarder's 502, 503, 504). 0 B.
     */
    public PrecomputedResponse statusAnswer(int status) {
        PrecomputedResponse answer = snapshot.statusAnswer(status);
        return host == null ? answer : host.answer(answer);
    }

    /** The cluster for a FORWARD outcome. */
    public UpstreamCluster cluster() {
        return cluster;
    }

    /** The policy that answered, dropped or asked for I/O; null when the route's action decided. */
    public RequestPolicy decidingPolicy() {
        return decidingPolicy;
    }

    /**
     * For NEEDS_ASYNC: the position of the waiting policy in the combined chain (host policies
     * first, then the route's), so the slow path can resume after it.
     */
    public int asyncPolicy() {
        return asyncPolicyIndex;
    }

    @Override
    public void upstreamFields(UpstreamFields fields) {
        this.upstreamFields = fields;
    }

    /** Fields a policy decided to add to the upstream request (forward-auth's copied headers), or null. */
    public UpstreamFields upstreamFields() {
        return upstreamFields;
    }

    /** Keeps the policy's numbers when it is the first to report, or has less remaining than the last. */
    @Override
    public void rateLimit(int limit, int remaining, int resetSeconds) {
        if (rateLimitLimit == 0 || remaining < rateLimitRemaining) {
            this.rateLimitLimit = limit;
            this.rateLimitRemaining = remaining;
            this.rateLimitReset = resetSeconds;
        }
    }

    /** True when the response gets {@code RateLimit-*} fields (a policy with {@code headers: true} checked the request). */
    public boolean hasRateLimit() {
        return rateLimitLimit > 0;
    }

    /** {@code RateLimit-Limit}: the reporting policy's burst. */
    public int rateLimitLimit() {
        return rateLimitLimit;
    }

    /** {@code RateLimit-Remaining}: requests the key may still send now. */
    public int rateLimitRemaining() {
        return rateLimitRemaining;
    }

    /** {@code RateLimit-Reset}: whole seconds until the key's bucket is full again. */
    public int rateLimitReset() {
        return rateLimitReset;
    }

    /** A random 64-bit id, written as 16 hex digits into templates and logs. */
    public long requestId() {
        return requestId;
    }

    // ---- the request's end (protocol handler, forwarder; read by metrics and the access log) ----

    /** {@link System#nanoTime()} when the request head was received (0: not taken, the access log is off). */
    public long startNanos() {
        return startNanos;
    }

    public void startNanos(long nanos) {
        this.startNanos = nanos;
    }

    /** The status written to the client (the answer's, the upstream's, the forwarder's own), 0 for none yet. */
    public int status() {
        return status;
    }

    public void status(int status) {
        this.status = status;
    }

    /** Body bytes written to the client. */
    public long bytesSent() {
        return bytesSent;
    }

    public void addBytesSent(long n) {
        this.bytesSent += n;
    }

    /** The index of the {@link #cluster()} destination the forwarder used last, or -1. */
    public int upstreamIndex() {
        return upstreamIndex;
    }

    /** Nanoseconds from the upstream request head written to its response head, or -1. */
    public long upstreamNanos() {
        return upstreamNanos;
    }

    public void upstream(int destinationIndex, long nanos) {
        this.upstreamIndex = destinationIndex;
        this.upstreamNanos = nanos;
    }

    /**
     * What failed upstream in the forwarder's last attempt (its error kind, a small number the server's
     * upstream metrics name), or -1: none, or the request was not forwarded.
     */
    public int upstreamError() {
        return upstreamError;
    }

    public void upstreamError(int kind) {
        this.upstreamError = kind;
    }

    /** The W3C trace id sent upstream (high and low 64 bits; both 0: none). */
    public long traceHigh() {
        return traceHigh;
    }

    public long traceLow() {
        return traceLow;
    }

    public void trace(long high, long low) {
        this.traceHigh = high;
        this.traceLow = low;
    }
}
