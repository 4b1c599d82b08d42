package io.paduraksa.policy.attack;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import io.netty.util.ByteProcessor;
import io.netty.util.Recycler;
import io.paduraksa.policy.BodyScan;
import io.paduraksa.policy.PolicyDecision;
import io.paduraksa.policy.PolicyInput;

/**
 * The {@code attacks} policy's body phase for one request: a streaming parser of an
 * {@code application/x-www-form-urlencoded} or JSON body that cuts it into arguments as the chunks
 * arrive and hands each complete name and value to the policy's rules, as the query's arguments are.
 *
 * <p><b>State across chunks.</b> Everything a chunk boundary can cut is kept here: the parser's
 * state (in a name or a value, inside a JSON string, after a {@code \} or within the four hex
 * digits of a {@code \\uXXXX} escape, the JSON nesting as a bit stack) and the bytes of the argument
 * in progress. A form value is inspected once its {@code &} (or the body's end) arrived, so a
 * {@code %27} cut after {@code %2} is decoded whole; a JSON string is decoded as it streams in.
 * Bytes kept are bounded by the policy's {@code max} (every byte kept was fed), nesting by
 * {@link #MAX_DEPTH}.
 *
 * <p><b>Decisions.</b> {@link #feed} answers as soon as the score reaches the threshold (a denial),
 * when the bytes fed reach the size bound ({@code on_oversize}), or when the JSON is malformed or
 * nested too deep (denied: what cannot be parsed cannot be inspected); {@link #end} gives the
 * verdict over the whole body. Recycled per event loop; a clean body allocates nothing.
 */
final class BodyScanner implements BodyScan, ByteProcessor {
    /** JSON nesting deeper than this is refused (one bit per level in {@link #stack}). */
    static final int MAX_DEPTH = 64;
    /** Longest JSON literal ({@code true}, a number) kept for its check. */
    private static final int MAX_LITERAL = 64;

    /** CRS 920240: a form body's {@code %} not followed by two hex digits (a warning, as 920220 is for the target). */
    static final AttackRule FORM_ENCODING = AttackRules.byId(920240);

    static final int FORM = 1;
    static final int JSON = 2;
    static final int MULTIPART = 3;
    static final int XML = 4;

    // Parser states. Form: NAME, VALUE. JSON: the rest.
    private static final int NAME = 0;
    private static final int VALUE = 1;
    private static final int J_VALUE = 2;
    private static final int J_VALUE_OR_END = 3;
    private static final int J_KEY = 4;
    private static final int J_KEY_OR_END = 5;
    private static final int J_COLON = 6;
    private static final int J_AFTER = 7;
    private static final int J_STRING = 8;
    private static final int J_ESCAPE = 9;
    private static final int J_UNICODE = 10;
    private static final int J_LITERAL = 11;
    private static final int J_DONE = 12;
    private static final int STOPPED = 13;

    /** Keeps every scanner it makes, as {@code io.paduraksa.gate.RequestRecycler} does (policy cannot import gate). */
    private static final Recycler<BodyScanner> POOL = new Recycler<>(4_096, 0, 32) {
        @Override
        protected BodyScanner newObject(Handle<BodyScanner> handle) {
            return new BodyScanner(handle);
        }
    };

    private final Recycler.Handle<BodyScanner> handle;
    /** This request's inspection (score, matched rules, log line, value buffer), seeded with the head's. */
    private final Inspection in = new Inspection();
    private final byte[] literal = new byte[MAX_LITERAL];
    private final MultipartParser multipart = new MultipartParser(this);
    private final XmlParser xml = new XmlParser(this);

    private AttacksPolicy policy;
    private PolicyInput request;
    private int kind;
    private long limit;
    /** The bound is the protocol's hold limit (an HTTP/2 window), below the policy's own. */
    private boolean windowBound;
    private long active;
    private long fed;
    private int state;
    /** Bytes of the argument in progress in {@code in.value}. */
    private int length;
    // JSON: nesting (bit i set: level i is an object), the string being a key, the escape in progress.
    private long stack;
    private int depth;
    private boolean key;
    private int unicode;
    private int unicodeDigits;
    private int literalLength;
    /** Form: hex digits still due after a {@code %} (0: none). */
    private int escape;
    /** Form: the escape in progress ({@code %} and the hex digit after it, if any). */
    private byte escapeDigit;
    /** Form: the first invalid escape ({@code %}, then up to two bytes that followed it), 920240's excerpt; 0: none seen. */
    private final byte[] badEscape = new byte[3];
    private int badEscapeLength;
    /** Why the body was refused (malformed, too deep), or null. */
    private String refusal;

    private BodyScanner(Recycler.Handle<BodyScanner> handle) {
        this.handle = handle;
    }

    /** A recycled scanner for one body, seeded with the head's verdict ({@code head}, this thread's inspection). */
    static BodyScanner take(AttacksPolicy policy, int kind, CharSequence type, long max, long holdLimit, long active, Inspection head,
            PolicyInput request) {
        BodyScanner s = POOL.get();
        s.policy = policy;
        s.request = request;
        s.kind = kind;
        s.limit = Math.min(max, holdLimit);
        s.windowBound = holdLimit < max;
        s.active = active;
        s.fed = 0;
        s.state = kind == FORM ? NAME : J_VALUE;
        s.length = 0;
        s.stack = 0;
        s.depth = 0;
        s.key = false;
        s.unicode = 0;
        s.unicodeDigits = 0;
        s.literalLength = 0;
        s.escape = 0;
        s.badEscapeLength = 0;
        s.refusal = null;
        s.in.takeOver(head);
        if (kind == MULTIPART) {
            s.multipart.start(type, policy.fileBytes());
        } else if (kind == XML) {
            s.xml.start();
        }
        return s;
    }

    @Override
    public PolicyDecision feed(ByteBuf chunk) {
        if (state == STOPPED) {
            return null; // decided already (the cycle does not feed after a decision)
        }
        int n = chunk.readableBytes();
        long room = limit - fed;
        int take = (int) Math.min(n, room);
        fed += take;
        in.inspectedBytes += take;
        if (take > 0) {
            chunk.forEachByte(chunk.readerIndex(), take, this);
        }
        if (state == STOPPED) {
            return decided();
        }
        // More than the bound arrived; or the protocol's window is the bound and it is full: the client waits for us.
        if (take < n || windowBound && fed >= limit) {
            return oversize();
        }
        return null;
    }

    @Override
    public PolicyDecision end() {
        if (state == STOPPED) {
            return decided();
        }
        if (kind == MULTIPART) {
            multipart.end();
        } else if (kind == XML) {
            xml.end();
        } else {
            if (kind == FORM && escape > 0) {
                invalidEscape(-1); // the body ends with a % or one hex digit (not so where a bound cut it: see oversize)
                escape = 0;
            }
            flush();
        }
        if (state != STOPPED && kind == JSON && !isCompleteJson()) {
            refusal = "body: JSON ends early";
            state = STOPPED;
        }
        return state == STOPPED ? decided() : policy.bodyVerdict(in, null, request);
    }

    @Override
    public PolicyDecision expired() {
        return oversize();
    }

    /** The log line of the last body released on this thread (tests): kept in a per-thread buffer, 0 B. */
    private static final io.netty.util.concurrent.FastThreadLocal<StringBuilder> LAST = new io.netty.util.concurrent.FastThreadLocal<>() {
        @Override
        protected StringBuilder initialValue() {
            return new StringBuilder(256);
        }
    };

    static String lastLog() {
        return LAST.get().toString();
    }

    @Override
    public void release() {
        StringBuilder last = LAST.get();
        last.setLength(0);
        last.append(in.log);
        policy = null;
        request = null;
        refusal = null;
        handle.recycle(this);
    }

    /** The inspection of this body (tests). */
    Inspection inspection() {
        return in;
    }

    /** The size or time bound was reached: what arrived is inspected, then {@code on_oversize} decides. */
    private PolicyDecision oversize() {
        if (state != STOPPED) {
            flush();
        }
        if (state == STOPPED) {
            return decided();
        }
        state = STOPPED;
        return policy.bodyOversize(in, request);
    }

    private PolicyDecision decided() {
        return policy.bodyVerdict(in, refusal, request);
    }

    /** The argument in progress at a bound or the body's end: inspected as far as it arrived. */
    private void flush() {
        if (kind == MULTIPART) {
            multipart.flush();
        } else if (kind == XML) {
            xml.flush();
        } else if (kind == FORM) {
            if (length > 0) {
                argumentEnd();
            }
            check(FORM_ENCODING, badEscapeLength > 0, badEscape, badEscapeLength);
        } else if (state == J_STRING || state == J_ESCAPE || state == J_UNICODE) {
            stringEnd();
        }
    }

    private boolean isCompleteJson() {
        if (state == J_LITERAL && depth == 0) {
            return literalEnd();
        }
        return state == J_DONE || state == J_AFTER && depth == 0 || state == J_VALUE && depth == 0 && fed == 0;
    }

    @Override
    public boolean process(byte b) {
        switch (kind) {
            case FORM -> form(b);
            case JSON -> json(b);
            case MULTIPART -> multipart.process(b);
            default -> xml.process(b);
        }
        return state != STOPPED;
    }

    // ---- application/x-www-form-urlencoded: name=value pairs split on & ----

    private void form(byte b) {
        if (escape > 0) {
            if (Transform.hex(b) < 0) {
                invalidEscape(b);
                escape = 0;
            } else if (--escape == 1) {
                escapeDigit = b;
            }
        }
        if (b == '%') {
            escape = 2;
        }
        if (b == '&') {
            argumentEnd();
        } else if (b == '=' && state == NAME) {
            in.name(in.value, length, true);
            inspect(Part.BODY_FORM);
            state = state == STOPPED ? STOPPED : VALUE;
        } else {
            append(b);
        }
    }

    /** The escape in progress is invalid at {@code b} (-1: the body ended): kept as 920240's excerpt, the first one only. */
    private void invalidEscape(int b) {
        if (badEscapeLength == 0) {
            badEscape[badEscapeLength++] = '%';
            if (escape == 1) {
                badEscape[badEscapeLength++] = escapeDigit;
            }
            if (b >= 0) {
                badEscape[badEscapeLength++] = (byte) b;
            }
        }
    }

    private void argumentEnd() {
        if (state == NAME) {
            in.name(in.value, length, true);
        }
        if (length > 0) {
            inspect(Part.BODY_FORM);
        }
        if (state != STOPPED) {
            state = NAME;
        }
    }

    // ---- JSON: keys and string values, escapes decoded ----

    private void json(byte b) {
        switch (state) {
            case J_STRING -> stringByte(b);
            case J_ESCAPE -> escape(b);
            case J_UNICODE -> unicodeDigit(b);
            case J_LITERAL -> {
                if (isLiteral(b)) {
                    literalByte(b);
                } else if (literalEnd()) {
                    state = J_AFTER;
                    json(b);
                }
            }
            default -> structure(b);
        }
    }

    private void structure(byte b) {
        if (b == ' ' || b == '\t' || b == '\n' || b == '\r') {
            return;
        }
        switch (state) {
            case J_VALUE, J_VALUE_OR_END -> {
                if (b == ']' && state == J_VALUE_OR_END) {
                    pop();
                } else {
                    value(b);
                }
            }
            case J_KEY, J_KEY_OR_END -> {
                if (b == '"') {
                    startString(true);
                } else if (b == '}' && state == J_KEY_OR_END) {
                    pop();
                } else {
                    malformed();
                }
            }
            case J_COLON -> {
                if (b == ':') {
                    state = J_VALUE;
                } else {
                    malformed();
                }
            }
            case J_AFTER -> after(b);
            default -> malformed(); // J_DONE: only whitespace may follow the value
        }
    }

    private void value(byte b) {
        if (b == '{' || b == '[') {
            if (depth == MAX_DEPTH) {
                refusal = "body: JSON nested deeper than " + MAX_DEPTH;
                state = STOPPED;
                return;
            }
            stack = b == '{' ? stack | 1L << depth : stack & ~(1L << depth);
            depth++;
            state = b == '{' ? J_KEY_OR_END : J_VALUE_OR_END;
        } else if (b == '"') {
            startString(false);
        } else if (b == '-' || b >= '0' && b <= '9' || b == 't' || b == 'f' || b == 'n') {
            literalLength = 0;
            state = J_LITERAL;
            literalByte(b);
        } else {
            malformed();
        }
    }

    private void after(byte b) {
        boolean object = depth > 0 && (stack & 1L << depth - 1) != 0;
        if (depth == 0) {
            malformed();
        } else if (b == ',') {
            state = object ? J_KEY : J_VALUE;
        } else if (b == (object ? '}' : ']')) {
            pop();
        } else {
            malformed();
        }
    }

    private void pop() {
        depth--;
        state = depth == 0 ? J_DONE : J_AFTER;
    }

    private void startString(boolean isKey) {
        key = isKey;
        length = 0;
        state = J_STRING;
    }

    private void stringByte(byte b) {
        if (b == '"') {
            stringEnd();
        } else if (b == '\\') {
            state = J_ESCAPE;
        } else if ((b & 0xFF) < 0x20) {
            malformed(); // RFC 8259 7: control characters must be escaped
        } else {
            append(b);
        }
    }

    private void escape(byte b) {
        int c = switch (b) {
            case '"', '\\', '/' -> b;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> -2;
            default -> -1;
        };
        if (c == -2) {
            unicode = 0;
            unicodeDigits = 0;
            state = J_UNICODE;
        } else if (c < 0) {
            malformed();
        } else {
            append((byte) c);
            state = J_STRING;
        }
    }

    private void unicodeDigit(byte b) {
        int h = Transform.hex(b);
        if (h < 0) {
            malformed();
            return;
        }
        unicode = unicode << 4 | h;
        if (++unicodeDigits == 4) {
            state = J_STRING;
            appendUtf8(unicode);
        }
    }

    /** A {@code \\uXXXX} code unit as UTF-8 (a surrogate half as its own three bytes, as lenient decoders do). */
    private void appendUtf8(int u) {
        if (u < 0x80) {
            append((byte) u);
        } else if (u < 0x800) {
            append((byte) (0xC0 | u >> 6));
            append((byte) (0x80 | u & 0x3F));
        } else {
            append((byte) (0xE0 | u >> 12));
            append((byte) (0x80 | u >> 6 & 0x3F));
            append((byte) (0x80 | u & 0x3F));
        }
    }

    private void stringEnd() {
        boolean wasKey = key;
        if (wasKey) {
            in.name(in.value, length, false);
        }
        if (length > 0) {
            inspect(Part.BODY_JSON);
        }
        if (state != STOPPED) {
            state = wasKey ? J_COLON : depth == 0 ? J_DONE : J_AFTER;
        }
    }

    private static boolean isLiteral(byte b) {
        return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'E';
    }

    private void literalByte(byte b) {
        if (literalLength == MAX_LITERAL) {
            malformed();
            return;
        }
        literal[literalLength++] = b;
    }

    /** The literal just ended: {@code true}, {@code false}, {@code null} or a number's characters; else malformed. */
    private boolean literalEnd() {
        byte first = literal[0];
        boolean ok = first == 't' ? isWord("true") : first == 'f' ? isWord("false") : first == 'n' ? isWord("null") : isNumber();
        if (!ok) {
            malformed();
        }
        return ok;
    }

    private boolean isWord(String word) {
        if (literalLength != word.length()) {
            return false;
        }
        for (int i = 0; i < literalLength; i++) {
            if (literal[i] != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean isNumber() {
        for (int i = 0; i < literalLength; i++) {
            byte c = literal[i];
            if (!(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
                return false;
            }
        }
        return true;
    }

    private void malformed() {
        refusal = "body: malformed JSON";
        state = STOPPED;
    }

    // ---- the argument buffer and the rules ----

    void append(byte b) {
        byte[] v = in.value.length > length ? in.value : in.grow(length + 1, length);
        v[length++] = b;
    }

    /** Runs the rules over the argument in progress ({@code in.value[0, length)}) and starts the next. */
    private void inspect(int part) {
        int n = length;
        length = 0;
        if (!policy.inspectBodyValue(part, n, in, active)) {
            state = STOPPED;
        }
    }

    // ---- what the multipart and XML parsers call ----

    boolean isStopped() {
        return state == STOPPED;
    }

    /** The value in progress is dropped (XML whitespace between tags). */
    void discard() {
        length = 0;
    }

    /** The last {@code n} bytes appended are taken back. */
    void unappend(int n) {
        length = Math.max(0, length - n);
    }

    /** The argument name for the values that follow: {@code b[0, n)}, not decoded; n < 0: none. */
    void name(byte[] b, int n) {
        if (n < 0) {
            in.nameLength = -1;
        } else {
            in.name(b, n, false);
        }
    }

    /** The value in progress, if any, is inspected as {@code part}. */
    void value(int part) {
        if (length > 0) {
            inspect(part);
        }
    }

    /**
     * A multipart part's {@code name} (inspected, and the name of its content) and {@code filename}
     * (null: none; inspected with the upload file-name rules and as an argument).
     */
    void argument(byte[] name, int nameLength, byte[] fileName, int fileNameLength) {
        in.name(name, nameLength, false);
        load(name, nameLength);
        value(Part.BODY_MULTIPART);
        if (fileName != null) {
            load(fileName, fileNameLength);
            value(Part.FILE_NAME);
            if (state != STOPPED) {
                load(fileName, fileNameLength);
                value(Part.BODY_MULTIPART);
            }
        }
    }

    /** A check in code over {@code b[0, n)} (multipart names): {@code matched} scores {@code rule} with that excerpt. */
    void check(AttackRule rule, boolean matched, byte[] b, int n) {
        in.nameLength = -1;
        if (matched && !policy.checkBody(rule, b, n, in, active)) {
            state = STOPPED;
        }
    }

    /** A check in code with a fixed excerpt (an XML DOCTYPE). */
    void check(AttackRule rule, boolean matched, AsciiString excerpt) {
        check(rule, matched, excerpt.array(), excerpt.length());
    }

    /** A body that cannot be parsed further: {@code rule} scores with {@code why} as its excerpt; the parser stops. */
    void anomaly(AttackRule rule, AsciiString why) {
        check(rule, true, why);
    }

    /** What cannot be parsed is refused (denied unless detect only), as malformed JSON is. */
    void refuse(String why) {
        refusal = why;
        state = STOPPED;
    }

    private void load(byte[] b, int n) {
        System.arraycopy(b, 0, in.grow(n, 0), 0, n);
        length = n;
    }
}
