package io.paduraksa.server.http2;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Lower-case HTTP/2 field names for the fields of an upstream's HTTP/1.1 response head. The names
 * Netty knows ({@link HttpHeaderNames}: content-type, content-length, cache-control, etag, ...) come
 * from a table built once, found by a case-insensitive hash of the name as sent, so a forwarded
 * response's common fields cost no name objects; any other name is copied in lower case.
 */
final class ResponseFieldNames {
    private static final AsciiString[] TABLE;
    private static final int MASK;

    static {
        List<AsciiString> names = new ArrayList<>();
        for (Field f : HttpHeaderNames.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == AsciiString.class) {
                try {
                    names.add((AsciiString) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
        int size = Integer.highestOneBit(names.size() * 4 - 1) << 1;
        TABLE = new AsciiString[size];
        MASK = size - 1;
        for (AsciiString name : names) {
            int i = AsciiString.hashCode(name) & MASK;
            while (TABLE[i] != null && !TABLE[i].contentEqualsIgnoreCase(name)) {
                i = (i + 1) & MASK;
            }
            TABLE[i] = name;
        }
    }

    private ResponseFieldNames() {
    }

    /** The lower-case name equal to {@code name} ignoring ASCII case: shared when known, else a copy. */
    static AsciiString lowerCase(CharSequence name) {
        int i = AsciiString.hashCode(name) & MASK;
        AsciiString candidate;
        while ((candidate = TABLE[i]) != null) {
            if (candidate.contentEqualsIgnoreCase(name)) {
                return candidate;
            }
            i = (i + 1) & MASK;
        }
        return new AsciiString(name).toLowerCase();
    }
}
