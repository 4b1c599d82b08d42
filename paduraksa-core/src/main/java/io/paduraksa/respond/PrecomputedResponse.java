package io.paduraksa.respond;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * An answer encoded once, when the snapshot is compiled: the HTTP/1.1 status line and headers as
 * wire bytes and the body, both in pooled direct buffers, plus the pieces an HTTP/2 writer needs
 * (status and lower-case header names and values as {@link AsciiString}).
 *
 * <p>Per request only {@code Date}, an optional {@code Connection: close} and, for templates, the
 * request id are added; writing copies bytes and allocates nothing. A body may contain one
 * {@value #REQUEST_ID_VARIABLE} placeholder; the id is always {@value #REQUEST_ID_LENGTH} hex digits,
 * so {@code Content-Length} is fixed. Instead, a body may carry one {@link BodySlot} (a challenge
 * policy's per-request token), also of a fixed length. One header may be a {@link ValueTemplate}
 * (a redirect's {@code Location} built from the request): its value is written per request after
 * the fixed headers, and {@link #headerValues()} holds the template's text at
 * {@link #templateHeaderIndex()}, which an HTTP/2 writer replaces. The shared buffers are never written
 * themselves: writers copy from them or take {@link #retainedBody()}. {@link #release()} runs when
 * the snapshot is retired; a {@linkplain #isOneShot() one-shot} answer (built on a rare per-request
 * path, such as a challenge's redirect with its cookie) is released by the writer right after writing.
 */
public final class PrecomputedResponse {
    public static final String REQUEST_ID_VARIABLE = "${request_id}";
    public static final int REQUEST_ID_LENGTH = 16;

    private static final byte[] DATE_PREFIX = "Date: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final short CRLF = ('\r' << 8) | '\n';

    /**
     * Bytes a template body gets per request, in place of its placeholder. Runs on the event loop
     * while the answer is written: it must not block or allocate, and must write exactly
     * {@link #length()} bytes (the {@code Content-Length} was fixed when the answer was built).
     */
    public interface BodySlot {
        int length();

        void write(ByteBuf out, long requestId, long clientIpHigh, long clientIpLow);
    }

    /** The {@value #REQUEST_ID_VARIABLE} slot: the request id as 16 hex digits. */
    private static final BodySlot REQUEST_ID_SLOT = new BodySlot() {
        @Override
        public int length() {
            return REQUEST_ID_LENGTH;
        }

        @Override
        public void write(ByteBuf out, long requestId, long clientIpHigh, long clientIpLow) {
            writeHex(out, requestId);
        }
    };

    private final int status;
    private final AsciiString statusText;
    private final AsciiString[] headerNames;
    private final AsciiString[] headerValues;
    private final ByteBuf head;
    private final ByteBuf body;
    private final ByteBuf bodyTail;
    private final BodySlot bodySlot;
    private final int contentLength;
    private final boolean oneShot;
    private final ValueTemplate headerTemplate;
    private final int templateHeaderIndex;
    /** {@code Name: } of the templated header, written before its value (HTTP/1.1). */
    private final byte[] templateHeaderPrefix;
    private final int errorPageSlot;
    /** A protocol writer's own encoding of this answer ({@link #encoded}), with the encoder that made it. */
    private volatile Encoded encoded;

    private record Encoded(Function<PrecomputedResponse, ?> encoder, Object form) {
    }

    private PrecomputedResponse(Builder b, ByteBufAllocator alloc) {
        byte[] bodyBytes = b.body.getBytes(StandardCharsets.UTF_8);
        String variable = b.slot != null ? b.slotVariable : REQUEST_ID_VARIABLE;
        int slot = b.body.indexOf(variable);
        byte[] before = bodyBytes;
        byte[] after = null;
        if (slot >= 0) {
            int cut = b.body.substring(0, slot).getBytes(StandardCharsets.UTF_8).length;
            before = java.util.Arrays.copyOfRange(bodyBytes, 0, cut);
            after = java.util.Arrays.copyOfRange(bodyBytes, cut + variable.length(), bodyBytes.length);
        }
        this.status = b.status;
        this.statusText = AsciiString.of(Integer.toString(b.status));
        this.bodySlot = slot < 0 ? null : b.slot != null ? b.slot : REQUEST_ID_SLOT;
        this.oneShot = b.oneShot;
        this.errorPageSlot = b.errorPageSlot;
        this.contentLength = before.length + (after == null ? 0 : bodySlot.length() + after.length);
        if (b.withBody) {
            b.headers.add(new String[] {"Content-Length", Integer.toString(contentLength)});
        }
        this.headerNames = new AsciiString[b.headers.size()];
        this.headerValues = new AsciiString[b.headers.size()];
        StringBuilder wire = new StringBuilder(128);
        wire.append("HTTP/1.1 ").append(b.status).append(' ').append(ReasonPhrases.of(b.status)).append("\r\n");
        int templateIndex = -1;
        for (int i = 0; i < b.headers.size(); i++) {
            String[] h = b.headers.get(i);
            headerNames[i] = AsciiString.of(h[0].toLowerCase(Locale.ROOT));
            headerValues[i] = AsciiString.of(h[1]);
            if (b.template != null && h == b.templateHeader) {
                templateIndex = i;
            } else {
                wire.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
        }
        this.headerTemplate = b.template;
        this.templateHeaderIndex = templateIndex;
        this.templateHeaderPrefix = b.template == null ? null
                : (b.templateHeader[0] + ": ").getBytes(StandardCharsets.US_ASCII);
        this.head = readOnlyCopy(alloc, wire.toString().getBytes(StandardCharsets.US_ASCII));
        this.body = readOnlyCopy(alloc, before);
        this.bodyTail = after == null ? null : readOnlyCopy(alloc, after);
    }

    public static Builder builder(int status) {
        return new Builder(status);
    }

    public int status() {
        return status;
    }

    /** The status as ASCII digits, for the HTTP/2 {@code :status} pseudo-header. */
    public AsciiString statusText() {
        return statusText;
    }

    /** Lower-case header names (HTTP/2 form), in the order they are sent. Do not modify. */
    public AsciiString[] headerNames() {
        return headerNames;
    }

    /** Header values, index-aligned with {@link #headerNames()}. Do not modify. */
    public AsciiString[] headerValues() {
        return headerValues;
    }

    public int contentLength() {
        return contentLength;
    }

    /**
     * True for an answer built for one request (see the class comment): whoever writes it releases
     * it right after writing (the buffers it wrote from were copied or retained).
     */
    public boolean isOneShot() {
        return oneShot;
    }

    /**
     * For an answer whose body is an error page (the operator's or the built-in one), its position
     * among the snapshot's error-page answers, where a host with its own {@code error_pages} keeps
     * its replacement; -1 for every other answer (a body of its own, a redirect, a challenge).
     */
    public int errorPageSlot() {
        return errorPageSlot;
    }

    /** True when the body carries a request-id placeholder or slot and must be written with {@link #writeBody}. */
    public boolean isTemplate() {
        return bodyTail != null;
    }

    /** The templated header's value, or null when every header is fixed. */
    public ValueTemplate headerTemplate() {
        return headerTemplate;
    }

    /** Index of the templated header in {@link #headerNames()}, or -1. */
    public int templateHeaderIndex() {
        return templateHeaderIndex;
    }

    /** Bytes {@link #writeHttp1Head} writes (an answer without a templated header). */
    public int http1HeadLength(boolean close) {
        return http1FieldsLength(close, null) + 2;
    }

    /** Bytes {@link #writeHttp1Head(ByteBuf, DateHeader, boolean, ValueTemplate.Input)} writes for {@code request}. */
    public int http1HeadLength(boolean close, ValueTemplate.Input request) {
        return http1FieldsLength(close, request) + 2;
    }

    /** Status line, headers, {@code Date}, optional {@code Connection: close} and the blank line. */
    public void writeHttp1Head(ByteBuf out, DateHeader date, boolean close) {
        writeHttp1Head(out, date, close, null);
    }

    /**
     * Status line, headers (the templated one filled from {@code request}, which may be null only
     * without a template), {@code Date}, optional {@code Connection: close} and the blank line.
     */
    public void writeHttp1Head(ByteBuf out, DateHeader date, boolean close, ValueTemplate.Input request) {
        writeHttp1Fields(out, date, close, request);
        out.writeShort(CRLF);
    }

    /** Bytes {@link #writeHttp1Fields} writes for {@code request} (null without a templated header). */
    public int http1FieldsLength(boolean close, ValueTemplate.Input request) {
        int templated = headerTemplate == null ? 0 : templateHeaderPrefix.length + headerTemplate.length(need(request)) + 2;
        return head.readableBytes() + templated + DATE_PREFIX.length + DateHeader.LENGTH + 2 + (close ? CONNECTION_CLOSE.length : 0);
    }

    /**
     * The head without its blank line: status line, headers (the templated one filled from
     * {@code request}, null without a template), {@code Date} and optional {@code Connection: close},
     * for a writer that adds per-request fields before it writes the blank line itself. 0 B.
     */
    public void writeHttp1Fields(ByteBuf out, DateHeader date, boolean close, ValueTemplate.Input request) {
        out.writeBytes(head, head.readerIndex(), head.readableBytes());
        if (headerTemplate != null) {
            out.writeBytes(templateHeaderPrefix);
            headerTemplate.write(out, need(request));
            out.writeShort(CRLF);
        }
        out.writeBytes(DATE_PREFIX);
        date.writeTo(out);
        out.writeShort(CRLF);
        if (close) {
            out.writeBytes(CONNECTION_CLOSE);
        }
    }

    private ValueTemplate.Input need(ValueTemplate.Input request) {
        if (request == null) {
            throw new IllegalStateException("an answer with a templated header is written for a request");
        }
        return request;
    }

    /** Copies the body into {@code out}, writing {@code requestId} as 16 hex digits into a template. */
    public void writeBody(ByteBuf out, long requestId) {
        writeBody(out, requestId, 0, 0);
    }

    /**
     * Copies the body into {@code out}, filling a template's placeholder: the request id as 16 hex
     * digits, or what the answer's {@link BodySlot} writes for this client.
     */
    public void writeBody(ByteBuf out, long requestId, long clientIpHigh, long clientIpLow) {
        out.writeBytes(body, body.readerIndex(), body.readableBytes());
        if (bodyTail != null) {
            bodySlot.write(out, requestId, clientIpHigh, clientIpLow);
            out.writeBytes(bodyTail, bodyTail.readerIndex(), bodyTail.readableBytes());
        }
    }

    /**
     * This answer's fixed part in a protocol writer's own encoding (the HTTP/2 writer's header block),
     * made by {@code encoder} on first use and kept as long as this response: a reload compiles new
     * responses, so a kept form never outlives what it encodes. {@code encoder} must be a constant
     * (compared by identity) and always make the same form; threads that race both make it, one is
     * kept. One form is kept: a second encoder would replace the first's each time (give it its own
     * field instead).
     */
    @SuppressWarnings("unchecked")
    public <T> T encoded(Function<PrecomputedResponse, T> encoder) {
        Encoded e = encoded;
        if (e == null || e.encoder != encoder) {
            e = new Encoded(encoder, encoder.apply(this));
            encoded = e;
        }
        return (T) e.form;
    }

    /** A retained duplicate of a non-template body, for writers that send large bodies without a copy. */
    public ByteBuf retainedBody() {
        if (bodyTail != null) {
            throw new IllegalStateException("template bodies are written with writeBody");
        }
        return body.retainedDuplicate();
    }

    /** Releases the shared buffers; called once, when the snapshot that built this is retired. */
    public void release() {
        head.release();
        body.release();
        if (bodyTail != null) {
            bodyTail.release();
        }
    }

    @Override
    public String toString() {
        return "PrecomputedResponse(" + status + ", " + contentLength + " B)";
    }

    /** Writes {@code value} as 16 lower-case hex digits. */
    public static void writeHex(ByteBuf out, long value) {
        AsciiNumbers.writeHex16(out, value);
    }

    private static ByteBuf readOnlyCopy(ByteBufAllocator alloc, byte[] bytes) {
        ByteBuf buf = alloc.directBuffer(Math.max(bytes.length, 1), Math.max(bytes.length, 1));
        buf.writeBytes(bytes);
        return buf;
    }

    /** Collects an answer's parts at compile time; header names and values are checked for CR, LF and NUL. */
    public static final class Builder {
        private final int status;
        private final List<String[]> headers = new ArrayList<>();
        private String body = "";
        private boolean withBody = true;
        private String slotVariable;
        private BodySlot slot;
        private boolean oneShot;
        private String[] templateHeader;
        private ValueTemplate template;
        private int errorPageSlot = -1;

        private Builder(int status) {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status " + status + " is not an HTTP status (expected 100-599)");
            }
            this.status = status;
            this.withBody = status >= 200 && status != 204 && status != 304;
        }

        public Builder header(String name, String value) {
            checkToken(name);
            checkValue(name, value);
            headers.add(new String[] {name, value});
            return this;
        }

        /** A header whose value is {@code template}, filled per request (at most one per answer). */
        public Builder header(String name, ValueTemplate template) {
            if (this.template != null) {
                throw new IllegalArgumentException("an answer has at most one templated header");
            }
            checkToken(name);
            this.templateHeader = new String[] {name, template.text()};
            this.template = template;
            headers.add(templateHeader);
            return this;
        }

        /** The body text (UTF-8); may contain one {@value #REQUEST_ID_VARIABLE}. */
        public Builder body(String text) {
            if (!withBody && !text.isEmpty()) {
                throw new IllegalArgumentException("status " + status + " cannot have a body");
            }
            int first = text.indexOf(REQUEST_ID_VARIABLE);
            if (first >= 0 && text.indexOf(REQUEST_ID_VARIABLE, first + 1) >= 0) {
                throw new IllegalArgumentException("a body may contain " + REQUEST_ID_VARIABLE + " at most once");
            }
            this.body = text;
            return this;
        }

        /**
         * The body text with one {@code variable} (such as {@code ${challenge}}) that {@code slot}
         * fills per request; the text must contain it exactly once.
         */
        public Builder body(String text, String variable, BodySlot slot) {
            int first = text.indexOf(variable);
            if (first < 0 || text.indexOf(variable, first + 1) >= 0) {
                throw new IllegalArgumentException("a body with a slot contains " + variable + " exactly once");
            }
            body(text);
            this.slotVariable = variable;
            this.slot = slot;
            return this;
        }

        /** Marks the answer as built for one request: the writer releases it after writing. */
        public Builder oneShot() {
            this.oneShot = true;
            return this;
        }

        /** Marks the answer as error-page answer {@code slot} of its snapshot (see {@link PrecomputedResponse#errorPageSlot()}). */
        public Builder errorPageSlot(int slot) {
            if (slot < 0) {
                throw new IllegalArgumentException("an error-page slot is 0 or more, found " + slot);
            }
            this.errorPageSlot = slot;
            return this;
        }

        public PrecomputedResponse build(ByteBufAllocator alloc) {
            return new PrecomputedResponse(this, alloc);
        }

        private static void checkToken(String name) {
            if (!HttpToken.isToken(name)) {
                throw new IllegalArgumentException("header name '" + name + "' is not a token (RFC 9110 5.6.2)");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("content-length") || lower.equals("transfer-encoding") || lower.equals("connection")
                    || lower.equals("date")) {
                throw new IllegalArgumentException("header '" + name + "' is set by the server and cannot be configured");
            }
        }

        private static void checkValue(String name, String value) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '\r' || c == '\n' || c == 0 || c > 0x7E || (c < 0x20 && c != '\t')) {
                    throw new IllegalArgumentException("header '" + name + "' value has a control or non-ASCII character at index " + i);
                }
            }
        }
    }
}
