package io.paduraksa.policy;

import io.netty.util.AsciiString;
import java.util.List;
import java.util.Locale;

/**
 * Header fields a policy adds to the upstream request (a forward-auth's copied answer headers such
 * as {@code X-User}), built once when the decision is made and shared by every request that reuses
 * the decision: names as configured, their lower-case form for HTTP/2, values. Immutable; reading
 * it allocates nothing.
 */
public final class UpstreamFields {
    private final AsciiString[] names;
    private final AsciiString[] lowerNames;
    private final AsciiString[] values;

    /** {@code fields}: name and value pairs, already checked to be a token and one header line. */
    public UpstreamFields(List<String[]> fields) {
        int n = fields.size();
        names = new AsciiString[n];
        lowerNames = new AsciiString[n];
        values = new AsciiString[n];
        for (int i = 0; i < n; i++) {
            names[i] = AsciiString.of(fields.get(i)[0]);
            lowerNames[i] = AsciiString.of(fields.get(i)[0].toLowerCase(Locale.ROOT));
            values[i] = AsciiString.of(fields.get(i)[1]);
        }
    }

    public int size() {
        return names.length;
    }

    /** The name as configured (HTTP/1.1). */
    public AsciiString name(int i) {
        return names[i];
    }

    public AsciiString lowerName(int i) {
        return lowerNames[i];
    }

    public AsciiString value(int i) {
        return values[i];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("UpstreamFields(");
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(names[i]);
        }
        return sb.append(')').toString();
    }
}
