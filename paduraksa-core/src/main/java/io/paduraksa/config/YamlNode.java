package io.paduraksa.config;

import com.fasterxml.jackson.core.JsonToken;
import java.util.List;
import java.util.Map;

/**
 * The YAML document as read by {@link YamlReader}: Jackson's tokens with their places kept
 * ({@code JsonNode} keeps none). Only the binder reads it, once per load.
 */
sealed interface YamlNode {

    /** Where the node starts: a scalar's first character, a mapping's first key, a list's first item or bracket. */
    Location at();

    /** How an error message names what was found. */
    String describe();

    /**
     * A scalar as written (plain, quoted or block). {@code token} is Jackson's reading of it:
     * {@code VALUE_STRING} for quoted and plain text, numbers and booleans (only {@code true} and
     * {@code false}; {@code yes}/{@code no} stay text) for plain scalars, {@code VALUE_NULL} for
     * {@code ~}, {@code null} or nothing. {@code number} is set for numeric tokens. {@code alias}
     * marks an alias ({@code *name}), already reported by the reader and skipped by the binder.
     */
    record Scalar(String text, JsonToken token, Number number, boolean alias, Location at) implements YamlNode {
        boolean isNull() {
            return token == JsonToken.VALUE_NULL;
        }

        @Override
        public String describe() {
            return isNull() ? "an empty value" : "'" + SpecChecks.escape(text) + "'";
        }
    }

    /** A key as written and where it is, and its value. */
    record Entry(String key, Location keyAt, YamlNode value) {
    }

    /** A mapping in the order written (a duplicate key keeps its first value; the reader reports it). */
    record Mapping(Map<String, Entry> entries, Location at) implements YamlNode {
        @Override
        public String describe() {
            return "a mapping";
        }
    }

    /** A sequence, block ({@code - x}) or flow ({@code [x, y]}). */
    record Sequence(List<YamlNode> items, Location at) implements YamlNode {
        @Override
        public String describe() {
            return "a list";
        }
    }
}
