package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md documents exactly the keys of the configuration model, each with a type, a
 * default and an example. The convention it is read by is written at the top of that page: a table
 * whose header starts {@code | key | type | default | example |} lists keys in backticks, relative
 * to the first backticked span of the heading above it ({@code <name>} there stands for any name).
 */
class ConfigReferenceTest {
    private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern TYPE_SPAN = Pattern.compile("`type: ([a-z_]+)`");
    private static final Pattern KEY_CELL = Pattern.compile("`([^`]+)`");

    /** Walks up from the module directory to the repository root (surefire runs in the module). */
    static Path repoFile(String relative) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve(relative))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("no %s above the working directory", relative).isNotNull();
        return dir.resolve(relative);
    }

    @Test
    void referenceDocumentsEveryKeyOfTheModelAndNoOther() throws IOException {
        Reference doc = Reference.read(repoFile("docs/configuration.md"));
        Set<String> model = ConfigKeys.shared();

        Set<String> missing = new TreeSet<>(model);
        missing.removeAll(doc.keys.keySet());
        Set<String> unknown = new TreeSet<>(doc.keys.keySet());
        unknown.removeAll(model);

        assertThat(missing).as("keys of the model that docs/configuration.md does not document").isEmpty();
        assertThat(unknown).as("keys docs/configuration.md documents but the model lacks").isEmpty();
        assertThat(doc.duplicates).as("keys documented twice").isEmpty();
    }

    @Test
    void everyDocumentedKeyHasTypeDefaultAndExample() throws IOException {
        Reference doc = Reference.read(repoFile("docs/configuration.md"));

        assertThat(doc.incomplete).as("rows with an empty type, default or example cell").isEmpty();
        assertThat(doc.keys).as("the reader found the key tables").hasSizeGreaterThan(100);
    }

    @Test
    void sharedTypesAreTheRecordsUsedInSeveralPlaces() {
        assertThat(ConfigKeys.sharedTypes()).extracting(ConfigKeys::sharedName)
                .contains("action", "respond", "redirect", "response_headers", "request_rule");
    }

    @Test
    void readerAppliesHeadingPrefixesAndPolicyTypes() {
        String md = String.join("\n",
                "## Top level",
                "| key | type | default | example |",
                "|---|---|---|---|",
                "| `server` | mapping | | `server: {}` |",
                "## `clusters.<name>`",
                "| key | type | default | example | notes |",
                "|---|---|---|---|---|",
                "| `health.active.path` | string | `/` | `path: /healthz` | x |",
                "### `policies.<name>`, `type: rate_limit`",
                "| key | type | default | example |",
                "|---|---|---|---|",
                "| `burst` | integer | `1` | `burst: 20` |",
                "",
                "| match | meaning |",
                "|---|---|",
                "| `present: true` | not a key table |",
                "```",
                "| `inside` | code | x | y |",
                "```");

        Reference doc = Reference.parse(md);

        assertThat(doc.keys.keySet()).containsExactly("server", "clusters.*.health.active.path", "policies.*(type=rate_limit).burst");
        assertThat(doc.incomplete).containsExactly("server");
    }

    private static Set<Class<?>> recordTypes() {
        Set<Class<?>> found = new LinkedHashSet<>();
        collect(PaduraksaSpec.class, found);
        return found;
    }

    private static void collect(Class<?> type, Set<Class<?>> found) {
        if (!found.add(type)) {
            return;
        }
        for (RecordComponent c : type.getRecordComponents()) {
            for (Class<?> held : heldTypes(c.getGenericType())) {
                if (held.isRecord() && held != DataSize.class && held != Share.class) {
                    collect(held, found);
                } else if (held.isSealed()) {
                    for (Class<?> sub : held.getPermittedSubclasses()) {
                        collect(sub, found);
                    }
                }
            }
        }
    }

    private static List<Class<?>> heldTypes(java.lang.reflect.Type type) {
        if (type instanceof java.lang.reflect.ParameterizedType p) {
            List<Class<?>> all = new ArrayList<>();
            for (java.lang.reflect.Type arg : p.getActualTypeArguments()) {
                all.addAll(heldTypes(arg));
            }
            return all;
        }
        return List.of((Class<?>) type);
    }

    /** The key rows of configuration.md, by full key path. */
    static final class Reference {
        final Map<String, String> keys = new LinkedHashMap<>();
        final List<String> duplicates = new ArrayList<>();
        final List<String> incomplete = new ArrayList<>();

        static Reference read(Path file) throws IOException {
            return parse(Files.readString(file));
        }

        static Reference parse(String markdown) {
            Reference ref = new Reference();
            String prefix = "";
            boolean keyTable = false;
            boolean code = false;
            for (String line : markdown.split("\n", -1)) {
                if (line.startsWith("```")) {
                    code = !code;
                } else if (code) {
                    continue;
                } else if (line.startsWith("#")) {
                    prefix = prefix(line);
                    keyTable = false;
                } else if (line.startsWith("|")) {
                    List<String> cells = cells(line);
                    if (cells.get(0).startsWith("---")) {
                        continue;
                    }
                    if (!keyTable && isKeyHeader(cells)) {
                        keyTable = true;
                    } else if (keyTable) {
                        ref.row(prefix, cells);
                    }
                } else {
                    keyTable = false;
                }
            }
            return ref;
        }

        private static boolean isKeyHeader(List<String> cells) {
            return cells.size() >= 4 && cells.get(0).equals("key") && cells.get(1).equals("type")
                    && cells.get(2).equals("default") && cells.get(3).equals("example");
        }

        private void row(String prefix, List<String> cells) {
            Matcher m = KEY_CELL.matcher(cells.get(0));
            if (!m.matches()) {
                duplicates.add("not a single backticked key: " + cells.get(0));
                return;
            }
            String key = prefix.isEmpty() ? m.group(1) : prefix + "." + m.group(1);
            if (keys.put(key, String.join(" | ", cells)) != null) {
                duplicates.add(key);
            }
            if (cells.size() < 4 || cells.get(1).isEmpty() || cells.get(2).isEmpty() || cells.get(3).isEmpty()) {
                incomplete.add(key);
            }
        }

        /** The first backticked span of a heading, {@code <name>} read as {@code *}, plus a {@code type: x} span. */
        private static String prefix(String heading) {
            Matcher span = SPAN.matcher(heading);
            if (!span.find()) {
                return "";
            }
            String prefix = span.group(1).replace("<name>", "*");
            Matcher type = TYPE_SPAN.matcher(heading);
            return type.find() ? prefix + "(type=" + type.group(1) + ")" : prefix;
        }

        private static List<String> cells(String line) {
            String inner = line.strip();
            inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
            List<String> cells = new ArrayList<>();
            for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
                cells.add(cell.strip());
            }
            return cells;
        }
    }
}
