package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;
import io.paduraksa.policy.BodyPolicy;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.NamedPolicy;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.PolicyInput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code attacks} policy: CRS-style anomaly scoring over the request head. Per request
 * {@link #evaluate} copies each inspected value (the path of the target, every query parameter
 * name and value, every cookie name and value, the User-Agent and the named headers) into a
 * per-thread buffer, transforms it ({@link Transform}) and walks the union automaton of the rules
 * for that part at the configured paranoia level; only when the union matches are the rules walked
 * one by one to name them. A matched rule adds its score once per request unless an exclusion
 * covers it; the request is denied (or, with {@code detect_only}, only logged and counted) when the
 * sum reaches the threshold, and inspection stops there. Time is linear in the inspected bytes;
 * a request without a match allocates nothing, a match allocates its log line.
 *
 * <p>Only the first line of a repeated named header (and of {@code Cookie}) is inspected, as
 * {@link PolicyInput#header} shows it; with {@code all_headers} every other field line is
 * inspected, repeated ones each ({@link PolicyInput#headerCount}).
 *
 * <p><b>Bodies</b> (when {@code inspect.body} is configured) are a second phase: when the head's
 * score stays below the threshold and the request has an {@code application/x-www-form-urlencoded},
 * JSON, {@code multipart/form-data} or XML body, {@link #evaluate} returns NEEDS_ASYNC and the
 * request cycle feeds the body to a {@link BodyScanner} from {@link #startBody} as it arrives; its
 * arguments add to the head's score. Other content types are not inspected.
 */
public final class AttacksPolicy extends NamedPolicy implements BodyPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(AttacksPolicy.class);
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString COOKIE = AsciiString.cached("cookie");
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    /** CRS 913110 reads header names too ({@code REQUEST_HEADERS_NAMES}): its automaton is walked over each listed name. */
    private static final AttackRule SCANNER_HEADER = AttackRules.byId(913110);
    /** CRS 921150: CR or LF in an argument's name (checked over the decoded query names). */
    private static final AttackRule NAME_LINE_BREAK = AttackRules.byId(921150);
    private static final String FORM_TYPE = "application/x-www-form-urlencoded";
    private static final String JSON_TYPE = "application/json";
    private static final String MULTIPART_TYPE = "multipart/form-data";
    /** The XML media types CRS 3.3 hands to ModSecurity's XML processor. */
    private static final String[] XML_TYPES = {"text/xml", "application/xml", "application/soap+xml"};
    /** Upload file-name headers some upload clients send (CRS 933110 reads the same three). */
    private static final AsciiString[] FILE_NAMES = {AsciiString.cached("x-filename"), AsciiString.cached("x_filename"),
        AsciiString.cached("x-file-name")};

    private final int paranoia;
    private final int threshold;
    private final boolean detectOnly;
    private final boolean path;
    private final boolean query;
    private final boolean cookies;
    private final boolean userAgent;
    private final AsciiString[] headers;
    /** Lower-cased names of the headers inspected on their own (User-Agent, Cookie, named): {@code all_headers} passes them over. */
    private final byte[][] elsewhere;
    /** Every other header field line is inspected too ({@link Part#ANY_HEADER}). */
    private final boolean allHeaders;
    /** {@link #SCANNER_HEADER}'s automaton, walked over header names with {@link #allHeaders}; else null. */
    private final Dfa scannerHeaderNames;
    private final AttackExclusion[] exclusions;
    private final PolicyDecision denied;
    /** Per part index: the rules walked, their union pre-filter, group pre-filters and own automata. */
    private final Walk[] walks = new Walk[Part.KINDS];
    /** The same for the rules that read the {@link Transform#cmdLine} form; null where none applies. */
    private final Walk[] cmdWalks = new Walk[Part.KINDS];
    private final AttackCounters counters;
    /** The most body bytes inspected per request; 0: bodies are not inspected. */
    private final long bodyMax;
    /** A body over {@link #bodyMax} (or not whole within the timeout) is denied rather than inspected as far as it arrived. */
    private final boolean bodyDenyOversize;
    private final long bodyTimeoutNanos;
    private final String oversizeNote;
    /** Bytes of a multipart file part's content inspected (its name and file name always are). */
    private final int fileBytes;
    /** At most one INFO summary per policy this often. */
    static final long SUMMARY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final AtomicLong nextSummary = new AtomicLong(System.nanoTime());
    private final AtomicLong sinceSummary = new AtomicLong();

    /**
     * @param headers   header names to inspect besides the path, query and cookies; {@code User-Agent}
     *                  among them is inspected with the scanner rules too
     * @param threshold the anomaly score that denies, at least 1
     */
    public AttacksPolicy(String name, int paranoia, int threshold, boolean path, boolean query, boolean cookies,
            List<String> headers, boolean detectOnly, List<AttackExclusion> exclusions, PolicyDecision denied) {
        this(name, paranoia, threshold, path, query, cookies, headers, detectOnly, exclusions, denied, 0, false, 0, 0);
    }

    /** As below, a multipart file part's content not inspected. */
    public AttacksPolicy(String name, int paranoia, int threshold, boolean path, boolean query, boolean cookies,
            List<String> headers, boolean detectOnly, List<AttackExclusion> exclusions, PolicyDecision denied,
            long bodyMax, boolean bodyDenyOversize, long bodyTimeoutNanos) {
        this(name, paranoia, threshold, path, query, cookies, headers, detectOnly, exclusions, denied, bodyMax, bodyDenyOversize,
                bodyTimeoutNanos, 0);
    }

    /**
     * @param bodyMax          the most body bytes inspected per request (0: bodies are not inspected)
     * @param bodyDenyOversize deny a body larger than {@code bodyMax}, or not whole within the
     *                         timeout, instead of inspecting what arrived and going on
     * @param bodyTimeoutNanos how long the body phase waits for the body's end
     * @param fileBytes        bytes of a multipart file part's content inspected (0: only its names)
     */
    public AttacksPolicy(String name, int paranoia, int threshold, boolean path, boolean query, boolean cookies,
            List<String> headers, boolean detectOnly, List<AttackExclusion> exclusions, PolicyDecision denied,
            long bodyMax, boolean bodyDenyOversize, long bodyTimeoutNanos, long fileBytes) {
        this(name, paranoia, threshold, path, query, cookies, headers, false, detectOnly, exclusions, denied, bodyMax, bodyDenyOversize,
                bodyTimeoutNanos, fileBytes);
    }

    /**
     * @param allHeaders       inspect every header field line besides {@code headers}, the
     *                         {@code User-Agent} and the {@code Cookie} (as CRS reads {@code REQUEST_HEADERS})
     *                         with the rules CRS applies to all of them
     * @param bodyMax          the most body bytes inspected per request (0: bodies are not inspected)
     * @param bodyDenyOversize deny a body larger than {@code bodyMax}, or not whole within the
     *                         timeout, instead of inspecting what arrived and going on
     * @param bodyTimeoutNanos how long the body phase waits for the body's end
     * @param fileBytes        bytes of a multipart file part's content inspected (0: only its names)
     */
    public AttacksPolicy(String name, int paranoia, int threshold, boolean path, boolean query, boolean cookies,
            List<String> headers, boolean allHeaders, boolean detectOnly, List<AttackExclusion> exclusions, PolicyDecision denied,
            long bodyMax, boolean bodyDenyOversize, long bodyTimeoutNanos, long fileBytes) {
        super(name);
        this.allHeaders = allHeaders;
        this.scannerHeaderNames = allHeaders ? SCANNER_HEADER.dfa() : null;
        if (fileBytes < 0 || fileBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("attacks policy '" + name + "': file bytes " + fileBytes + " (expected 0 to 2 GiB)");
        }
        this.fileBytes = (int) fileBytes;
        if (bodyMax < 0 || bodyMax > Integer.MAX_VALUE || bodyMax > 0 && bodyTimeoutNanos <= 0) {
            throw new IllegalArgumentException("attacks policy '" + name + "': body max " + bodyMax + ", timeout " + bodyTimeoutNanos
                    + " ns (expected 0 to 2 GiB and a positive timeout)");
        }
        this.bodyMax = bodyMax;
        this.bodyDenyOversize = bodyDenyOversize;
        this.bodyTimeoutNanos = bodyTimeoutNanos;
        this.oversizeNote = "body: over " + bodyMax + " bytes or not whole in time (on_oversize: deny)";
        if (paranoia < 1 || paranoia > 4) {
            throw new IllegalArgumentException("attacks policy '" + name + "': paranoia " + paranoia + " (expected 1 to 4)");
        }
        if (threshold < 1) {
            throw new IllegalArgumentException("attacks policy '" + name + "': threshold " + threshold + " (expected a positive score)");
        }
        this.paranoia = paranoia;
        this.threshold = threshold;
        this.detectOnly = detectOnly;
        this.path = path;
        this.query = query;
        this.cookies = cookies;
        List<AsciiString> named = new ArrayList<>();
        boolean ua = false;
        for (String h : headers) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.equals("user-agent")) {
                ua = true;
            } else if (!lower.equals("cookie") || !cookies) {
                named.add(AsciiString.cached(lower));
            }
        }
        this.userAgent = ua;
        this.headers = named.toArray(new AsciiString[0]);
        List<byte[]> skip = new ArrayList<>();
        if (ua) {
            skip.add(USER_AGENT.toByteArray());
        }
        if (cookies) {
            skip.add(COOKIE.toByteArray());
        }
        for (AsciiString h : this.headers) {
            skip.add(h.toByteArray());
        }
        this.elsewhere = skip.toArray(new byte[0][]);
        this.exclusions = exclusions.toArray(new AttackExclusion[0]);
        this.denied = denied;
        this.counters = AttackCounters.of(name);
        for (int part = 1; part <= Part.ANY_HEADER; part <<= 1) {
            if (part > Part.FILE_NAME && (part != Part.ANY_HEADER || !allHeaders)) {
                continue; // body parts walk the query's automata; other headers only with all_headers
            }
            walks[Part.index(part)] = new Walk(part, paranoia, false);
            if (AttackRules.applying(part, paranoia, true).length > 0) {
                cmdWalks[Part.index(part)] = new Walk(part, paranoia, true);
            }
        }
    }

    /** What a value of one part is walked through (compile time; shared tables). */
    private static final class Walk {
        final Dfa union;
        final Dfa[] groups;
        final AttackRule[] rules;
        final Dfa[] dfas;

        Walk(int part, int paranoia, boolean cmdLine) {
            union = AttackRules.union(part, paranoia, cmdLine);
            groups = AttackRules.groups(part, paranoia, cmdLine);
            rules = AttackRules.inspected(part, paranoia, cmdLine);
            dfas = new Dfa[rules.length];
            for (int k = 0; k < rules.length; k++) {
                dfas[k] = rules[k].dfa();
            }
        }
    }

    /**
     * Runs per request on the event loop; 0 B unless a rule matches. NEEDS_ASYNC: the head left the
     * verdict open and the body is to be inspected ({@link #startBody} follows on this thread).
     */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        Inspection in = Inspection.current();
        in.reset();
        inspect(request, in, activeExclusions(request));
        if (in.score < threshold && bodyMax > 0 && request.hasBody() && bodyKind(request.header(CONTENT_TYPE)) != 0) {
            return PolicyDecision.NEEDS_ASYNC;
        }
        if (in.score == 0) {
            return PolicyDecision.CONTINUE;
        }
        return verdict(in, request);
    }

    @Override
    public BodyScan startBody(PolicyInput request, long holdLimit) {
        CharSequence type = request.header(CONTENT_TYPE);
        return BodyScanner.take(this, bodyKind(type), type, bodyMax, holdLimit, activeExclusions(request), Inspection.current(),
                request);
    }

    @Override
    public long bodyTimeoutNanos() {
        return bodyTimeoutNanos;
    }

    /** The paranoia level, 1 to 4. */
    int paranoia() {
        return paranoia;
    }

    /** Bytes of a multipart file part's content inspected. */
    int fileBytes() {
        return fileBytes;
    }

    /**
     * {@link BodyScanner#FORM}, {@link BodyScanner#JSON} ({@code application/json} and
     * {@code application/*+json}), {@link BodyScanner#MULTIPART} ({@code multipart/form-data}),
     * {@link BodyScanner#XML} ({@code text/xml}, {@code application/xml},
     * {@code application/soap+xml}) or 0 for a {@code Content-Type} (case-insensitive, parameters
     * after {@code ;} ignored). 0 B.
     */
    static int bodyKind(CharSequence type) {
        if (type == null) {
            return 0;
        }
        int end = 0;
        int n = type.length();
        while (end < n && type.charAt(end) != ';' && type.charAt(end) != ' ' && type.charAt(end) != '\t') {
            end++;
        }
        if (end == FORM_TYPE.length() && startsWithFolded(type, FORM_TYPE)) {
            return BodyScanner.FORM;
        }
        if (end == JSON_TYPE.length() && startsWithFolded(type, JSON_TYPE)) {
            return BodyScanner.JSON;
        }
        if (end == MULTIPART_TYPE.length() && startsWithFolded(type, MULTIPART_TYPE)) {
            return BodyScanner.MULTIPART;
        }
        for (String xml : XML_TYPES) {
            if (end == xml.length() && startsWithFolded(type, xml)) {
                return BodyScanner.XML;
            }
        }
        boolean plusJson = end > 17 && startsWithFolded(type, "application/") && (type.charAt(end - 5) == '+')
                && (type.charAt(end - 4) | 0x20) == 'j' && (type.charAt(end - 3) | 0x20) == 's' && (type.charAt(end - 2) | 0x20) == 'o'
                && (type.charAt(end - 1) | 0x20) == 'n';
        return plusJson ? BodyScanner.JSON : 0;
    }

    private static boolean startsWithFolded(CharSequence s, String lower) {
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c | 0x20) : c) != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** One body argument's name or value ({@code in.value[0, n)}): the part's rules; false once the score reached the threshold. */
    boolean inspectBodyValue(int part, int n, Inspection in, long active) {
        match(part, n, in, active);
        return in.score < threshold;
    }

    /**
     * A body check in code ({@link BodyScanner#check}) that matched over {@code b[0, n)}: scores
     * {@code rule} once, unless excluded or above the paranoia level; false once the score reached
     * the threshold. May allocate (a match).
     */
    boolean checkBody(AttackRule rule, byte[] b, int n, Inspection in, long active) {
        if (rule.paranoia() <= paranoia && !done(in) && (!in.hasMatched(rule) || in.explain != null) && !isExcluded(rule, in, active)) {
            int k = in.copy(b, Math.min(n, Inspection.MAX_NAME));
            hit(rule, Part.BODY_MULTIPART, in.value, k, k, in);
        }
        return in.score < threshold;
    }

    /** The body phase's verdict: the summed score, or a refused body ({@code refusal}: malformed, too deep). May allocate (a match). */
    PolicyDecision bodyVerdict(Inspection in, String refusal, PolicyInput request) {
        if (refusal == null || in.score >= threshold) {
            return in.score == 0 ? PolicyDecision.CONTINUE : verdict(in, request);
        }
        if (in.log.length() > 0) {
            in.log.append(", ");
        }
        in.log.append(refusal);
        request.matches(in.logLine());
        counters.reached(detectOnly);
        if (LOG.isDebugEnabled()) {
            LOG.debug("attacks policy '" + name + "' refused a body" + (detectOnly ? " (detect only)" : "") + ": " + in.log);
        }
        summarize(in);
        return detectOnly ? PolicyDecision.CONTINUE : denied;
    }

    /** The size or time bound was reached before the body's end; what arrived was inspected. */
    PolicyDecision bodyOversize(Inspection in, PolicyInput request) {
        return bodyVerdict(in, bodyDenyOversize ? oversizeNote : null, request);
    }

    /**
     * Every rule's verdict for {@code request}, one line per (part, value, rule) that was checked,
     * plus the total; for {@code paduraksa explain}. Allocates.
     */
    @Override
    public List<String> explain(PolicyInput request) {
        Inspection in = Inspection.current();
        in.reset();
        List<String> lines = new ArrayList<>();
        in.explain = lines;
        inspect(request, in, activeExclusions(request));
        in.explain = null;
        lines.add("score " + in.score + "/" + threshold + " (paranoia " + paranoia + ") -> "
                + (in.score < threshold ? "continue" : detectOnly ? "detect only: logged, not denied" : "deny"));
        return lines;
    }

    /** A request that matched something (score above 0): counted, logged, its matches kept for its access-log line. */
    private PolicyDecision verdict(Inspection in, PolicyInput request) {
        boolean reached = in.score >= threshold;
        request.matches(in.logLine());
        if (reached) {
            counters.reached(detectOnly);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("attacks policy '" + name + "' score " + in.score + "/" + threshold
                    + (reached ? detectOnly ? " detect only" : " denied" : " below threshold") + ": " + in.log);
        }
        if (reached) {
            summarize(in);
        }
        return reached && !detectOnly ? denied : PolicyDecision.CONTINUE;
    }

    /**
     * Every request that reaches the threshold is counted (/metrics) and logged at DEBUG; INFO gets at
     * most one line per policy every {@link #SUMMARY_NANOS}, with the count since the last one and the
     * latest match, so a client sending attacks on every request cannot flood the journal (as TLS
     * handshake failures are summarised).
     */
    private void summarize(Inspection in) {
        long count = sinceSummary.incrementAndGet();
        long now = System.nanoTime();
        long due = nextSummary.get();
        if (now - due >= 0 && nextSummary.compareAndSet(due, now + SUMMARY_NANOS) && LOG.isInfoEnabled()) {
            sinceSummary.addAndGet(-count);
            LOG.info("attacks policy '" + name + "': " + count + " request(s) reached the threshold " + threshold
                    + (detectOnly ? " (detect only)" : " (denied)") + " since the last summary (each at DEBUG); latest, score "
                    + in.score + ": " + in.log);
        }
    }

    /** Bits of the exclusions whose paths cover this request. */
    private long activeExclusions(PolicyInput request) {
        long active = 0;
        for (int i = 0; i < exclusions.length && i < Long.SIZE; i++) {
            if (exclusions[i].appliesToPath(request.path(), request.pathLength())) {
                active |= 1L << i;
            }
        }
        return active;
    }

    private void inspect(PolicyInput request, Inspection in, long active) {
        CharSequence target = request.target();
        int queryStart = request.queryStart();
        if (path && !done(in)) {
            inspectPath(request, target, queryStart, in, active);
            for (int i = 0; i < FILE_NAMES.length && !done(in); i++) {
                inspectHeader(request.header(FILE_NAMES[i]), Part.FILE_NAME, in, active);
            }
        }
        if (query && target != null && queryStart >= 0 && !done(in)) {
            inspectQuery(target, queryStart, request.queryEnd(), in, active);
        }
        if (cookies && !done(in)) {
            CharSequence cookie = request.header(COOKIE);
            if (cookie != null) {
                inspectCookies(cookie, in, active);
            }
        }
        if (userAgent && !done(in)) {
            inspectHeader(request.header(USER_AGENT), Part.USER_AGENT, in, active);
        }
        for (int i = 0; i < headers.length && !done(in); i++) {
            inspectHeader(request.header(headers[i]), Part.HEADER, in, active);
        }
        if (allHeaders && !done(in)) {
            inspectAllHeaders(request, in, active);
        }
        if (!done(in)) {
            ProtocolChecks.run(this, request, in, active);
        }
    }

    /**
     * Every header field line (repeated ones each) not inspected above: not the User-Agent, the
     * Cookie or a named header when those are inspected. Each value is named by its header's
     * lower-case name (for logs and {@code exclusions[].arguments}); the name itself is checked for
     * scanners' headers (913110). 0 B unless a rule matches.
     */
    private void inspectAllHeaders(PolicyInput request, Inspection in, long active) {
        for (int i = 0, n = request.headerCount(); i < n && !done(in); i++) {
            in.headerName(request.headerName(i));
            if (isInspectedElsewhere(in)) {
                continue;
            }
            CharSequence value = request.headerValue(i);
            int valueLength = value == null ? 0 : value.length();
            // The field as a whole (lower-cased name, ':', value): one lookup answers both checks below.
            int pairLength = in.clean == null || in.explain != null || in.nameLength < 0 ? -1 : in.pair(value, valueLength);
            long pair = pairLength < 0 ? 0 : CleanValues.keyOf(in.pair, pairLength, CleanValues.HEADER_FIELD, paranoia);
            if (pair != 0 && in.clean.contains(pair, in.pair, pairLength)) {
                continue;
            }
            int dirt = in.dirt;
            if (in.nameLength > 0 && isScannerHeader(in)) {
                nameHit(SCANNER_HEADER, Part.ANY_HEADER, in, active);
            }
            if (valueLength > 0 && !done(in)) {
                int copied = pair != 0 ? in.copy(in.pair, in.nameLength + 1, valueLength) : in.copy(value, 0, valueLength);
                match(Part.ANY_HEADER, copied, in, active);
            }
            if (pair != 0 && in.dirt == dirt && !done(in)) {
                in.clean.remember(pair, in.pair, pairLength);
            }
        }
    }

    /**
     * Whether CRS 913110's automaton finds a scanner's header in the name {@code in.name}; a name it
     * does not find is kept by the thread's {@link CleanValues} (browsers send the same dozen names on
     * every request) and not walked again.
     */
    private boolean isScannerHeader(Inspection in) {
        CleanValues clean = in.clean;
        int n = in.nameLength;
        if (clean == null || in.explain != null || n > CleanValues.MAX) {
            return scannerHeaderNames.find(in.name, 0, n) >= 0;
        }
        long key = CleanValues.keyOf(in.name, n, CleanValues.HEADER_NAME, paranoia);
        if (clean.contains(key, in.name, n)) {
            return false;
        }
        if (scannerHeaderNames.find(in.name, 0, n) >= 0) {
            return true;
        }
        clean.remember(key, in.name, n);
        return false;
    }

    /** Whether the lower-cased name {@code in.name} is the User-Agent, the Cookie or a named header, inspected above. */
    private boolean isInspectedElsewhere(Inspection in) {
        int n = in.nameLength;
        for (byte[] other : elsewhere) {
            if (other.length == n && Arrays.equals(in.name, 0, n, other, 0, n)) {
                return true;
            }
        }
        return false;
    }

    /**
     * One {@link ProtocolChecks} verdict: {@code matched} scores {@code rule} (at this policy's
     * paranoia level, once per request, unless excluded), its excerpt the header's value and its
     * argument name the header's ({@code name}, null: none). 0 B unless it matches.
     */
    void check(AttackRule rule, boolean matched, AsciiString name, CharSequence value, Inspection in, long active) {
        if (rule.paranoia() > paranoia || done(in) || in.hasMatched(rule) && in.explain == null || !matched && in.explain == null) {
            return;
        }
        if (name == null) {
            in.nameLength = -1;
        } else {
            in.name(name, 0, name.length(), false);
        }
        if (matched && !isExcluded(rule, in, active)) {
            int n = value == null ? 0 : in.copy(value, 0, Math.min(value.length(), Inspection.MAX_NAME));
            hit(rule, Part.HEADER, in.value, n, n, in);
        } else if (in.explain != null) {
            in.explain.add(rule.id() + " " + where(Part.HEADER, in) + ": " + (matched ? "excluded" : "no match"));
        }
    }

    private boolean done(Inspection in) {
        return in.score >= threshold && in.explain == null;
    }

    private void inspectPath(PolicyInput request, CharSequence target, int queryStart, Inspection in, long active) {
        in.nameLength = -1;
        int n;
        if (target != null && target.length() > 0 && target.charAt(0) == '/') {
            int end = queryStart >= 0 ? queryStart - 1 : pathEnd(target);
            n = in.copy(target, 0, end);
        } else {
            n = in.copy(request.path(), request.pathLength());
        }
        match(Part.PATH, n, in, active);
    }

    private static int pathEnd(CharSequence target) {
        for (int i = 0, n = target.length(); i < n; i++) {
            if (target.charAt(i) == '?' || target.charAt(i) == '#') {
                return i;
            }
        }
        return target.length();
    }

    /**
     * Parameters split on {@code &}, as CRS, PHP, servlet containers and Node read a query, so that
     * {@code a=x;wget http://...} is one value and its shell separator is seen; a parameter holding a
     * {@code ;} is also inspected as the parameters a back end that splits on {@code ;} too would see
     * ({@code x=1;q=4294967296} has a {@code q} whose whole value is the magic number). Each name and
     * value is inspected; a rule scores once per request however many of them match it.
     */
    private void inspectQuery(CharSequence target, int from, int to, Inspection in, long active) {
        int n = in.source(target, from, to);
        byte[] s = in.source;
        long line = lineKey(s, n, CleanValues.QUERY_LINE, in);
        if (line != 0 && in.clean.contains(line, s, n)) {
            return;
        }
        int dirt = in.dirt;
        int start = 0;
        int semicolon = -1;
        for (int i = 0; i <= n && !done(in); i++) {
            if (i == n || s[i] == '&') {
                if (i > start) {
                    argument(s, start, i, Part.QUERY, true, in, active);
                    if (semicolon >= 0) {
                        splitOnSemicolons(s, start, i, in, active);
                    }
                }
                start = i + 1;
                semicolon = -1;
            } else if (s[i] == ';' && semicolon < 0) {
                semicolon = i;
            }
        }
        keepLine(line, s, n, dirt, in);
    }

    /**
     * The memo key of a whole query or {@code Cookie} line {@code s[0, n)} ({@code kind}:
     * {@link CleanValues#QUERY_LINE} or {@link CleanValues#COOKIE_LINE}), or 0 when lines are not kept
     * here (explain, a body's inspection, a line over {@link CleanValues#MAX}). A browser sends the same
     * cookies on every request: a line whose every argument was clean is answered in one lookup.
     */
    private long lineKey(byte[] s, int n, int kind, Inspection in) {
        return in.clean == null || in.explain != null || n > CleanValues.MAX ? 0 : CleanValues.keyOf(s, n, kind, paranoia);
    }

    /**
     * Keeps the line {@code s[0, n)} under {@code key} when none of its arguments matched anything since
     * {@code dirt} (nothing scored, was excluded or passed over). Written only now: the arguments' own
     * lookups in between may have used the same slot.
     */
    private void keepLine(long key, byte[] s, int n, int dirt, Inspection in) {
        if (key != 0 && in.dirt == dirt && !done(in)) {
            in.clean.remember(key, s, n);
        }
    }

    /** The query parameter {@code s[from, to)}, which holds a {@code ;}, as the parameters its {@code ;} separate. */
    private void splitOnSemicolons(byte[] s, int from, int to, Inspection in, long active) {
        int start = from;
        for (int i = from; i <= to && !done(in); i++) {
            if (i == to || s[i] == ';') {
                if (i > start) {
                    argument(s, start, i, Part.QUERY, true, in, active);
                }
                start = i + 1;
            }
        }
    }

    /** Cookies split on {@code ;}; leading spaces skipped; name and value each inspected. */
    private void inspectCookies(CharSequence cookie, Inspection in, long active) {
        int n = in.source(cookie, 0, cookie.length());
        byte[] s = in.source;
        long line = lineKey(s, n, CleanValues.COOKIE_LINE, in);
        if (line != 0 && in.clean.contains(line, s, n)) {
            return;
        }
        int dirt = in.dirt;
        int start = 0;
        for (int i = 0; i <= n && !done(in); i++) {
            if (i == n || s[i] == ';') {
                while (start < i && s[start] == ' ') {
                    start++;
                }
                if (i > start) {
                    argument(s, start, i, Part.COOKIE, false, in, active);
                }
                start = i + 1;
            }
        }
        keepLine(line, s, n, dirt, in);
    }

    /** One argument {@code s[from, to)} of {@link Inspection#source}: its name, then its value after the first {@code =}. */
    private void argument(byte[] s, int from, int to, int part, boolean decodeName, Inspection in, long active) {
        int eq = from;
        while (eq < to && s[eq] != '=') {
            eq++;
        }
        in.name(s, from, eq - from, decodeName);
        if (part == Part.QUERY && hasLineBreak(in.name, in.nameLength)) {
            nameHit(NAME_LINE_BREAK, part, in, active);
        }
        match(part, in.copy(s, from, eq - from), in, active);
        if (eq < to && !done(in)) {
            match(part, in.copy(s, eq + 1, to - eq - 1), in, active);
        }
    }

    /** A check in code over the current name ({@code in.name}) matched: scores {@code rule} with the name as its excerpt. */
    private void nameHit(AttackRule rule, int part, Inspection in, long active) {
        in.dirt++;
        if (rule.paranoia() <= paranoia && (!in.hasMatched(rule) || in.explain != null) && !isExcluded(rule, in, active)) {
            hit(rule, part, in.name, in.nameLength, in.nameLength, in);
        }
    }

    private static boolean hasLineBreak(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            if (b[i] == '\n' || b[i] == '\r') {
                return true;
            }
        }
        return false;
    }

    private void inspectHeader(CharSequence value, int part, Inspection in, long active) {
        if (value != null && value.length() > 0) {
            in.nameLength = -1;
            match(part, in.copy(value, 0, value.length()), in, active);
        }
    }

    /**
     * Transforms the value buffer's first {@code n} bytes and runs the part's automata over them;
     * where command-line rules apply, first over a copy in the {@link Transform#cmdLine} form, or
     * over the value itself when that form is the same bytes (no {@code % & * +}, whitespace or
     * {@link Transform#CMD} characters: both forms are the value lower-cased). The two forms' unions
     * are walked together ({@link Dfa#findEach}); the command-line rules' matches are scored first.
     * A head value this thread has seen match nothing at this paranoia level, in this part, is not
     * walked again ({@link CleanValues}).
     */
    private void match(int part, int n, Inspection in, long active) {
        byte[] b = in.value;
        CleanValues clean = in.clean;
        if (clean == null || in.explain != null || !CleanValues.keeps(part, n)) {
            if (walkAll(part, n, in, active)) {
                in.dirt++;
            }
            return;
        }
        long key = CleanValues.key(b, n, part, paranoia);
        if (clean.contains(key, b, n)) {
            return;
        }
        clean.stage(key, b, n);
        if (walkAll(part, n, in, active)) {
            in.dirt++;
        } else {
            clean.keep(key);
        }
    }

    /**
     * {@link #match} without the memo of clean values: true unless the value is known to match no rule
     * at this paranoia level in this part (no union matched, or no rule of the groups a union pointed
     * at matched, excluded or not, and none was passed over for having matched already). A head value
     * known clean is kept by {@link CleanValues} and not walked again.
     */
    private boolean walkAll(int part, int n, Inspection in, long active) {
        int p = Part.index(Part.rules(part));
        byte[] b = in.value;
        int flags = Transform.classify(b, 0, n);
        Walk cmd = cmdWalks[p];
        if (cmd == null) {
            return walk(part, b, transform(b, n, part, flags), walks[p], in, active);
        }
        boolean sameForms = (flags & ~Transform.UPPER) == 0 && part != Part.PATH;
        byte[] c = sameForms ? b : in.copyToCmd(n);
        int cmdLength = sameForms ? 0 : transformCmdLine(c, n, part, flags);
        int length = transform(b, n, part, flags);
        if (sameForms) {
            cmdLength = length;
        }
        if (in.explain != null) {
            walkGroups(part, c, cmdLength, cmd, in, active);
            walkGroups(part, b, length, walks[p], in, active);
            return true;
        }
        int found = Dfa.findEach(cmd.union, c, cmdLength, walks[p].union, b, length);
        boolean cmdDirty = (found & 1) != 0 && walkGroups(part, c, cmdLength, cmd, in, active);
        boolean plainDirty = (found & 2) != 0 && walkGroups(part, b, length, walks[p], in, active);
        return cmdDirty | plainDirty;
    }

    private boolean walk(int part, byte[] b, int length, Walk w, Inspection in, long active) {
        // The union holds every rule, a gap rule by its trigger: no union match, no rule can match.
        return (in.explain != null || w.union.find(b, 0, length) >= 0) && walkGroups(part, b, length, w, in, active);
    }

    /** The groups whose automaton matched, each rule of them walked; true unless no rule matched or was passed over. */
    private boolean walkGroups(int part, byte[] b, int length, Walk w, Inspection in, long active) {
        boolean dirty = in.explain != null;
        for (int g = 0; g < w.groups.length; g++) {
            if (in.explain != null || w.groups[g].find(b, 0, length) >= 0) {
                dirty |= walkGroup(part, b, length, w, g * AttackRules.GROUP, Math.min(w.rules.length, (g + 1) * AttackRules.GROUP), in,
                        active);
            }
        }
        return dirty;
    }

    /** True when a rule matched (scored, excluded or not) or was passed over (it matched before in this request). */
    private boolean walkGroup(int part, byte[] b, int length, Walk w, int from, int to, Inspection in, long active) {
        boolean dirty = false;
        for (int k = from; k < to; k++) {
            AttackRule rule = w.rules[k];
            if ((rule.parts() & Part.rules(part)) == 0) {
                continue;
            }
            if (in.hasMatched(rule) && in.explain == null) {
                dirty = true; // not walked: whether this value matches it is not known
                continue;
            }
            int end = w.dfas[k].find(b, 0, length);
            dirty |= end >= 0;
            if (end >= 0 && !isExcluded(rule, in, active)) {
                hit(rule, part, b, length, end, in);
            } else if (in.explain != null) {
                in.explain.add(rule.id() + " " + where(part, in) + ": " + (end >= 0 ? "excluded" : "no match"));
            }
        }
        return dirty;
    }

    private void hit(AttackRule rule, int part, byte[] b, int length, int end, Inspection in) {
        boolean first = !in.hasMatched(rule);
        if (first) {
            in.markMatched(rule);
            in.score += rule.score();
            counters.matched(rule.group());
            in.describe(rule, part, b, length, end);
        }
        if (in.explain != null) {
            StringBuilder excerpt = new StringBuilder();
            Inspection.appendEscaped(excerpt, b, Math.max(0, Math.min(end, length) - 48), Math.min(end, length));
            in.explain.add(rule.id() + " " + where(part, in) + ": MATCH +" + (first ? rule.score() : 0) + " (" + rule.message()
                    + ") \"" + excerpt + '"');
        }
    }

    private static String where(int part, Inspection in) {
        if (in.nameLength < 0) {
            return Part.name(part);
        }
        StringBuilder b = new StringBuilder(Part.name(part)).append(':');
        Inspection.appendEscaped(b, in.name, 0, in.nameLength);
        return b.toString();
    }

    private boolean isExcluded(AttackRule rule, Inspection in, long active) {
        for (int i = 0; active != 0 && i < exclusions.length && i < Long.SIZE; i++) {
            if ((active & 1L << i) != 0 && exclusions[i].covers(rule, in.name, in.nameLength)) {
                return true;
            }
        }
        return false;
    }

    /** The CRS transformation chain for a part; returns the new length. 0 B. */
    static int transform(byte[] b, int n, int part) {
        return transform(b, n, part, Transform.classify(b, 0, n));
    }

    /**
     * {@link #transform} given the value's {@link Transform#classify} bits: a value without {@code %},
     * {@code &} and full-width forms (most browser values) skips the decoders and every step that cannot change it.
     */
    static int transform(byte[] b, int n, int part, int flags) {
        if ((flags & (Transform.PERCENT | Transform.AMP | Transform.WIDE)) != 0) {
            return transformFully(b, n, part);
        }
        int length = n;
        if (isForm(part) && (flags & Transform.PLUS) != 0) {
            Transform.plusToSpace(b, 0, length);
            flags |= Transform.SPACE;
        }
        if ((flags & Transform.UPPER) != 0) {
            Transform.lowerCase(b, 0, length);
        }
        if ((flags & Transform.STAR) != 0) {
            length = Transform.removeComments(b, 0, length);
            flags |= Transform.SPACE;
        }
        if ((flags & Transform.SPACE) != 0) {
            length = Transform.compressWhitespace(b, 0, length);
        }
        return part == Part.PATH ? Transform.normalizePath(b, 0, length) : length;
    }

    /** Every step of the chain, whatever the value holds (the reference {@link #transform} must equal). 0 B. */
    static int transformFully(byte[] b, int n, int part) {
        int length = Transform.htmlEntityDecode(b, 0, Transform.foldFullWidth(b, 0, decode(b, n, part)));
        Transform.lowerCase(b, 0, length);
        length = Transform.removeComments(b, 0, length);
        length = Transform.compressWhitespace(b, 0, length);
        return part == Part.PATH ? Transform.normalizePath(b, 0, length) : length;
    }

    /** CRS's chain for the command-injection rules: the part's decoding, then {@code cmdLine}. 0 B. */
    static int transformCmdLine(byte[] b, int n, int part) {
        return transformCmdLine(b, n, part, Transform.classify(b, 0, n));
    }

    /** {@link #transformCmdLine} given the value's {@link Transform#classify} bits. 0 B. */
    static int transformCmdLine(byte[] b, int n, int part, int flags) {
        if ((flags & Transform.PERCENT) != 0) {
            return transformCmdLineFully(b, n, part);
        }
        if (isForm(part) && (flags & Transform.PLUS) != 0) {
            Transform.plusToSpace(b, 0, n);
        }
        return Transform.cmdLine(b, 0, n);
    }

    /** Every step of the command-line chain (the reference for {@link #transformCmdLine}). 0 B. */
    static int transformCmdLineFully(byte[] b, int n, int part) {
        return Transform.cmdLine(b, 0, decode(b, n, part));
    }

    /** The decoding both chains start with: the part's percent-decoding, then {@code urlDecodeUni}. 0 B. */
    private static int decode(byte[] b, int n, int part) {
        int length = n;
        if (isForm(part)) {
            length = Transform.percentDecode(b, 0, length, true);
        } else if (part == Part.PATH) {
            length = Transform.percentDecode(b, 0, length, false);
        }
        return Transform.urlDecodeUni(b, 0, length);
    }

    /** The query and a form body: {@code +} is a space, {@code %XX} decoded first. */
    private static boolean isForm(int part) {
        return part == Part.QUERY || part == Part.BODY_FORM;
    }

    /** This policy's counters (per name, kept across reloads). */
    public AttackCounters counters() {
        return counters;
    }

    /** The match descriptions of the last request evaluated on this thread, as logged (tests). */
    static String lastMatchesOnThisThread() {
        return Inspection.current().log.toString();
    }

    /** The log line of the last body phase that decided on this thread (tests). */
    static String lastBodyLogOnThisThread() {
        return BodyScanner.lastLog();
    }

    /** Bytes copied for inspection by the last request evaluated on this thread (tests, benchmarks). */
    public static long inspectedBytesOnThisThread() {
        return Inspection.current().inspectedBytes;
    }

    @Override
    public String toString() {
        return "AttacksPolicy[" + name + ", paranoia " + paranoia + ", threshold " + threshold + (detectOnly ? ", detect only" : "")
                + ", " + exclusions.length + " exclusions -> " + denied + ']';
    }
}
