package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyInput;

/**
 * CRS 911/920/921 checks over the head's fields that are comparisons rather than patterns: a
 * method outside GET, HEAD, POST, PUT, DELETE, OPTIONS and PATCH (911100), a GET or HEAD with a
 * body (920170), the Content-Type's media type (920420, CRS 3.3.4's default allowed list), its
 * syntax (920470, CRS's grammar), its charset (920480), a second media type smuggled into it
 * (921421, 921422), a {@code multipart/form-data} without a valid boundary (920900), two charsets
 * in it (920530), a full-width {@code %uFFxx} escape in the target (920260, a warning), a repeated
 * {@code Connection} option (920210), headers CRS restricts (920450), an invalid percent-encoding
 * in the target (920220), six or more byte ranges (920200) and an {@code Accept} charset outside
 * CRS's list (920600), and at paranoia 2 a missing {@code Accept} (920300, a notice, not for
 * OPTIONS or a WebKit or Android User-Agent) or a missing User-Agent (920320, a notice). 920200,
 * 920210 and 920220 are warnings (3) and 920300 a notice (2), as in CRS: each denies only with
 * another. Each is one {@link AttackRule} of the table (parts 0: never walked as a pattern),
 * scored, counted, excluded and logged like the others. Per request: one Content-Type lookup and
 * one lookup per restricted header, 0 B unless a check matches. The HTTP decoders already refuse
 * what RFC 9112 forbids (bad request lines, conflicting lengths); these are what CRS adds on top.
 */
final class ProtocolChecks {
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    private static final AsciiString ACCEPT = AsciiString.cached("accept");
    private static final AsciiString CONNECTION = AsciiString.cached("connection");
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString[] RANGES = {AsciiString.cached("range"), AsciiString.cached("request-range")};
    /**
     * CRS 3.3.4's {@code tx.restricted_headers}. {@code Accept-Charset} is one: no current browser sends it (a charset the
     * client asks for is how a response can be turned into UTF-7 and the like). The WAF bench sends CRS's regression
     * tests without the harness's own {@code Accept-Charset}, except 920450's, so its detection counts the payloads.
     */
    private static final AsciiString[] RESTRICTED = {AsciiString.cached("accept-charset"), AsciiString.cached("content-encoding"),
        AsciiString.cached("proxy"), AsciiString.cached("lock-token"), AsciiString.cached("content-range"), AsciiString.cached("if")};
    /** CRS 3.3.4's {@code tx.allowed_request_content_type}. */
    private static final String[] ALLOWED_TYPES = {"application/x-www-form-urlencoded", "multipart/form-data", "multipart/related",
        "text/xml", "application/xml", "application/soap+xml", "application/json", "application/cloudevents+json",
        "application/cloudevents-batch+json"};
    /** CRS 3.3.4's {@code tx.allowed_request_content_type_charset}. */
    private static final String[] ALLOWED_CHARSETS = {"utf-8", "iso-8859-1", "iso-8859-15", "windows-1252"};
    /** Parameter names CRS's 920470 grammar accepts. */
    private static final String[] PARAMETERS = {"action", "boundary", "charset", "type", "start", "start-info"};
    /** 921422's words after the first media type. */
    private static final String[] TYPE_WORDS = {"audio", "image", "video", "csv", "css", "vnd", "pdf", "plain", "json", "soap", "xml",
        "x-www-form-urlencoded", "form-data", "related", "x-amf", "octet", "stream", "csp", "report", "text", "multipart",
        "application"};
    private static final String[] INJECTED = {"application/xml", "application/soap+xml", "text/xml", "application/json"};

    static final AttackRule GET_WITH_BODY = AttackRules.byId(920170);
    static final AttackRule TYPE_NOT_ALLOWED = AttackRules.byId(920420);
    static final AttackRule MALFORMED_TYPE = AttackRules.byId(920470);
    static final AttackRule CHARSET = AttackRules.byId(920480);
    static final AttackRule RESTRICTED_HEADER = AttackRules.byId(920450);
    static final AttackRule TYPE_INJECTION = AttackRules.byId(921421);
    static final AttackRule SECOND_TYPE = AttackRules.byId(921422);
    static final AttackRule URL_ENCODING = AttackRules.byId(920220);
    static final AttackRule CONNECTION_TWICE = AttackRules.byId(920210);
    static final AttackRule FULL_WIDTH = AttackRules.byId(920260);
    static final AttackRule MANY_RANGES = AttackRules.byId(920200);
    static final AttackRule TWO_CHARSETS = AttackRules.byId(920530);
    static final AttackRule ACCEPT_CHARSET = AttackRules.byId(920600);
    static final AttackRule NO_ACCEPT = AttackRules.byId(920300);
    static final AttackRule RANGE_LAST_BEFORE_FIRST = AttackRules.byId(920190);
    static final AttackRule NUMERIC_HOST = AttackRules.byId(920350);
    static final AttackRule EMPTY_ACCEPT = AttackRules.byId(920310);
    static final AttackRule EMPTY_ACCEPT_NO_AGENT = AttackRules.byId(920311);
    static final AttackRule EMPTY_AGENT = AttackRules.byId(920330);
    static final AttackRule NO_AGENT = AttackRules.byId(920320);
    static final AttackRule METHOD = AttackRules.byId(911100);
    /** The methods 911100 lets through: CRS's {@code tx.allowed_methods} and the REST methods (WebDAV's need an exclusion). */
    private static final String[] ALLOWED_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"};
    static final AttackRule LENGTH_WITHOUT_TYPE = AttackRules.byId(920340);
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final AsciiString HOST = AsciiString.cached("host");
    /** User agents for which CRS's 920300 lets a missing Accept pass ({@code @pm}: case folded). */
    private static final String[] NO_ACCEPT_AGENTS = {"applewebkit", "android"};
    /** User agents for which CRS's 920310 lets an empty Accept pass. */
    private static final String[] EMPTY_ACCEPT_AGENTS = {"applewebkit", "android", "business", "enterprise", "entreprise"};

    private ProtocolChecks() {
    }

    /** Runs the checks of {@code policy}'s paranoia level over the request's head. 0 B unless one matches. */
    static void run(AttacksPolicy policy, PolicyInput request, Inspection in, long active) {
        CharSequence authority = request.authority(); // read before any other header (it may be a re-pointed view)
        policy.check(NUMERIC_HOST, authority != null && isNumericHost(authority), HOST, authority, in, active);
        CharSequence method = request.method();
        boolean getOrHead = method != null && (AsciiString.contentEquals(method, "GET") || AsciiString.contentEquals(method, "HEAD"));
        policy.check(GET_WITH_BODY, getOrHead && request.hasBody(), null, method, in, active);
        policy.check(METHOD, method != null && !getOrHead && !isAllowedMethod(method), null, method, in, active);
        CharSequence target = request.target();
        policy.check(URL_ENCODING, target != null && hasInvalidPercent(target), null, target, in, active);
        policy.check(FULL_WIDTH, target != null && hasFullWidthEscape(target), null, target, in, active);
        for (AsciiString range : RANGES) {
            CharSequence v = request.header(range);
            policy.check(MANY_RANGES, v != null && hasSixRanges(v), range, v, in, active);
            policy.check(RANGE_LAST_BEFORE_FIRST, v != null && endsBeforeItStarts(v), range, v, in, active);
        }
        CharSequence connection = request.header(CONNECTION);
        policy.check(CONNECTION_TWICE, connection != null && repeatsConnectionOption(connection), CONNECTION, connection, in, active);
        CharSequence accept = request.header(ACCEPT);
        policy.check(ACCEPT_CHARSET, accept != null && !isAcceptGrammar(accept, in, policy.paranoia()), ACCEPT, accept, in, active);
        boolean noAccept = accept == null;
        boolean emptyAccept = accept != null && accept.length() == 0;
        boolean options = method != null && AsciiString.contentEquals(method, "OPTIONS");
        CharSequence ua = request.header(USER_AGENT);
        policy.check(EMPTY_AGENT, ua != null && ua.length() == 0, USER_AGENT, ua, in, active);
        if (noAccept && !options) {
            policy.check(NO_ACCEPT, ua == null || !containsAnyFolded(ua, NO_ACCEPT_AGENTS), null, method, in, active);
        }
        policy.check(NO_AGENT, ua == null, null, method, in, active);
        if (emptyAccept && !options) {
            policy.check(EMPTY_ACCEPT, ua != null && !containsAnyFolded(ua, EMPTY_ACCEPT_AGENTS), ACCEPT, "", in, active);
            policy.check(EMPTY_ACCEPT_NO_AGENT, ua == null, ACCEPT, "", in, active);
        }
        CharSequence length = request.header(CONTENT_LENGTH);
        boolean nonZeroLength = length != null && !(length.length() == 1 && length.charAt(0) == '0');
        for (int i = 0; i < RESTRICTED.length; i++) {
            CharSequence v = request.header(RESTRICTED[i]);
            policy.check(RESTRICTED_HEADER, v != null, RESTRICTED[i], v, in, active);
        }
        CharSequence type = request.header(CONTENT_TYPE);
        if (type == null) {
            policy.check(LENGTH_WITHOUT_TYPE, nonZeroLength, CONTENT_LENGTH, null, in, active);
            return;
        }
        int end = mediaTypeEnd(type);
        policy.check(TYPE_NOT_ALLOWED, end > 0 && !isOneOf(type, 0, end, ALLOWED_TYPES), CONTENT_TYPE, type, in, active);
        policy.check(MALFORMED_TYPE, !isWellFormed(type), CONTENT_TYPE, type, in, active);
        policy.check(CHARSET, hasForeignCharset(type), CONTENT_TYPE, type, in, active);
        policy.check(TWO_CHARSETS, charsetCount(type) > 1, CONTENT_TYPE, type, in, active);
        int separator = firstSeparator(type);
        policy.check(TYPE_INJECTION, separator > 0 && injectsType(type, separator + 1), CONTENT_TYPE, type, in, active);
        policy.check(SECOND_TYPE, separator > 0 && namesSecondType(type, separator + 1), CONTENT_TYPE, type, in, active);
        boolean formData = end == 19 && regionEquals(type, 0, "multipart/form-data", true);
        policy.check(MultipartParser.MALFORMED, formData && MultipartParser.boundary(type, null) < 0, CONTENT_TYPE, type, in, active);
    }

    /** End of the media type: the first {@code ;} or whitespace (920420 reads {@code ^[^;\s]+}). */
    private static int mediaTypeEnd(CharSequence s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) != ';' && !isSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** 921421/921422's {@code ^[^;\s,]+[;\s,]}: the position of that separator, or -1. */
    private static int firstSeparator(CharSequence s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) != ';' && s.charAt(i) != ',' && !isSpace(s.charAt(i))) {
            i++;
        }
        return i > 0 && i < s.length() ? i : -1;
    }

    /**
     * CRS 920470's grammar (after lower-casing, as CRS does): {@code ^[\w/.+-]+(?:\s?;\s?(?:action|boundary|charset|type|start(?:-info)?)\s?=\s?['"\w.()+,/:=?<>@-]+)*$}.
     */
    static boolean isWellFormed(CharSequence s) {
        int n = s.length();
        int i = 0;
        while (i < n && isTypeChar(s.charAt(i))) {
            i++;
        }
        if (i == 0) {
            return false;
        }
        while (i < n) {
            i = isSpace(s.charAt(i)) ? i + 1 : i;
            if (i >= n || s.charAt(i) != ';') {
                return false;
            }
            i++;
            i = i < n && isSpace(s.charAt(i)) ? i + 1 : i;
            int name = parameterEnd(s, i);
            if (name < 0) {
                return false;
            }
            i = name < n && isSpace(s.charAt(name)) ? name + 1 : name;
            if (i >= n || s.charAt(i) != '=') {
                return false;
            }
            i++;
            i = i < n && isSpace(s.charAt(i)) ? i + 1 : i;
            int start = i;
            while (i < n && isValueChar(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return false;
            }
        }
        return true;
    }

    /** The end of the longest parameter name at {@code at} that the grammar accepts, or -1. */
    private static int parameterEnd(CharSequence s, int at) {
        int best = -1;
        for (String p : PARAMETERS) {
            if (at + p.length() <= s.length() && regionEquals(s, at, p, true)) {
                best = Math.max(best, at + p.length());
            }
        }
        return best;
    }

    /** 920480: a {@code charset=} whose value (quotes stripped, case folded) is not an allowed charset. */
    private static boolean hasForeignCharset(CharSequence s) {
        for (int i = 0; i + 7 <= s.length(); i++) {
            int start = charsetValueStart(s, i);
            if (start >= 0) {
                int end = charsetValueEnd(s, start);
                return end > start && !isOneOf(s, start, end, ALLOWED_CHARSETS);
            }
        }
        return false;
    }

    /**
     * Where the value of a {@code charset} parameter at {@code i} starts: after {@code charset},
     * optional spaces, {@code =}, optional spaces and an opening quote; -1 when no such parameter
     * starts at {@code i} ({@code i + 7 <= length}).
     */
    private static int charsetValueStart(CharSequence s, int i) {
        if (!regionEquals(s, i, "charset", true)) {
            return -1;
        }
        int n = s.length();
        int j = skipSpaces(s, i + 7);
        if (j >= n || s.charAt(j) != '=') {
            return -1;
        }
        j = skipSpaces(s, j + 1);
        if (j < n && (s.charAt(j) == '"' || s.charAt(j) == '\'')) {
            j++;
        }
        return j;
    }

    /** The end of a charset value from {@code start}: a {@code ;}, a quote or a space. */
    private static int charsetValueEnd(CharSequence s, int start) {
        int j = start;
        for (int n = s.length(); j < n; j++) {
            char c = s.charAt(j);
            if (c == ';' || c == '"' || c == '\'' || isSpace(c)) {
                break;
            }
        }
        return j;
    }

    private static int skipSpaces(CharSequence s, int from) {
        int j = from;
        while (j < s.length() && isSpace(s.charAt(j))) {
            j++;
        }
        return j;
    }

    /**
     * 920220 ({@code @validateUrlEncoding} over the request target): a {@code %} not followed by two
     * hex digits ({@code %w20}, {@code %1G}, a trailing {@code %}; {@code %u} too, as ModSecurity reads it).
     */
    static boolean hasInvalidPercent(CharSequence target) {
        for (int i = 0, n = target.length(); i < n; i++) {
            if (target.charAt(i) == '%' && (i + 2 >= n || !isHex(target.charAt(i + 1)) || !isHex(target.charAt(i + 2)))) {
                return true;
            }
        }
        return false;
    }

    /** 920260: {@code \%u[fF]{2}[0-9a-fA-F]{2}}, an IIS full-width escape in the target (a warning). */
    static boolean hasFullWidthEscape(CharSequence target) {
        for (int i = 0, n = target.length(); i + 6 <= n; i++) {
            if (target.charAt(i) == '%' && target.charAt(i + 1) == 'u' && (target.charAt(i + 2) | 0x20) == 'f'
                    && (target.charAt(i + 3) | 0x20) == 'f' && isHex(target.charAt(i + 4)) && isHex(target.charAt(i + 5))) {
                return true;
            }
        }
        return false;
    }

    /** 920200: {@code ^bytes=(?:(?:\d+)?-(?:\d+)?\s*,?\s*){6}}, six byte ranges or more (a range DoS). */
    static boolean hasSixRanges(CharSequence v) {
        int n = v.length();
        if (n < 6 || !regionEquals(v, 0, "bytes=", false)) {
            return false;
        }
        int i = 6;
        for (int k = 0; k < 6; k++) {
            while (i < n && isDigit(v.charAt(i))) {
                i++;
            }
            if (i >= n || v.charAt(i) != '-') {
                return false;
            }
            i++;
            while (i < n && isDigit(v.charAt(i))) {
                i++;
            }
            i = skipSpaces(v, i);
            if (i < n && v.charAt(i) == ',') {
                i++;
            }
            i = skipSpaces(v, i);
        }
        return true;
    }

    /**
     * 920210: {@code \b(?:keep-alive|close),\s?(?:keep-alive|close)\b} (case as sent, as CRS reads
     * it): two of those options in a row, the same twice or both.
     */
    static boolean repeatsConnectionOption(CharSequence v) {
        int n = v.length();
        for (int i = 0; i < n; i++) {
            int end = optionEnd(v, i);
            if (end < 0 || end >= n || v.charAt(end) != ',' || i > 0 && isWord(v.charAt(i - 1))) {
                continue;
            }
            int next = end + 1 < n && isSpace(v.charAt(end + 1)) ? end + 2 : end + 1;
            int after = optionEnd(v, next);
            if (after > 0 && (after == n || !isWord(v.charAt(after)))) {
                return true;
            }
        }
        return false;
    }

    /** The end of {@code keep-alive} or {@code close} at {@code at}, or -1. */
    private static int optionEnd(CharSequence v, int at) {
        if (at + 10 <= v.length() && regionEquals(v, at, "keep-alive", false)) {
            return at + 10;
        }
        return at + 5 <= v.length() && regionEquals(v, at, "close", false) ? at + 5 : -1;
    }

    /** 920350: {@code ^[\d.:]+$}, a Host that is a numeric IP address (with or without a port). */
    static boolean isNumericHost(CharSequence host) {
        int n = host.length();
        for (int i = 0; i < n; i++) {
            char c = host.charAt(i);
            if ((c < '0' || c > '9') && c != '.' && c != ':') {
                return false;
            }
        }
        return n > 0;
    }

    /**
     * 920190: the first {@code (\d+)-(\d+)} of a Range (leftmost, greedy, as the regex finds it) whose last byte
     * is below its first. The numbers are compared as text without leading zeros, so no length overflows.
     */
    static boolean endsBeforeItStarts(CharSequence v) {
        int n = v.length();
        int i = 0;
        while (i < n) {
            if (!isDigit(v.charAt(i))) {
                i++;
                continue;
            }
            int firstStart = i;
            while (i < n && isDigit(v.charAt(i))) {
                i++;
            }
            int firstEnd = i;
            if (i + 1 < n && v.charAt(i) == '-' && isDigit(v.charAt(i + 1))) {
                int lastStart = i + 1;
                int lastEnd = lastStart;
                while (lastEnd < n && isDigit(v.charAt(lastEnd))) {
                    lastEnd++;
                }
                return compareNumbers(v, lastStart, lastEnd, firstStart, firstEnd) < 0;
            }
        }
        return false;
    }

    /** Compares two runs of decimal digits by value. */
    private static int compareNumbers(CharSequence s, int aFrom, int aTo, int bFrom, int bTo) {
        while (aFrom < aTo - 1 && s.charAt(aFrom) == '0') {
            aFrom++;
        }
        while (bFrom < bTo - 1 && s.charAt(bFrom) == '0') {
            bFrom++;
        }
        int byLength = Integer.compare(aTo - aFrom, bTo - bFrom);
        if (byLength != 0) {
            return byLength;
        }
        for (int i = 0; i < aTo - aFrom; i++) {
            int d = Character.compare(s.charAt(aFrom + i), s.charAt(bFrom + i));
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Whether {@code s} contains one of {@code lowerCaseWords}, ASCII case folded (CRS's {@code @pm}). */
    private static boolean containsAnyFolded(CharSequence s, String[] lowerCaseWords) {
        for (String word : lowerCaseWords) {
            for (int i = 0; i + word.length() <= s.length(); i++) {
                if (regionEquals(s, i, word, true)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** 920530: how often {@code charset} occurs (case folded): more than once is two charsets (CRS's {@code charset.*?charset}). */
    static int charsetCount(CharSequence s) {
        int count = 0;
        for (int i = 0; i + 7 <= s.length(); i++) {
            if (regionEquals(s, i, "charset", true)) {
                count++;
            }
        }
        return count;
    }

    /**
     * 920600: whether an {@code Accept} value (case folded) is in CRS 3.3.4's grammar, a comma-separated
     * list of {@code type/subtype} with {@code ;} parameters in which a {@code charset} may only be
     * {@code utf-8}, {@code iso-8859-1}, {@code iso-8859-15} or {@code windows-1252}. An empty value, a
     * bare {@code *}, a parameter without {@code =} or a foreign charset fall outside it. Read in one
     * pass: CRS's regex has one way to match any input (see the comments), so no backtracking is needed.
     */
    static boolean isAcceptGrammar(CharSequence s) {
        int n = s.length();
        int i = mediaRangeEnd(s, 0);
        while (i >= 0) {
            if (i == n) {
                return true;
            }
            int j = skipSpaces(s, i); // spaces count only before a separator (a token or value has taken its own)
            if (j == n) {
                return false;
            }
            char c = s.charAt(j);
            if (c == ',') {
                i = mediaRangeEnd(s, skipSpaces(s, j + 1));
            } else if (c == ';') {
                i = acceptParameterEnd(s, skipSpaces(s, j + 1));
            } else {
                return false;
            }
        }
        return false;
    }

    /** {@code T/T}: two runs of token chars (spaces included, as in CRS's class) around a slash; the end, or -1. */
    /**
     * {@link #isAcceptGrammar(CharSequence)}, a value inside the grammar kept by the thread's
     * {@link CleanValues} (a browser sends a handful of {@code Accept} values) so that it is read once.
     */
    private static boolean isAcceptGrammar(CharSequence accept, Inspection in, int paranoia) {
        CleanValues clean = in.clean;
        int n = accept.length();
        if (clean == null || in.explain != null || n > CleanValues.MAX) {
            return isAcceptGrammar(accept);
        }
        in.copy(accept, 0, n);
        byte[] b = in.value;
        long key = CleanValues.keyOf(b, n, CleanValues.ACCEPT_GRAMMAR, paranoia);
        if (clean.contains(key, b, n)) {
            return true;
        }
        if (!isAcceptGrammar(accept)) {
            return false;
        }
        clean.remember(key, b, n);
        return true;
    }

    private static int mediaRangeEnd(CharSequence s, int at) {
        int slash = tokenEnd(s, at);
        if (slash == at || slash >= s.length() || s.charAt(slash) != '/') {
            return -1;
        }
        int end = tokenEnd(s, slash + 1);
        return end == slash + 1 ? -1 : end;
    }

    /**
     * After {@code ;} and spaces: a {@code charset=} with an allowed value, another {@code name=value}, or
     * nothing (CRS's {@code ;?}: an empty parameter; a second {@code ;} then starts the next one). The end, or -1.
     */
    private static int acceptParameterEnd(CharSequence s, int at) {
        int n = s.length();
        if (at == n || !isAcceptToken(s.charAt(at))) {
            return at; // nothing: what follows must be a separator or the end
        }
        if (at + 7 <= n && regionEquals(s, at, "charset", true)) {
            int j = skipSpaces(s, at + 7);
            if (j >= n || s.charAt(j) != '=') {
                return -1;
            }
            j = skipSpaces(s, j + 1);
            if (j < n && s.charAt(j) == '"') {
                j++;
            }
            int end = allowedCharsetEnd(s, j);
            if (end < 0 || end < n && isWord(s.charAt(end))) {
                return -1; // \b after the value
            }
            return end < n && s.charAt(end) == '"' ? end + 1 : end;
        }
        // Any other name: CRS spells "not charset" as "a prefix of charset, then another token char".
        int equals = tokenEnd(s, at);
        if (equals >= n || s.charAt(equals) != '=' || startsLikeCharset(s, at, equals)) {
            return -1;
        }
        int value = skipSpaces(s, equals + 1);
        int end = value;
        while (end < n && isAcceptValue(s.charAt(end))) {
            end++;
        }
        return end == value ? -1 : end;
    }

    /** Whether the name {@code s[from, to)} is {@code charset}, a longer name starting with it, or a proper prefix of it. */
    private static boolean startsLikeCharset(CharSequence s, int from, int to) {
        String charset = "charset";
        int k = 0;
        while (k < charset.length() && from + k < to && (s.charAt(from + k) | 0x20) == charset.charAt(k)) {
            k++;
        }
        return k == charset.length() || from + k == to;
    }

    /** The end of {@code utf-8}, {@code windows-1252}, {@code iso-8859-1} or {@code iso-8859-15} at {@code at}, or -1. */
    private static int allowedCharsetEnd(CharSequence s, int at) {
        int n = s.length();
        if (at + 5 <= n && regionEquals(s, at, "utf-8", true)) {
            return at + 5;
        }
        if (at + 12 <= n && regionEquals(s, at, "windows-1252", true)) {
            return at + 12;
        }
        if (at + 10 <= n && regionEquals(s, at, "iso-8859-1", true)) {
            return at + 10 < n && s.charAt(at + 10) == '5' ? at + 11 : at + 10;
        }
        return -1;
    }

    private static int tokenEnd(CharSequence s, int at) {
        int i = at;
        while (i < s.length() && isAcceptToken(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** CRS 920600's token class {@code [^"(),/:;<=>?![\x5c\]{}]}: spaces and control bytes included. */
    private static boolean isAcceptToken(char c) {
        return c != '"' && isAcceptValue(c);
    }

    /** The class of a parameter value, {@code [^(),/:;<=>?![\x5c\]{}]}: the token class with {@code "}. */
    private static boolean isAcceptValue(char c) {
        return switch (c) {
            case '(', ')', ',', '/', ':', ';', '<', '=', '>', '?', '!', '[', '\\', ']', '{', '}' -> false;
            default -> true;
        };
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /** 921421: after the first type's separator, an XML or JSON media type. */
    private static boolean injectsType(CharSequence s, int from) {
        for (int i = from; i < s.length(); i++) {
            for (String t : INJECTED) {
                if (i + t.length() <= s.length() && regionEquals(s, i, t, true)) {
                    return true;
                }
            }
            if (i + 12 <= s.length() && regionEquals(s, i, "application/", true) && plusJsonAfter(s, i + 12)) {
                return true;
            }
        }
        return false;
    }

    /** {@code .+[+]json} at {@code at}: at least one character, then {@code +json}. */
    private static boolean plusJsonAfter(CharSequence s, int at) {
        for (int i = at + 1; i + 5 <= s.length(); i++) {
            if (regionEquals(s, i, "+json", true)) {
                return true;
            }
        }
        return false;
    }

    /**
     * 921422: after the first type's separator, a media-type word at word boundaries, or a
     * {@code /} or {@code +} between word characters ({@code \b(\/|\+)\b}).
     */
    private static boolean namesSecondType(CharSequence s, int from) {
        int n = s.length();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if ((c == '/' || c == '+') && i > from && isWord(s.charAt(i - 1)) && i + 1 < n && isWord(s.charAt(i + 1))) {
                return true;
            }
            if (!isWord(c) || i > 0 && isWord(s.charAt(i - 1))) {
                continue;
            }
            for (String w : TYPE_WORDS) {
                int end = i + w.length();
                if (end <= n && regionEquals(s, i, w, true) && (end == n || !isWord(s.charAt(end)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One of {@link #ALLOWED_METHODS}, case as sent (a method is case-sensitive: {@code get} is not GET). */
    private static boolean isAllowedMethod(CharSequence method) {
        for (String m : ALLOWED_METHODS) {
            if (AsciiString.contentEquals(method, m)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOneOf(CharSequence s, int from, int to, String[] lowerCase) {
        for (String t : lowerCase) {
            if (t.length() == to - from && regionEquals(s, from, t, true)) {
                return true;
            }
        }
        return false;
    }

    private static boolean regionEquals(CharSequence s, int at, String lower, boolean foldCase) {
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(at + i);
            if (foldCase && c >= 'A' && c <= 'Z') {
                c = (char) (c | 0x20);
            }
            if (c != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == 0x0C;
    }

    private static boolean isWord(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    private static boolean isTypeChar(char c) {
        return isWord(c) || c == '/' || c == '.' || c == '+' || c == '-';
    }

    private static boolean isValueChar(char c) {
        return isWord(c) || "'\".()+,/:=?<>@-".indexOf(c) >= 0;
    }
}
