package io.paduraksa.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * What a request head, a response head and a trailer section have in common: a retained slice of
 * the inbound bytes holding exactly the section, and the positions of its fields in that slice
 * ({@link FieldPositions}, indices from 0). One instance per decoder, reset for every message, so
 * nothing here allocates per message.
 *
 * <p><b>Lifetime.</b> The consumer owns the slice and calls {@link #release()} when done; the
 * decoder parses the next section only after that (see {@link ResumableDecoder#resume()}).
 *
 * <p><b>Views.</b> {@link #headerName(int)} and {@link #headerValue(int)} each re-point one
 * {@link AsciiView} owned by this section: a view stays valid until the same accessor is called
 * again or the section is released. To copy bytes without views, use the position accessors with
 * {@link #buffer()}.
 */
public abstract class Http1FieldSection {
    private final FieldPositions fields;
    private ByteBuf buffer;
    /** Bit {@code min(length, 63)} set for the length of every option the Connection fields list, once scanned. */
    private long optionLengths;
    /** Whether {@link #optionLengths} was scanned for the current message (by its first {@link #isConnectionOption}). */
    private boolean optionsScanned;
    /** Some field name of the current message has a {@code _}. */
    private boolean underscoreNames;

    /** Room for {@code initialCapacity} fields at first, at most {@code maxCount}. */
    protected Http1FieldSection(int maxCount, int initialCapacity) {
        this.fields = new FieldPositions(maxCount, initialCapacity);
    }

    // ---- bytes and lifetime

    /** The section's bytes (a retained slice); positions index into it. {@code null} once released. */
    public final ByteBuf buffer() {
        return buffer;
    }

    /** Releases the bytes; idempotent. After this no position or view of this section may be read. */
    public final void release() {
        ByteBuf b = buffer;
        if (b != null) {
            buffer = null;
            b.release();
        }
    }

    /** Whether {@link #release()} has not been called yet for the current message. */
    public final boolean isHeld() {
        return buffer != null;
    }

    // ---- fields

    public final int headerCount() {
        return fields.count();
    }

    /**
     * Some field name of the current message has a {@code _} (noted by the parser as it checks each name's bytes):
     * when none has, the forwarder need not search the names for one.
     */
    public final boolean hasUnderscoreNames() {
        return underscoreNames;
    }

    public final int headerNameStart(int index) {
        return fields.nameStart(index);
    }

    public final int headerNameEnd(int index) {
        return fields.nameEnd(index);
    }

    public final int headerValueStart(int index) {
        return fields.valueStart(index);
    }

    public final int headerValueEnd(int index) {
        return fields.valueEnd(index);
    }

    /** The name of field {@code index} as sent, through the section's name view. */
    public final AsciiView headerName(int index) {
        return fields.name(buffer, index);
    }

    /** The OWS-trimmed value of field {@code index}, through the section's value view. */
    public final AsciiView headerValue(int index) {
        return fields.value(buffer, index);
    }

    /** Whether field {@code index} is named {@code lowerCaseName}, ignoring ASCII case. */
    public final boolean nameEquals(int index, AsciiString lowerCaseName) {
        return fields.nameEquals(buffer, index, lowerCaseName);
    }

    /** Index of the first field named {@code lowerCaseName} (ASCII case ignored), or -1. */
    public final int findHeader(AsciiString lowerCaseName) {
        return fields.find(buffer, lowerCaseName, 0);
    }

    /** Index of the first field at or after {@code fromIndex} named {@code lowerCaseName}, or -1. */
    public final int findHeader(AsciiString lowerCaseName, int fromIndex) {
        return fields.find(buffer, lowerCaseName, fromIndex);
    }

    /**
     * Whether {@code name} is listed as an option in any {@code Connection} field of this section
     * (ASCII case ignored, RFC 9110 section 7.6.1): such fields are hop-by-hop and are not forwarded.
     * The first call per message notes the lengths of the options listed, so that a name of no
     * listed length (most names: browsers and servers list {@code keep-alive} or {@code close}) is
     * answered without reading the fields; allocates nothing.
     */
    public final boolean isConnectionOption(CharSequence name) {
        if (!optionsScanned) {
            optionLengths = scanOptionLengths();
            optionsScanned = true;
        }
        if ((optionLengths & 1L << Math.min(name.length(), 63)) == 0) {
            return false;
        }
        for (int i = findHeader(Http1Names.CONNECTION); i >= 0; i = findHeader(Http1Names.CONNECTION, i + 1)) {
            if (Http1Bytes.listContains(buffer, headerValueStart(i), headerValueEnd(i), name)) {
                return true;
            }
        }
        return false;
    }

    private long scanOptionLengths() {
        long lengths = 0;
        for (int i = findHeader(Http1Names.CONNECTION); i >= 0; i = findHeader(Http1Names.CONNECTION, i + 1)) {
            lengths |= Http1Bytes.listElementLengths(buffer, headerValueStart(i), headerValueEnd(i));
        }
        return lengths;
    }

    /** For {@code toString}: appends {@code ", name: value"} per field (allocates; logs and tests only). */
    protected final StringBuilder appendFields(StringBuilder sb, String separator) {
        for (int i = 0, n = fields.count(); i < n; i++) {
            sb.append(i == 0 ? separator : ", ").append(headerName(i)).append(": ").append(headerValue(i));
        }
        return sb;
    }

    // ---- written by the decoder

    /** Forgets the fields of the previous message. */
    protected final void clearFields() {
        fields.reset();
        underscoreNames = false;
        optionsScanned = false;
        optionLengths = 0;
    }

    /** Adds a field's positions ({@code underscore}: its name has a {@code _}); false when the field count limit is reached. */
    protected final boolean addField(int nameStart, int nameEnd, int valueStart, int valueEnd, int firstNameByte,
            boolean underscore) {
        underscoreNames |= underscore;
        return fields.add(nameStart, nameEnd, valueStart, valueEnd, firstNameByte);
    }

    /** Takes the retained slice holding the section. */
    protected final void hold(ByteBuf buffer) {
        this.buffer = buffer;
    }
}
