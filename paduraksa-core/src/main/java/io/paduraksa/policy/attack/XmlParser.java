package io.paduraksa.policy.attack;

import io.netty.util.AsciiString;

/**
 * The body phase's XML tokenizer ({@code text/xml}, {@code application/xml},
 * {@code application/soap+xml}): one byte at a time, so a chunk may end anywhere. Element text
 * (CDATA sections included) is inspected as an argument value named by the element, each attribute
 * value as one named by the attribute; element and attribute names are not (CRS's {@code XML:/*}
 * and {@code XML://@*} read text and attribute values only). Entities are not expanded: the value
 * keeps {@code &name;}, which the transformation chain's HTML entity decoding reads as CRS does.
 *
 * <p>A {@code <!DOCTYPE} is scanned, never interpreted: {@code SYSTEM} or {@code PUBLIC} in it (an
 * external DTD or entity: XXE) scores {@link #EXTERNAL}, an {@code <!ENTITY} declaration (entity
 * expansion, "billion laughs") {@link #ENTITY}. Nesting is bounded by {@link #MAX_DEPTH} (deeper is
 * refused), names kept by {@link Inspection#MAX_NAME}; what is not XML (a {@code <} not opening a
 * tag, an unquoted attribute, a close tag without its open tag, a body ending inside a tag or an
 * element) is refused, as ModSecurity's XML processor refuses it. Tags are counted, not matched by
 * name. Linear time; owned by one recycled {@link BodyScanner}, 0 B per body.
 */
final class XmlParser {
    /** Elements open at once; deeper is refused. */
    static final int MAX_DEPTH = 256;

    static final AttackRule EXTERNAL = AttackRules.byId(921900);
    static final AttackRule ENTITY = AttackRules.byId(921901);
    private static final String TOO_DEEP = "body: XML nested deeper than " + MAX_DEPTH;
    private static final AsciiString DOCTYPE_EXCERPT = AsciiString.cached("<!DOCTYPE");

    // "<!ENTITY", "SYSTEM", "PUBLIC" as the last 8 or 6 upper-cased bytes of a rolling window.
    private static final long ENTITY_AS_LONG = 0x3C21454E54495459L;
    private static final long SYSTEM_AS_LONG = 0x53595354454DL;
    private static final long PUBLIC_AS_LONG = 0x5055424C4943L;
    private static final long SIX_BYTES = 0xFFFFFFFFFFFFL;

    // States.
    private static final int TEXT = 0;
    private static final int TAG_OPEN = 1;
    private static final int START_NAME = 2;
    private static final int IN_TAG = 3;
    private static final int ATTR_NAME = 4;
    private static final int ATTR_EQ = 5;
    private static final int ATTR_VALUE_START = 6;
    private static final int ATTR_VALUE = 7;
    private static final int EMPTY_END = 8;
    private static final int END_TAG = 9;
    private static final int PI = 10;
    private static final int BANG = 11;
    private static final int COMMENT_OPEN = 12;
    private static final int COMMENT = 13;
    private static final int CDATA_OPEN = 14;
    private static final int CDATA = 15;
    private static final int DOCTYPE_OPEN = 16;
    private static final int DOCTYPE = 17;
    private static final int FAILED = 18;

    private static final String CDATA_WORD = "CDATA[";
    private static final String DOCTYPE_WORD = "OCTYPE";

    private final BodyScanner scanner;
    private final byte[] element = new byte[Inspection.MAX_NAME];
    private final byte[] attribute = new byte[Inspection.MAX_NAME];
    private int elementLength;
    private int attributeLength;
    private int state;
    private int depth;
    /** The text in progress has a byte other than whitespace. */
    private boolean content;
    /** Progress through a keyword ({@code CDATA[}, {@code OCTYPE}) or a terminator ({@code -->}, {@code ]]>}, {@code ?>}). */
    private int run;
    private byte quote;
    private int brackets;
    private long window;
    private boolean external;
    private boolean entity;

    XmlParser(BodyScanner scanner) {
        this.scanner = scanner;
    }

    void start() {
        state = TEXT;
        depth = 0;
        content = false;
        elementLength = -1;
        attributeLength = 0;
        run = 0;
        brackets = 0;
        quote = 0;
        window = 0;
        external = false;
        entity = false;
    }

    void process(byte b) {
        switch (state) {
            case TEXT -> text(b);
            case TAG_OPEN -> tagOpen(b);
            case START_NAME -> startName(b);
            case IN_TAG -> inTag(b);
            case ATTR_NAME -> attributeName(b);
            case ATTR_EQ -> expect(b, '=', ATTR_VALUE_START);
            case ATTR_VALUE_START -> attributeValueStart(b);
            case ATTR_VALUE -> attributeValue(b);
            case EMPTY_END -> {
                if (b == '>') {
                    state = TEXT;
                } else {
                    fail();
                }
            }
            case END_TAG -> {
                if (b == '>') {
                    close();
                }
            }
            case PI -> terminator(b, '?', 1);
            case BANG -> bang(b);
            case COMMENT_OPEN -> expect(b, '-', COMMENT);
            case COMMENT -> terminator(b, '-', 2);
            case CDATA_OPEN -> keyword(b, CDATA_WORD, CDATA);
            case CDATA -> cdata(b);
            case DOCTYPE_OPEN -> keyword(b, DOCTYPE_WORD, DOCTYPE);
            case DOCTYPE -> doctype(b);
            default -> {
                // FAILED: refused, the scanner stopped
            }
        }
    }

    /** The body ended: text after the root is inspected; inside a tag or an open element it is not XML. */
    void end() {
        if (state == TEXT) {
            textEnd();
        }
        if (!scanner.isStopped() && (state != TEXT || depth != 0)) {
            fail();
        }
    }

    /** A bound cut the body: the value in progress is inspected as far as it arrived. */
    void flush() {
        if (state == TEXT || state == CDATA) {
            textEnd();
        } else if (state == ATTR_VALUE) {
            scanner.value(Part.BODY_XML);
        }
    }

    private void text(byte b) {
        if (b == '<') {
            textEnd();
            state = TAG_OPEN;
            return;
        }
        content |= !isSpace(b);
        scanner.append(b);
    }

    private void textEnd() {
        if (content) {
            scanner.name(element, elementLength);
            scanner.value(Part.BODY_XML);
        } else {
            scanner.discard();
        }
        content = false;
    }

    private void tagOpen(byte b) {
        if (b == '/') {
            state = END_TAG;
        } else if (b == '?') {
            run = 0;
            state = PI;
        } else if (b == '!') {
            state = BANG;
        } else if (isNameStart(b)) {
            if (depth == MAX_DEPTH) {
                state = FAILED;
                scanner.refuse(TOO_DEEP);
                return;
            }
            depth++;
            elementLength = 0;
            state = START_NAME;
            startName(b);
        } else {
            fail();
        }
    }

    private void startName(byte b) {
        if (isNameByte(b)) {
            elementLength = keep(element, elementLength, b);
        } else {
            inTag(b);
        }
    }

    private void inTag(byte b) {
        if (isSpace(b)) {
            state = IN_TAG;
        } else if (b == '>') {
            state = TEXT;
        } else if (b == '/') {
            depth--;
            state = EMPTY_END;
        } else if (isNameStart(b)) {
            attributeLength = keep(attribute, 0, b);
            state = ATTR_NAME;
        } else {
            fail();
        }
    }

    private void attributeName(byte b) {
        if (isNameByte(b)) {
            attributeLength = keep(attribute, attributeLength, b);
        } else if (isSpace(b)) {
            state = ATTR_EQ;
        } else {
            expect(b, '=', ATTR_VALUE_START);
        }
    }

    private void attributeValueStart(byte b) {
        if (b == '"' || b == '\'') {
            quote = b;
            scanner.name(attribute, attributeLength);
            state = ATTR_VALUE;
        } else if (!isSpace(b)) {
            fail();
        }
    }

    private void attributeValue(byte b) {
        if (b == quote) {
            scanner.value(Part.BODY_XML);
            state = scanner.isStopped() ? FAILED : IN_TAG;
        } else if (b == '<') {
            fail(); // XML 1.0 3.1: no < in an attribute value
        } else {
            scanner.append(b);
        }
    }

    private void close() {
        if (--depth < 0) {
            fail();
        } else {
            state = TEXT;
        }
    }

    private void bang(byte b) {
        if (b == '-') {
            state = COMMENT_OPEN;
        } else if (b == '[') {
            run = 0;
            state = CDATA_OPEN;
        } else if (b == 'D' || b == 'd') {
            run = 0;
            state = DOCTYPE_OPEN;
        } else {
            fail();
        }
    }

    /** In a comment ({@code -->}) or a processing instruction ({@code ?>}): {@code marks} of {@code mark}, then {@code >}. */
    private void terminator(byte b, char mark, int marks) {
        if (b == '>' && run >= marks) {
            state = TEXT;
        }
        run = b == mark ? run + 1 : 0;
    }

    private void keyword(byte b, String word, int next) {
        int c = b >= 'a' && b <= 'z' ? b - 32 : b;
        if (c != word.charAt(run)) {
            fail();
        } else if (++run == word.length()) {
            run = 0;
            state = next;
            if (next == DOCTYPE) {
                window = 0;
                brackets = 0;
                quote = 0;
                external = false;
                entity = false;
            }
        }
    }

    /** CDATA content is text; the {@code ]]} of its {@code ]]>} was appended and is taken back. */
    private void cdata(byte b) {
        if (b == '>' && run >= 2) {
            scanner.unappend(2);
            state = TEXT;
            run = 0;
            return;
        }
        run = b == ']' ? run + 1 : 0;
        content |= !isSpace(b);
        scanner.append(b);
    }

    private void doctype(byte b) {
        if (quote != 0) {
            if (b == quote) {
                quote = 0;
            }
            return;
        }
        int upper = b >= 'a' && b <= 'z' ? b - 32 : b & 0xFF;
        window = window << 8 | upper;
        entity |= window == ENTITY_AS_LONG;
        external |= (window & SIX_BYTES) == SYSTEM_AS_LONG || (window & SIX_BYTES) == PUBLIC_AS_LONG;
        if (b == '"' || b == '\'') {
            quote = b;
        } else if (b == '[') {
            brackets++;
        } else if (b == ']') {
            brackets--;
        } else if (b == '>' && brackets <= 0) {
            state = TEXT;
            scanner.check(EXTERNAL, external, DOCTYPE_EXCERPT);
            if (!scanner.isStopped()) {
                scanner.check(ENTITY, entity, DOCTYPE_EXCERPT);
            }
            if (scanner.isStopped()) {
                state = FAILED;
            }
        }
    }

    private void expect(byte b, char wanted, int next) {
        if (b == wanted) {
            state = next;
        } else if (!isSpace(b) || state != ATTR_EQ) {
            fail();
        }
    }

    /** Appends to a name buffer; a name past its size keeps counting (too long to match an exclusion's name). */
    private static int keep(byte[] into, int length, byte b) {
        if (length < into.length) {
            into[length] = b;
        }
        return length + 1;
    }

    private void fail() {
        state = FAILED;
        scanner.refuse("body: malformed XML");
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    private static boolean isNameStart(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == ':' || b < 0;
    }

    private static boolean isNameByte(byte b) {
        return isNameStart(b) || b >= '0' && b <= '9' || b == '-' || b == '.';
    }
}
