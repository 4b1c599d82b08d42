package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * The body phase's {@code multipart/form-data} parser (RFC 7578 over RFC 2046 5.1): one byte at a
 * time, so a chunk may end anywhere (inside the delimiter, a part header or a quoted file name).
 * Each part's {@code Content-Disposition} {@code name} is the argument name and is inspected, as a
 * form's names are; its {@code filename} is inspected with the query's rules and the upload
 * file-name rules; the part's content is the argument's value (of a file part, only its first
 * {@code fileBytes} bytes). Everything kept is bounded: the delimiter by {@link #MAX_BOUNDARY}, a
 * part header line by {@link #MAX_HEADER}, header lines per part by {@link #MAX_HEADERS}, parts by
 * {@link #MAX_PARTS}, and a value by the policy's {@code max} (every byte kept was fed).
 *
 * <p>What ModSecurity's strict multipart validation refuses is a scored anomaly here
 * ({@link #MALFORMED}: a missing or malformed boundary, data before the first delimiter, a
 * delimiter followed by anything but {@code --} or a line end, a part without a name, an oversized
 * or unparsable part header, too many parts, a body that ends before its close delimiter); the
 * parser stops there, since what cannot be cut into parts cannot be inspected. Linear time: the
 * delimiter starts with CR, which a boundary cannot hold, so a failed partial match restarts at the
 * current byte without re-reading any. Owned by one recycled {@link BodyScanner}; 0 B per body.
 */
final class MultipartParser {
    /** RFC 2046 5.1.1: a boundary is 1 to 70 characters. */
    static final int MAX_BOUNDARY = 70;
    /** The longest part header line kept (a file name of 255 UTF-8 characters fits). */
    static final int MAX_HEADER = 2048;
    /** Header lines per part (browsers send two: Content-Disposition and Content-Type). */
    static final int MAX_HEADERS = 16;
    /** Parts per body. */
    static final int MAX_PARTS = 1024;

    static final AttackRule MALFORMED = AttackRules.byId(920900);
    static final AttackRule NAME_BYPASS = AttackRules.byId(920120);

    private static final AsciiString NO_BOUNDARY = AsciiString.cached("missing or malformed boundary");
    private static final AsciiString PREAMBLE_DATA = AsciiString.cached("data before the first boundary");
    private static final AsciiString AFTER_DELIMITER = AsciiString.cached("boundary followed by data");
    private static final AsciiString HEADER_TOO_LONG = AsciiString.cached("part header line over 2048 bytes");
    private static final AsciiString TOO_MANY_HEADERS = AsciiString.cached("more than 16 part header lines");
    private static final AsciiString TOO_MANY_PARTS = AsciiString.cached("more than 1024 parts");
    private static final AsciiString BAD_DISPOSITION = AsciiString.cached("malformed Content-Disposition");
    private static final AsciiString NO_NAME = AsciiString.cached("part without a Content-Disposition name");
    private static final AsciiString BARE_CR = AsciiString.cached("CR without LF in a part header");
    private static final AsciiString UNTERMINATED = AsciiString.cached("no close delimiter");
    private static final AsciiString EPILOGUE_DATA = AsciiString.cached("data after the close delimiter");
    private static final byte[] DISPOSITION = "content-disposition:".getBytes(StandardCharsets.US_ASCII);

    // States.
    private static final int PREAMBLE = 0;
    private static final int TAIL = 1;
    private static final int CLOSE_DASH = 2;
    private static final int PADDING = 3;
    private static final int TAIL_LF = 4;
    private static final int HEADERS = 5;
    private static final int HEADER_LF = 6;
    private static final int CONTENT = 7;
    private static final int EPILOGUE = 8;
    private static final int FAILED = 9;

    private final BodyScanner scanner;
    /** CR LF "--" boundary. */
    private final byte[] delimiter = new byte[4 + MAX_BOUNDARY];
    private final byte[] line = new byte[MAX_HEADER];
    private final byte[] name = new byte[MAX_HEADER];
    private final byte[] fileName = new byte[MAX_HEADER];
    private int delimiterLength;
    private int fileBytes;
    private int state;
    /** Bytes of {@link #delimiter} matched so far. */
    private int matched;
    private int lineLength;
    private int headers;
    private int parts;
    /** -1: no Content-Disposition name yet. */
    private int nameLength;
    /** -1: not a file part. */
    private int fileNameLength;
    private long contentBytes;

    MultipartParser(BodyScanner scanner) {
        this.scanner = scanner;
    }

    /** Starts a body of Content-Type {@code type}; false (and the anomaly scored) when its boundary is missing or malformed. */
    boolean start(CharSequence type, int fileBytes) {
        this.fileBytes = fileBytes;
        state = PREAMBLE;
        matched = 2; // the first delimiter may lack its CR LF
        lineLength = 0;
        headers = 0;
        parts = 0;
        nameLength = -1;
        fileNameLength = -1;
        contentBytes = 0;
        delimiterLength = boundary(type, delimiter);
        if (delimiterLength < 0) {
            fail(NO_BOUNDARY);
            return false;
        }
        return true;
    }

    /**
     * Writes CR LF "--" and the boundary of {@code type}'s {@code boundary} parameter into
     * {@code out} (null: only check) and returns that length, or -1 when the parameter is missing,
     * repeated, empty, longer than 70 characters or holds a character RFC 2046 does not allow.
     */
    static int boundary(CharSequence type, byte[] out) {
        int n = type.length();
        int found = -1;
        for (int i = 0; i < n; i++) {
            if (type.charAt(i) != ';') {
                continue;
            }
            int j = skipSpace(type, i + 1);
            if (j + 9 > n || !regionFolded(type, j, "boundary")) {
                continue;
            }
            j = skipSpace(type, j + 8);
            if (j >= n || type.charAt(j) != '=') {
                continue;
            }
            if (found >= 0) {
                return -1; // two boundaries: which one the application takes is unknowable
            }
            found = boundaryValue(type, skipSpace(type, j + 1), out);
            if (found < 0) {
                return -1;
            }
        }
        return found;
    }

    private static int boundaryValue(CharSequence type, int from, byte[] out) {
        int n = type.length();
        boolean quoted = from < n && type.charAt(from) == '"';
        int i = quoted ? from + 1 : from;
        int start = i;
        while (i < n && (quoted ? type.charAt(i) != '"' : type.charAt(i) != ';' && !isSpace(type.charAt(i)))) {
            char c = type.charAt(i);
            if (!isBoundaryChar(c) && !(quoted && c == ' ') || i - start == MAX_BOUNDARY) {
                return -1;
            }
            if (out != null) {
                out[4 + i - start] = (byte) c;
            }
            i++;
        }
        if (i == start || quoted && (i == n || type.charAt(i - 1) == ' ')) {
            return -1;
        }
        if (out != null) {
            out[0] = '\r';
            out[1] = '\n';
            out[2] = '-';
            out[3] = '-';
        }
        return 4 + i - start;
    }

    void process(byte b) {
        switch (state) {
            case PREAMBLE -> preamble(b);
            case CONTENT -> content(b);
            case TAIL -> tail(b);
            case CLOSE_DASH -> {
                if (b == '-') {
                    state = EPILOGUE;
                } else {
                    fail(AFTER_DELIMITER);
                }
            }
            case PADDING -> padding(b);
            case TAIL_LF -> {
                if (b == '\n') {
                    startPart();
                } else {
                    fail(AFTER_DELIMITER);
                }
            }
            case HEADERS -> headerByte(b);
            case HEADER_LF -> {
                if (b == '\n') {
                    lineEnd();
                } else {
                    fail(BARE_CR);
                }
            }
            case EPILOGUE -> {
                if (!isSpace((char) b)) {
                    fail(EPILOGUE_DATA);
                }
            }
            default -> {
                // FAILED: the scanner stopped feeding
            }
        }
    }

    /** The body ended: the part in progress is inspected as far as it arrived; no close delimiter is an anomaly. */
    void end() {
        if (state == CONTENT) {
            partEnd();
        }
        if (state != EPILOGUE && state != FAILED && !scanner.isStopped()) {
            fail(UNTERMINATED);
        }
    }

    /** A bound cut the body: the part in progress is inspected as far as it arrived (no anomaly). */
    void flush() {
        if (state == CONTENT) {
            partEnd();
        }
    }

    private void preamble(byte b) {
        if (b == delimiter[matched]) {
            if (++matched == delimiterLength) {
                state = TAIL;
            }
        } else if (b == '\r' && matched == 2) {
            matched = 1; // blank lines before the first delimiter
        } else {
            fail(PREAMBLE_DATA);
        }
    }

    private void content(byte b) {
        if (b == delimiter[matched]) {
            if (++matched == delimiterLength) {
                partEnd();
                state = scanner.isStopped() ? FAILED : TAIL;
            }
            return;
        }
        if (matched > 0) {
            for (int i = 0; i < matched; i++) {
                contentByte(delimiter[i]);
            }
        }
        matched = b == '\r' ? 1 : 0;
        if (matched == 0) {
            contentByte(b);
        }
    }

    private void contentByte(byte b) {
        if (fileNameLength < 0 || contentBytes < fileBytes) {
            scanner.append(b);
        }
        contentBytes++;
    }

    private void tail(byte b) {
        if (b == '-') {
            state = CLOSE_DASH;
        } else {
            padding(b);
        }
    }

    private void padding(byte b) {
        if (b == ' ' || b == '\t') {
            state = PADDING;
        } else if (b == '\r') {
            state = TAIL_LF;
        } else {
            fail(AFTER_DELIMITER);
        }
    }

    private void startPart() {
        if (++parts > MAX_PARTS) {
            fail(TOO_MANY_PARTS);
            return;
        }
        state = HEADERS;
        lineLength = 0;
        headers = 0;
        nameLength = -1;
        fileNameLength = -1;
        contentBytes = 0;
    }

    private void headerByte(byte b) {
        if (b == '\r') {
            state = HEADER_LF;
        } else if (b == '\n') {
            lineEnd();
        } else if (lineLength == MAX_HEADER) {
            fail(HEADER_TOO_LONG);
        } else {
            line[lineLength++] = b;
        }
    }

    private void lineEnd() {
        state = HEADERS;
        if (lineLength == 0) {
            headersEnd();
            return;
        }
        if (++headers > MAX_HEADERS) {
            fail(TOO_MANY_HEADERS);
            return;
        }
        if (lineLength >= DISPOSITION.length && startsFolded(line, DISPOSITION) && !disposition(DISPOSITION.length)) {
            fail(BAD_DISPOSITION);
        }
        lineLength = 0;
    }

    /**
     * {@code form-data} then {@code ; name="v"} parameters (a quoted string with {@code \} escapes,
     * or a token); {@code name} and {@code filename} (or {@code filename*}) are kept. False: malformed,
     * a second Content-Disposition, or a parameter given twice.
     */
    private boolean disposition(int from) {
        if (nameLength >= 0) {
            return false;
        }
        int i = skipSpace(line, from, lineLength);
        if (i + 9 > lineLength || !regionFolded(line, i, "form-data")) {
            return false;
        }
        i += 9;
        while (true) {
            i = skipSpace(line, i, lineLength);
            if (i == lineLength) {
                return nameLength >= 0;
            }
            if (line[i] != ';') {
                return false;
            }
            i = skipSpace(line, i + 1, lineLength);
            int keyStart = i;
            while (i < lineLength && line[i] != '=' && line[i] != ';' && !isSpace((char) line[i])) {
                i++;
            }
            int keyLength = i - keyStart;
            i = skipSpace(line, i, lineLength);
            if (keyLength == 0 || i == lineLength || line[i] != '=') {
                return false;
            }
            boolean isName = keyLength == 4 && regionFolded(line, keyStart, "name");
            boolean isFile = keyLength == 8 && regionFolded(line, keyStart, "filename")
                    || keyLength == 9 && regionFolded(line, keyStart, "filename*");
            if (isName && nameLength >= 0 || isFile && fileNameLength >= 0) {
                return false;
            }
            byte[] into = isName ? name : isFile ? fileName : null;
            i = parameterValue(skipSpace(line, i + 1, lineLength), into);
            if (i < 0) {
                return false;
            }
        }
    }

    /** Reads a parameter's value at {@code from} into {@code into} (null: skipped); the position after it, or -1. */
    private int parameterValue(int from, byte[] into) {
        int n = 0;
        int i = from;
        if (i < lineLength && line[i] == '"') {
            i++;
            while (i < lineLength && line[i] != '"') {
                if (line[i] == '\\' && i + 1 < lineLength) {
                    i++;
                }
                if (into != null) {
                    into[n] = line[i];
                }
                n++;
                i++;
            }
            if (i == lineLength) {
                return -1;
            }
            i++;
        } else {
            while (i < lineLength && line[i] != ';' && !isSpace((char) line[i])) {
                if (into != null) {
                    into[n] = line[i];
                }
                n++;
                i++;
            }
        }
        if (into == name) {
            nameLength = n;
        } else if (into == fileName) {
            fileNameLength = n;
        }
        return i;
    }

    /** The blank line after a part's headers: its name and file name are inspected, its content follows. */
    private void headersEnd() {
        if (nameLength < 0) {
            fail(NO_NAME);
            return;
        }
        scanner.check(NAME_BYPASS, hasBypassCharacter(name, nameLength), name, nameLength);
        if (fileNameLength >= 0 && !scanner.isStopped()) {
            scanner.check(NAME_BYPASS, hasBypassCharacter(fileName, fileNameLength), fileName, fileNameLength);
        }
        if (!scanner.isStopped()) {
            scanner.argument(name, nameLength, fileNameLength >= 0 ? fileName : null, fileNameLength);
        }
        state = scanner.isStopped() ? FAILED : CONTENT;
        matched = 0;
    }

    private void partEnd() {
        scanner.value(Part.BODY_MULTIPART);
    }

    /**
     * CRS 920120: a quote, {@code =} or {@code ;} in a field or file name (what confuses multipart
     * parsers into seeing two parameters), a {@code ;} ending an HTML entity ({@code &amp;},
     * {@code &eacute;} and the like, as CRS allows) excepted.
     */
    static boolean hasBypassCharacter(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            byte c = b[i];
            if (c == '\'' || c == '"' || c == '=' || c == ';' && !endsEntity(b, i)) {
                return true;
            }
        }
        return false;
    }

    /** {@code &} and 2 to 6 letters before {@code b[semicolon]}. */
    private static boolean endsEntity(byte[] b, int semicolon) {
        int i = semicolon - 1;
        while (i >= 0 && semicolon - i <= 7 && (b[i] | 0x20) >= 'a' && (b[i] | 0x20) <= 'z') {
            i--;
        }
        return i >= 0 && b[i] == '&' && semicolon - i >= 3;
    }

    private void fail(AsciiString why) {
        state = FAILED;
        scanner.anomaly(MALFORMED, why);
    }

    private static boolean isBoundaryChar(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || "'()+_,-./:=?".indexOf(c) >= 0;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static int skipSpace(CharSequence s, int from) {
        int i = from;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int skipSpace(byte[] b, int from, int to) {
        int i = from;
        while (i < to && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        return i;
    }

    private static boolean regionFolded(CharSequence s, int at, String lower) {
        if (at + lower.length() > s.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(at + i);
            if ((c >= 'A' && c <= 'Z' ? (char) (c | 0x20) : c) != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean regionFolded(byte[] b, int at, String lower) {
        for (int i = 0; i < lower.length(); i++) {
            byte c = b[at + i];
            if ((c >= 'A' && c <= 'Z' ? (byte) (c | 0x20) : c) != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean startsFolded(byte[] b, byte[] lower) {
        for (int i = 0; i < lower.length; i++) {
            byte c = b[i];
            if ((c >= 'A' && c <= 'Z' ? (byte) (c | 0x20) : c) != lower[i]) {
                return false;
            }
        }
        return true;
    }
}
