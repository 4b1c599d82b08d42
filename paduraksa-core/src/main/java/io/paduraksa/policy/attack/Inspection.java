package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.paduraksa.text.AsciiText;
import java.util.List;

/**
 * Per-thread scratch of the {@code attacks} policy: the buffer a value is copied into and
 * transformed in, the decoded argument name, and what one request has matched so far. One per
 * event loop (a {@link FastThreadLocal}); reset per request. Grows only when a longer value than
 * ever before arrives (bounded by the protocol's head limits), so after warm-up it allocates
 * nothing.
 */
final class Inspection {
    private static final FastThreadLocal<Inspection> CURRENT = new FastThreadLocal<>() {
        @Override
        protected Inspection initialValue() {
            Inspection in = new Inspection();
            in.clean = new CleanValues();
            return in;
        }
    };
    /** Longer argument names are inspected but never match an exclusion's name. */
    static final int MAX_NAME = 256;
    private static final int EXCERPT = 48;
    /** An argument name in the log line is cut to this many bytes. */
    static final int LOG_NAME = 64;
    /** Matches past this many characters of the log line are left out (counted in {@link #omitted}). */
    static final int MAX_LOG = 400;

    byte[] value = new byte[2048];
    /** The value again, for the rules that read its {@link Transform#cmdLine} form. */
    byte[] cmd = new byte[2048];
    /** The query or the Cookie header, copied out once so that splitting it reads bytes, not the request's views. */
    byte[] source = new byte[2048];
    final byte[] name = new byte[MAX_NAME];
    /** A header field as {@link CleanValues} keeps it with {@code all_headers}: the lower-cased {@link #name}, ':', the value. */
    final byte[] pair = new byte[CleanValues.MAX];
    /** Length of the decoded name in {@link #name}; -1 when the value is not an argument, -2 when too long. */
    int nameLength;
    /** Bits of the matched rules ({@link AttackRule#index()}): rule i is bit {@code i & 63} of word {@code i >> 6}. */
    final long[] matched = new long[AttackRules.WORDS];
    int score;
    /**
     * Counts the values of this request that matched a rule (scored, excluded or passed over for having
     * matched before) and the name checks that matched: a line whose arguments left it unchanged was clean.
     */
    int dirt;
    /** Bytes copied into the scratch buffer by the last request on this thread (for tests and explain). */
    long inspectedBytes;
    /** Matches left out of {@link #log} past {@link #MAX_LOG}. */
    int omitted;
    /** What matched, for the log line; built only on a match. */
    final StringBuilder log = new StringBuilder(256);
    /** The thread's memo of clean head values; null in a body scanner's inspection (its values are not kept). */
    CleanValues clean;
    /** Set by explain: every rule's verdict per value is added here, and inspection does not stop early. */
    List<String> explain;

    boolean hasMatched(AttackRule rule) {
        return (matched[rule.index() >> 6] & 1L << rule.index()) != 0;
    }

    void markMatched(AttackRule rule) {
        matched[rule.index() >> 6] |= 1L << rule.index();
    }

    static Inspection current() {
        return CURRENT.get();
    }

    void reset() {
        for (int i = 0; i < matched.length; i++) {
            matched[i] = 0;
        }
        score = 0;
        dirt = 0;
        inspectedBytes = 0;
        nameLength = -1;
        log.setLength(0);
        omitted = 0;
        explain = null;
    }

    /** The log line as a String (allocates: a match), with the count of matches left out. */
    String logLine() {
        return omitted == 0 ? log.toString() : log + " (+" + omitted + " more)";
    }

    /** Copies {@code s[from, to)} (one char per byte) into the value buffer; returns the length. */
    int copy(CharSequence s, int from, int to) {
        int n = to - from;
        byte[] b = ensure(n);
        bytes(s, from, b, 0, n);
        inspectedBytes += n;
        return n;
    }

    /** {@code s[from, from + n)} into {@code b[at, at + n)}, one byte per char: in bulk where the text allows it. */
    private static void bytes(CharSequence s, int from, byte[] b, int at, int n) {
        if (s instanceof AsciiString a) {
            System.arraycopy(a.array(), a.arrayOffset() + from, b, at, n);
        } else if (s instanceof AsciiText t) {
            t.copyTo(from, b, at, n);
        } else {
            for (int i = 0; i < n; i++) {
                b[at + i] = (byte) s.charAt(from + i);
            }
        }
    }

    /**
     * Writes {@link #name} (of {@link #nameLength} bytes, not negative), ':' and {@code value[0, n)} into
     * {@link #pair}; returns the length, or -1 when that is over {@link CleanValues#MAX} (not written).
     */
    int pair(CharSequence value, int n) {
        int length = nameLength + 1 + n;
        if (length > pair.length) {
            return -1;
        }
        System.arraycopy(name, 0, pair, 0, nameLength);
        pair[nameLength] = ':';
        if (n > 0) {
            bytes(value, 0, pair, nameLength + 1, n);
        }
        return length;
    }

    /** Copies {@code src[0, n)} into the value buffer. */
    int copy(byte[] src, int n) {
        return copy(src, 0, n);
    }

    /** Copies {@code src[from, from + n)} into the value buffer; returns {@code n}. */
    int copy(byte[] src, int from, int n) {
        System.arraycopy(src, from, ensure(n), 0, n);
        inspectedBytes += n;
        return n;
    }

    /** Copies {@code s[from, to)} into {@link #source} (grown when shorter); returns the length. */
    int source(CharSequence s, int from, int to) {
        int n = to - from;
        if (source.length < n) {
            source = new byte[Math.max(n, source.length * 2)];
        }
        bytes(s, from, source, 0, n);
        return n;
    }

    /** Copies and percent-decodes an argument name into {@link #name} ({@code plusIsSpace} for the query). */
    void name(CharSequence s, int from, int to, boolean decode) {
        int n = to - from;
        if (n > MAX_NAME) {
            nameLength = -2;
            return;
        }
        bytes(s, from, name, 0, n);
        nameLength = decode ? Transform.percentDecode(name, 0, n, true) : n;
    }

    /** Copies a header's name, lower-cased, into {@link #name} (too long: no name, as an argument's). */
    void headerName(CharSequence s) {
        int n = s.length();
        if (n > MAX_NAME) {
            nameLength = -2;
            return;
        }
        bytes(s, 0, name, 0, n);
        Transform.lowerCase(name, 0, n);
        nameLength = n;
    }

    /**
     * Sets {@link #name} from {@code src[0, n)} (percent-decoded with {@code +} as a space when
     * {@code decode}, as a form's names are).
     */
    void name(byte[] src, int n, boolean decode) {
        name(src, 0, n, decode);
    }

    /** {@link #name(byte[], int, boolean)} from {@code src[from, from + n)}. */
    void name(byte[] src, int from, int n, boolean decode) {
        if (n > MAX_NAME) {
            nameLength = -2;
            return;
        }
        System.arraycopy(src, from, name, 0, n);
        nameLength = decode ? Transform.percentDecode(name, 0, n, true) : n;
    }

    /** The value buffer, at least {@code n} bytes long, its first {@code keep} bytes kept (a body value grows across chunks). */
    byte[] grow(int n, int keep) {
        if (value.length < n) {
            byte[] bigger = new byte[Math.max(n, value.length * 2)];
            System.arraycopy(value, 0, bigger, 0, keep);
            value = bigger;
        }
        return value;
    }

    /** Copies another inspection's verdict so far (the head's score, matched rules and log) into this one. */
    void takeOver(Inspection head) {
        System.arraycopy(head.matched, 0, matched, 0, matched.length);
        score = head.score;
        inspectedBytes = head.inspectedBytes;
        nameLength = -1;
        log.setLength(0);
        log.append(head.log);
        omitted = head.omitted;
        explain = null;
    }

    /** Copies the untransformed {@code value[0, n)} into {@link #cmd} and returns it. */
    byte[] copyToCmd(int n) {
        if (cmd.length < n) {
            cmd = new byte[Math.max(n, cmd.length * 2)];
        }
        System.arraycopy(value, 0, cmd, 0, n);
        return cmd;
    }

    private byte[] ensure(int n) {
        if (value.length < n) {
            value = new byte[Math.max(n, value.length * 2)];
        }
        return value;
    }

    /**
     * Adds {@code rule id part[:name] "excerpt"} to the log line; may allocate (a match). The line
     * stays bounded: names are cut to {@link #LOG_NAME} bytes and excerpts to 48, both escaped, and
     * matches past {@link #MAX_LOG} characters only say how many were left out.
     */
    void describe(AttackRule rule, int part, byte[] buffer, int length, int end) {
        if (log.length() >= MAX_LOG) {
            omitted++;
            return;
        }
        if (log.length() > 0) {
            log.append(", ");
        }
        log.append(rule.id()).append(' ').append(Part.name(part));
        if (nameLength >= 0) {
            log.append(':');
            appendEscaped(log, name, 0, Math.min(nameLength, LOG_NAME));
        }
        int stop = Math.min(end, length);
        log.append(" \"");
        appendEscaped(log, buffer, Math.max(0, stop - EXCERPT), stop);
        log.append('"');
    }

    /** Printable ASCII as is ({@code "} and {@code \} escaped), other bytes as {@code \xHH}: log-injection safe. */
    static void appendEscaped(StringBuilder out, byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c == '"' || c == '\\') {
                out.append('\\').append((char) c);
            } else if (c >= 0x20 && c < 0x7F) {
                out.append((char) c);
            } else {
                out.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            }
        }
    }
}
