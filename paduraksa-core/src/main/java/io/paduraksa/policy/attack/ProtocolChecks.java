package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;
import io.paduraksa.policy.PolicyInput;

/**
 * CRS 920/921 checks over the head's fields that are comparisons rather than patterns: a GET or
 * HEAD with a body (920170), the Content-Type's media type (920420, CRS 3.3.4's default allowed
 * list), its syntax (920470, CRS's grammar), its charset (920480), a second media type smuggled
 * into it (921421, 921422), a {@code multipart/form-data} without a valid boundary (920900), two
 * charsets in it (920530), a full-width {@code %uFFxx} escape in the target (920260, a warning), a repeated {@code Connection} option (920210), headers CRS restricts (920450, but not {@code Accept-Charset}), an
 * invalid percent-encoding in the target (920220), six or more byte ranges (920200) and an
 * {@code Accept} charset outside CRS's list (920600), and at paranoia 2 a missing {@code Accept}
 * (920300, a notice, not for OPTIONS or a WebKit or Android User-Agent). 920200, 920210 and
 * 920220 are warnings (3) and 920300 a notice (2), as in CRS: each denies only with another. Each is one {@link AttackRule} of
 * the table (parts 0: never walked as a pattern), scored, counted, excluded and logged like the
 * others. Per request: one Content-Type lookup and one lookup per restricted header, 0 B unless a
 * check matches. The HTTP decoders already refuse what RFC 9112 forbids (bad request lines,
 * conflicting lengths); these are what CRS adds on top.
 */
final class ProtocolChecks {
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    private static final AsciiString ACCEPT = AsciiString.cached("accept");
    private static final AsciiString CONNECTION = AsciiString.cached("connection");
    private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
    private static final AsciiString[] RANGES = {AsciiString.cached("range"), AsciiString.cached("request-range")};
    /**
     * CRS 3.3.4's {@code tx.restricted_headers} without {@code Accept-Charset}: older browsers send
     * it, and so does every one of CRS's own regression tests (the ftw default headers), so with it
     * the WAF bench's detection would count the harness's header, not the payloads.
     */
    private static final AsciiString[] RESTRICTED = {AsciiString.cached("content-encoding"),
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

    private ProtocolChecks() {
    }

    /** Runs the checks of {@code policy}'s paranoia level over the request's head. 0 B unless one matches. */
    static void run(AttacksPolicy policy, PolicyInput request, Inspection in, long active) {
        CharSequence method = request.method();
        boolean getOrHead = method != null && (AsciiString.contentEquals(method, "GET") || AsciiString.contentEquals(method, "HEAD"));
        policy.check(GET_WITH_BODY, getOrHead && request.hasBody(), null, method, in, active);
        CharSequence target = request.target();
        policy.check(URL_ENCODING, target != null && hasInvalidPercent(target), null, target, in, active);
        policy.check(FULL_WIDTH, target != null && hasFullWidthEscape(target), null, target, in, active);
        for (AsciiString range : RANGES) {
            CharSequence v = request.header(range);
            policy.check(MANY_RANGES, v != null && hasSixRanges(v), range, v, in, active);
        }
        CharSequence connection = request.header(CONNECTION);
        policy.check(CONNECTION_TWICE, connection != null && repeatsConnectionOption(connection), CONNECTION, connection, in, active);
        CharSequence accept = request.header(ACCEPT);
        policy.check(ACCEPT_CHARSET, accept != null && hasForeignCharsetParameter(accept), ACCEPT, accept, in, active);
        if (accept == null && !(method != null && AsciiString.contentEquals(method, "OPTIONS"))) {
            CharSequence ua = request.header(USER_AGENT);
            policy.check(NO_ACCEPT, ua == null || !contains(ua, "AppleWebKit") && !contains(ua, "Android"), null, method, in, active);
        }
        for (int i = 0; i < RESTRICTED.length; i++) {
            CharSequence v = request.header(RESTRICTED[i]);
            policy.check(RESTRICTED_HEADER, v != null, RESTRICTED[i], v, in, active);
        }
        CharSequence type = request.header(CONTENT_TYPE);
        if (type == null) {
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
            int start = charsetValueStart(s, i, true);
            if (start >= 0) {
                int end = charsetValueEnd(s, start, true);
                return end > start && !isOneOf(s, start, end, ALLOWED_CHARSETS);
            }
        }
        return false;
    }

    /**
     * Where the value of a {@code charset} parameter at {@code i} starts: after {@code charset},
     * optional spaces, {@code =}, optional spaces and an opening double quote (or single quote, when
     * {@code singleQuotes}); -1 when no such parameter starts at {@code i} ({@code i + 7 <= length}).
     */
    private static int charsetValueStart(CharSequence s, int i, boolean singleQuotes) {
        if (!regionEquals(s, i, "charset", true)) {
            return -1;
        }
        int n = s.length();
        int j = skipSpaces(s, i + 7);
        if (j >= n || s.charAt(j) != '=') {
            return -1;
        }
        j = skipSpaces(s, j + 1);
        if (j < n && (s.charAt(j) == '"' || singleQuotes && s.charAt(j) == '\'')) {
            j++;
        }
        return j;
    }

    /**
     * The end of a charset value from {@code start}: a {@code ;}, a double quote or a space, and in
     * a {@code Content-Type} a single quote, in an {@code Accept} list a comma.
     */
    private static int charsetValueEnd(CharSequence s, int start, boolean contentType) {
        int j = start;
        for (int n = s.length(); j < n; j++) {
            char c = s.charAt(j);
            if (c == ';' || c == '"' || isSpace(c) || (contentType ? c == '\'' : c == ',')) {
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
            while (i < n && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
                i++;
            }
            if (i >= n || v.charAt(i) != '-') {
                return false;
            }
            i++;
            while (i < n && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
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

    /** Whether {@code s} contains {@code word} (case as given, as CRS's {@code @pm} after no transformation). */
    private static boolean contains(CharSequence s, String word) {
        for (int i = 0; i + word.length() <= s.length(); i++) {
            if (regionEquals(s, i, word, false)) {
                return true;
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
     * 920600's charset part: some {@code charset=} parameter of an {@code Accept} whose value (quotes
     * stripped, case folded) is not {@code utf-8}, {@code iso-8859-1}, {@code iso-8859-15} or
     * {@code windows-1252}.
     */
    static boolean hasForeignCharsetParameter(CharSequence s) {
        for (int i = 0; i + 7 <= s.length(); i++) {
            int start = charsetValueStart(s, i, false);
            if (start < 0) {
                continue;
            }
            int end = charsetValueEnd(s, start, false);
            if (!isOneOf(s, start, end, ALLOWED_CHARSETS)) {
                return true;
            }
            i = end - 1;
        }
        return false;
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
