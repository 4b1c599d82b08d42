package io.paduraksa.ops;

import io.paduraksa.net.IpParser;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;

/**
 * Turns one queued access-log record (the bytes {@link AccessLog#log} wrote) into a line, JSON or
 * combined. Runs on the writer thread only; reuses one buffer, formats the date once per second.
 * Request text is escaped: in JSON {@code "}, {@code \} and bytes outside printable ASCII as
 * backslash-u-00XX escapes (so a line is always valid UTF-8 JSON); in the combined format as {@code \xXX}
 * like nginx.
 */
final class AccessLogFormat {
    /** Largest record: fixed part and every text field at its cap, rounded up. */
    static final int MAX_RECORD = 4096;
    static final String[] PROTOCOLS = {"-", "HTTP/1.1", "HTTP/2.0", "HTTP/3"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final String[] listeners;
    private final boolean combined;
    private final boolean includeQuery;
    private final Line line = new Line();
    private final byte[] ip = new byte[IpParser.MAX_TEXT_LENGTH];
    private final byte[] peer = new byte[IpParser.MAX_TEXT_LENGTH];
    private long second = Long.MIN_VALUE;
    private byte[] secondText;

    AccessLogFormat(String[] listeners, boolean combined, boolean includeQuery) {
        this.listeners = listeners;
        this.combined = combined;
        this.includeQuery = includeQuery;
    }

    /** A line being built: bytes {@code [0, length())}. */
    static final class Line {
        private byte[] bytes = new byte[1024];
        private int length;

        byte[] bytes() {
            return bytes;
        }

        int length() {
            return length;
        }

        Line add(byte b) {
            if (length == bytes.length) {
                bytes = Arrays.copyOf(bytes, bytes.length * 2);
            }
            bytes[length++] = b;
            return this;
        }

        Line add(String s) {
            for (int i = 0; i < s.length(); i++) {
                add((byte) s.charAt(i));
            }
            return this;
        }

        Line add(byte[] b, int from, int n) {
            for (int i = 0; i < n; i++) {
                add(b[from + i]);
            }
            return this;
        }

        Line decimal(long v) {
            if (v < 0) {
                add((byte) '-');
                v = -v;
            }
            if (v >= 10) {
                decimal(v / 10);
            }
            return add((byte) ('0' + (v % 10)));
        }

        Line hex(long v, int digits) {
            for (int i = digits - 1; i >= 0; i--) {
                add(HEX[(int) (v >>> (4 * i)) & 0xF]);
            }
            return this;
        }

        /** Milliseconds with three decimals from nanoseconds. */
        Line millis(long nanos) {
            long micros = nanos / 1_000;
            decimal(micros / 1_000).add((byte) '.');
            long frac = micros % 1_000;
            return add((byte) ('0' + frac / 100)).add((byte) ('0' + frac / 10 % 10)).add((byte) ('0' + frac % 10));
        }
    }

    /** The record whose fields start at {@code p} of {@code b}, as a line ending in {@code \n}. */
    Line format(byte[] b, int p) {
        line.length = 0;
        Record r = new Record(b, p);
        if (combined) {
            combined(r);
        } else {
            json(r);
        }
        return line.add((byte) '\n');
    }

    /** A cursor over one record (the field order of {@link AccessLog#log}). */
    private static final class Record {
        final long time;
        final long ipHigh;
        final long ipLow;
        final long peerHigh;
        final long peerLow;
        final long durationNanos;
        final long bytesSent;
        final long upstreamNanos;
        final long requestId;
        final long traceHigh;
        final long traceLow;
        final int listener;
        final int protocol;
        final int decision;
        final int status;
        /** {@link UpstreamMetrics} error kind, -1 for none. */
        final int upstreamError;
        final byte[] b;
        final int method;
        final int host;
        final int path;
        final int queryLength;
        final int query;
        final int userAgent;
        final int referer;
        final int policy;
        final int cluster;
        final int upstream;
        final int matches;

        Record(byte[] b, int p) {
            this.b = b;
            time = (long) LONG.get(b, p);
            ipHigh = (long) LONG.get(b, p + 8);
            ipLow = (long) LONG.get(b, p + 16);
            peerHigh = (long) LONG.get(b, p + 24);
            peerLow = (long) LONG.get(b, p + 32);
            durationNanos = (long) LONG.get(b, p + 40);
            bytesSent = (long) LONG.get(b, p + 48);
            upstreamNanos = (long) LONG.get(b, p + 56);
            requestId = (long) LONG.get(b, p + 64);
            traceHigh = (long) LONG.get(b, p + 72);
            traceLow = (long) LONG.get(b, p + 80);
            int packed = (int) INT.get(b, p + 88);
            listener = packed >>> 16;
            protocol = (packed >>> 8) & 0xFF;
            decision = packed & 0xFF;
            status = (int) INT.get(b, p + 92);
            upstreamError = (int) INT.get(b, p + 96);
            p += 100;
            method = p;
            p = skip(b, p);
            host = p;
            p = skip(b, p);
            path = p;
            p = skip(b, p);
            queryLength = (int) INT.get(b, p);
            p += 4;
            query = p;
            p = skip(b, p);
            userAgent = p;
            p = skip(b, p);
            referer = p;
            p = skip(b, p);
            policy = p;
            p = skip(b, p);
            cluster = p;
            p = skip(b, p);
            upstream = p;
            p = skip(b, p);
            matches = p;
        }

        private static int skip(byte[] b, int p) {
            int n = (int) INT.get(b, p);
            return p + 4 + Math.max(0, n);
        }

        int length(int field) {
            return (int) INT.get(b, field);
        }
    }

    private void json(Record r) {
        Line l = line;
        l.add("{\"time\":\"");
        rfc3339(r.time);
        l.add("\",\"client_ip\":\"").add(ip, 0, IpParser.formatTo(r.ipHigh, r.ipLow, ip)).add((byte) '"');
        if (r.peerHigh != r.ipHigh || r.peerLow != r.ipLow) {
            l.add(",\"peer_ip\":\"").add(peer, 0, IpParser.formatTo(r.peerHigh, r.peerLow, peer)).add((byte) '"');
        }
        l.add(",\"listener\":");
        jsonString(r.listener < listeners.length ? listeners[r.listener] : null);
        l.add(",\"protocol\":\"").add(PROTOCOLS[Math.min(r.protocol, 3)]).add((byte) '"');
        l.add(",\"host\":");
        jsonField(r, r.host);
        l.add(",\"method\":");
        jsonField(r, r.method);
        l.add(",\"path\":");
        jsonField(r, r.path);
        if (includeQuery) {
            l.add(",\"query\":");
            jsonField(r, r.query);
        } else {
            l.add(",\"query_length\":").decimal(Math.max(0, r.queryLength));
        }
        l.add(",\"status\":").decimal(r.status);
        l.add(",\"bytes_sent\":").decimal(r.bytesSent);
        l.add(",\"duration_ms\":");
        if (r.durationNanos < 0) {
            l.add("null");
        } else {
            l.millis(r.durationNanos);
        }
        l.add(",\"cluster\":");
        jsonField(r, r.cluster);
        l.add(",\"upstream\":");
        jsonField(r, r.upstream);
        l.add(",\"upstream_ms\":");
        if (r.upstreamNanos < 0) {
            l.add("null");
        } else {
            l.millis(r.upstreamNanos);
        }
        l.add(",\"upstream_error\":");
        if (r.upstreamError < 0 || r.upstreamError >= UpstreamMetrics.ERRORS.length) {
            l.add("null");
        } else {
            l.add((byte) '"').add(UpstreamMetrics.ERRORS[r.upstreamError]).add((byte) '"');
        }
        l.add(",\"decision\":\"").add(Metrics.DECISIONS[Math.min(r.decision, Metrics.DECISIONS.length - 1)]).add((byte) '"');
        l.add(",\"policy\":");
        jsonField(r, r.policy);
        l.add(",\"request_id\":");
        if (r.requestId == 0) {
            l.add("null");
        } else {
            l.add((byte) '"').hex(r.requestId, 16).add((byte) '"');
        }
        l.add(",\"trace_id\":");
        if ((r.traceHigh | r.traceLow) == 0) {
            l.add("null");
        } else {
            l.add((byte) '"').hex(r.traceHigh, 16).hex(r.traceLow, 16).add((byte) '"');
        }
        l.add(",\"user_agent\":");
        jsonField(r, r.userAgent);
        if (r.length(r.matches) >= 0) {
            l.add(",\"matches\":");
            jsonField(r, r.matches);
        }
        l.add((byte) '}');
    }

    private void jsonString(String s) {
        if (s == null) {
            line.add("null");
            return;
        }
        line.add((byte) '"');
        for (int i = 0; i < s.length(); i++) {
            jsonByte((byte) s.charAt(i));
        }
        line.add((byte) '"');
    }

    private void jsonField(Record r, int field) {
        int n = r.length(field);
        if (n < 0) {
            line.add("null");
            return;
        }
        line.add((byte) '"');
        for (int i = 0; i < n; i++) {
            jsonByte(r.b[field + 4 + i]);
        }
        line.add((byte) '"');
    }

    private void jsonByte(byte c) {
        if (c == '"' || c == '\\') {
            line.add((byte) '\\').add(c);
        } else if (c < 0x20 || c >= 0x7F) {
            line.add("\\u00").hex(c & 0xFF, 2);
        } else {
            line.add(c);
        }
    }

    /** {@code %h - - [%t] "%r" %>s %b "%{Referer}i" "%{User-agent}i"}. */
    private void combined(Record r) {
        Line l = line;
        l.add(ip, 0, IpParser.formatTo(r.ipHigh, r.ipLow, ip)).add(" - - [");
        commonLogTime(r.time);
        l.add("] \"");
        if (r.length(r.method) < 0) {
            l.add((byte) '-');
        } else {
            plainField(r, r.method);
            l.add((byte) ' ');
            plainField(r, r.path);
            if (includeQuery && r.length(r.query) >= 0) {
                l.add((byte) '?');
                plainField(r, r.query);
            }
            l.add((byte) ' ').add(PROTOCOLS[Math.min(r.protocol, 3)]);
        }
        l.add("\" ").decimal(r.status).add((byte) ' ');
        if (r.bytesSent == 0) {
            l.add((byte) '-');
        } else {
            l.decimal(r.bytesSent);
        }
        l.add(" \"");
        plainOrDash(r, r.referer);
        l.add("\" \"");
        plainOrDash(r, r.userAgent);
        l.add((byte) '"');
    }

    private void plainOrDash(Record r, int field) {
        if (r.length(field) <= 0) {
            line.add((byte) '-');
        } else {
            plainField(r, field);
        }
    }

    private void plainField(Record r, int field) {
        int n = Math.max(0, r.length(field));
        for (int i = 0; i < n; i++) {
            byte c = r.b[field + 4 + i];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7F) {
                line.add("\\x").hex(c & 0xFF, 2);
            } else {
                line.add(c);
            }
        }
    }

    /** {@code 2024-05-01T12:34:56.789Z}. */
    private void rfc3339(long millis) {
        long s = Math.floorDiv(millis, 1000);
        if (s != second) {
            LocalDateTime t = LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC);
            secondText = String.format(Locale.ROOT, "%04d-%02d-%02dT%02d:%02d:%02d", t.getYear(), t.getMonthValue(),
                    t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).getBytes(StandardCharsets.US_ASCII);
            second = s;
        }
        long ms = Math.floorMod(millis, 1000);
        line.add(secondText, 0, secondText.length).add((byte) '.')
                .add((byte) ('0' + ms / 100)).add((byte) ('0' + ms / 10 % 10)).add((byte) ('0' + ms % 10)).add((byte) 'Z');
    }

    /** {@code 01/May/2024:12:34:56 +0000}. */
    private void commonLogTime(long millis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(millis, 1000), 0, ZoneOffset.UTC);
        line.add(String.format(Locale.ROOT, "%02d/%s/%04d:%02d:%02d:%02d +0000", t.getDayOfMonth(), MONTHS[t.getMonthValue() - 1],
                t.getYear(), t.getHour(), t.getMinute(), t.getSecond()));
    }
}
