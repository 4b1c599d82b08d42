package io.paduraksa.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The one streaming pass over the YAML text: Jackson's {@link YAMLParser} tokens become a
 * {@link YamlNode} tree and a {@link YamlPositions} table at the same time. It reports what only
 * the token stream shows: syntax errors (which end the pass), duplicate keys, aliases (Jackson
 * hands back an alias as its anchor's name, so {@code *bots} in a deny list would silently become
 * the text "bots") and a second document.
 */
final class YamlReader {
    /**
     * {@code yes}/{@code no}/{@code on}/{@code off} stay text (YAML 1.2 reads them as text; a host
     * name {@code no} must not become {@code false}); a plain empty value is null, a quoted one
     * stays the empty string.
     */
    private static final YAMLFactory FACTORY = YAMLFactory.builder()
            .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
            .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
            .build();

    /** The tree (null when the file is empty or has a syntax error), the positions and the errors found. */
    record Result(YamlNode root, YamlPositions positions, boolean syntaxError) {
    }

    private final YAMLParser parser;
    private final ErrorList errors;
    private final Map<String, Location> values = new HashMap<>();

    private YamlReader(YAMLParser parser, ErrorList errors) {
        this.parser = parser;
        this.errors = errors;
    }

    static Result read(String yamlText, ErrorList errors) {
        try (YAMLParser parser = FACTORY.createParser(yamlText)) {
            YamlReader reader = new YamlReader(parser, errors);
            return reader.readDocument();
        } catch (IOException e) {
            // A String source does no I/O; only parse errors land here and readDocument handles those.
            throw new IllegalStateException(e);
        }
    }

    static Result read(String fileName, String yamlText) {
        return read(yamlText, new ErrorList(fileName));
    }

    private Result readDocument() throws IOException {
        YamlNode root = null;
        try {
            JsonToken token = parser.nextToken();
            if (token != null) {
                root = readValue(token, YamlPath.ROOT);
                token = parser.nextToken();
                if (token != null) {
                    errors.add(YamlPath.ROOT, here(), "a second YAML document (expected one document per file)");
                }
            }
        } catch (StreamReadException e) {
            syntaxError(e);
            return new Result(null, positions(), true);
        } catch (YAMLException e) {
            // SnakeYAML's own limits (document size, nesting) arrive unwrapped.
            errors.add(YamlPath.ROOT, here(), "YAML error: " + e.getMessage());
            return new Result(null, positions(), true);
        }
        return new Result(root, positions(), false);
    }

    private YamlPositions positions() {
        return new YamlPositions(values);
    }

    private YamlNode readValue(JsonToken token, String path) throws IOException {
        Location at = here();
        values.putIfAbsent(path, at);
        if (token == JsonToken.START_OBJECT) {
            return readMapping(path, at);
        }
        if (token == JsonToken.START_ARRAY) {
            return readSequence(path, at);
        }
        boolean alias = parser.isCurrentAlias();
        if (alias) {
            errors.add(path, at, "alias '*" + parser.getText() + "' (expected the value written out: aliases are not supported)");
        }
        Number number = token.isNumeric() ? parser.getNumberValue() : null;
        return new YamlNode.Scalar(parser.getText(), token, number, alias, at);
    }

    private YamlNode readMapping(String path, Location at) throws IOException {
        Map<String, YamlNode.Entry> entries = new LinkedHashMap<>();
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String key = parser.currentName();
            Location keyAt = here();
            String keyPath = YamlPath.key(path, key);
            YamlNode value = readValue(parser.nextToken(), keyPath);
            YamlNode.Entry first = entries.putIfAbsent(key, new YamlNode.Entry(key, keyAt, value));
            if (first != null) {
                errors.add(keyPath, keyAt, "duplicate key, first written at line " + first.keyAt().line()
                        + " (expected each key once in a mapping)");
            }
        }
        expectEnd(token, JsonToken.END_OBJECT);
        return new YamlNode.Mapping(entries, at);
    }

    private YamlNode readSequence(String path, Location at) throws IOException {
        List<YamlNode> items = new ArrayList<>();
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY && token != null) {
            items.add(readValue(token, YamlPath.index(path, items.size())));
        }
        expectEnd(token, JsonToken.END_ARRAY);
        return new YamlNode.Sequence(items, at);
    }

    private static void expectEnd(JsonToken token, JsonToken expected) {
        if (token != expected) {
            // The YAML parser always balances its tokens; anything else is a Jackson change we must see.
            throw new IllegalStateException("unbalanced YAML tokens: " + token + " instead of " + expected);
        }
    }

    private Location here() {
        return location(parser.currentTokenLocation());
    }

    private static Location location(JsonLocation at) {
        return new Location(Math.max(at.getLineNr(), 1), Math.max(at.getColumnNr(), 1));
    }

    /**
     * SnakeYAML says what it was doing (the context, e.g. "while scanning a quoted scalar", and
     * where that began) and what went wrong (the problem and its place). The problem's place is
     * the useful one, except at the end of the file: an unclosed quote or bracket is found there,
     * but the operator needs the place where it was opened.
     */
    private void syntaxError(StreamReadException e) {
        MarkedYAMLException marked = findMarked(e);
        if (marked == null) {
            errors.add(YamlPath.ROOT, location(e.getLocation()), "YAML syntax error: " + jacksonProblem(e));
            return;
        }
        Mark problemAt = marked.getProblemMark();
        Mark contextAt = marked.getContextMark();
        String problem = marked.getProblem();
        boolean atEnd = problem != null && problem.contains("end of stream") || problem != null && problem.contains("<stream end>");
        Mark where = atEnd && contextAt != null ? contextAt : problemAt != null ? problemAt : contextAt;
        StringBuilder message = new StringBuilder("YAML syntax error: ").append(problem);
        if (marked.getContext() != null && marked.getContext().contains("alias")) {
            // A plain scalar starting with * is an alias to YAML: "*.example.test" must be quoted.
            message.append(" (quote values that start with * or &, like \"*.example.test\")");
        } else if (marked.getContext() != null && contextAt != null) {
            message.append(" (").append(marked.getContext()).append(" that starts at line ")
                    .append(contextAt.getLine() + 1).append(", column ").append(contextAt.getColumn() + 1).append(')');
        } else {
            message.append(" (check the indentation and quoting)");
        }
        Location at = where == null ? location(e.getLocation()) : new Location(where.getLine() + 1, where.getColumn() + 1);
        errors.add(YamlPath.ROOT, at, message.toString());
    }

    /** Jackson's own parse errors may name SnakeYAML event classes; the operator gets the gist instead. */
    private static String jacksonProblem(StreamReadException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (message.contains("org.") || message.contains("com.") || message.contains("java.")) {
            return "this YAML construct is not supported here (expected plain keys, values and lists)";
        }
        return message;
    }

    private static MarkedYAMLException findMarked(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException marked) {
                return marked;
            }
        }
        return null;
    }
}
