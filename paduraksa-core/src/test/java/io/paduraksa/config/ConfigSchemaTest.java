package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/paduraksa.schema.json (draft-07, for editors) accepts every sample and valid fixture, has
 * exactly the keys of the configuration model, and rejects the invalid fixtures whose rule a JSON
 * Schema can say (unknown keys, enumerations, formats, ranges). Rules that need the whole file or
 * the file system (cluster and policy names, one action per route, CIDR syntax) stay with
 * {@code paduraksa check}.
 */
class ConfigSchemaTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonNode schemaNode;
    private static Schema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        schemaNode = JSON.readTree(ConfigReferenceTest.repoFile("docs/paduraksa.schema.json").toFile());
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7).getSchema(schemaNode);
    }

    static Stream<Path> validConfigs() throws IOException {
        List<Path> files = new ArrayList<>();
        files.addAll(yamlFiles(ConfigReferenceTest.repoFile("config")));
        files.addAll(yamlFiles(ConfigReferenceTest.repoFile("paduraksa-core/src/test/resources/config")));
        assertThat(files).as("samples and valid fixtures").hasSizeGreaterThanOrEqualTo(4);
        return files.stream();
    }

    private static List<Path> yamlFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @ParameterizedTest
    @MethodSource("validConfigs")
    void schemaAcceptsEverySampleAndValidFixture(Path file) throws IOException {
        assertThat(errors(YAML.readTree(file.toFile()))).as(file.toString()).isEmpty();
    }

    /**
     * Fixtures in config/invalid/ that break a rule the schema states; each must fail it. Not here:
     * boolean-yes.yaml, because Jackson's YAML module reads {@code yes} as {@code true} (YAML 1.1)
     * before the schema sees it (an editor's YAML 1.2 parser keeps it a string, which the schema
     * rejects), and the rules that need other parts of the file.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "unknown-key.yaml", "unknown-key-top.yaml", "unknown-key-deep.yaml", "unknown-key-no-suggestion.yaml",
        "policy-unknown-key.yaml", "forwarding-unknown-key.yaml", "request-rule-unknown-key.yaml",
        "policy-type-unknown.yaml", "policy-type-missing.yaml", "root-list.yaml", "list-for-map.yaml",
        "string-for-list.yaml", "duration-unit.yaml", "duration-unitless.yaml",
        "duration-space.yaml", "size-unit.yaml", "status-range.yaml", "redirect-status.yaml",
        "weight-range.yaml", "load-balancing.yaml", "protocol-unknown.yaml", "upstream-protocol.yaml",
        "address-missing.yaml", "address-no-port.yaml", "destinations-empty.yaml", "retry-attempts.yaml",
        "rate-limit-rate.yaml", "rate-limit-rate-missing.yaml", "rate-limit-when-full.yaml",
        "rate-limit-key.yaml", "method-lowercase.yaml", "url-path.yaml", "url-query.yaml", "url-scheme.yaml",
        "x-forwarded-for-value.yaml", "path-parameters-value.yaml",
        "headers-with-underscores.yaml", "identity-header-trusted-name.yaml", "host-error-page-status.yaml",
        "route-cache-unknown-key.yaml",
    })
    void schemaRejectsInvalidFixture(String name) throws IOException {
        Path file = ConfigReferenceTest.repoFile("paduraksa-core/src/test/resources/config/invalid/" + name);

        assertThat(errors(YAML.readTree(file.toFile()))).as(name).isNotEmpty();
    }

    @Test
    void schemaNamesExactlyTheKeysOfTheModel() {
        Set<String> inSchema = new TreeSet<>();
        walkObject(schemaNode, "", false, inSchema);
        Set<String> model = ConfigKeys.expanded();

        Set<String> missing = new TreeSet<>(model);
        missing.removeAll(inSchema);
        Set<String> unknown = new TreeSet<>(inSchema);
        unknown.removeAll(model);
        assertThat(missing).as("keys of the model the schema lacks").isEmpty();
        assertThat(unknown).as("keys of the schema the model lacks").isEmpty();
    }

    @Test
    void everyObjectInTheSchemaForbidsUnknownKeys() {
        List<String> open = new ArrayList<>();
        findOpenObjects(schemaNode, "#", open);

        assertThat(open).as("objects with properties but without additionalProperties: false").isEmpty();
    }

    private static List<String> errors(JsonNode config) {
        List<String> messages = new ArrayList<>();
        for (Error e : schema.validate(config)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    /** Key paths of an object schema, in {@link ConfigKeys}' syntax; the policy type key is listed once. */
    private static void walkObject(JsonNode node, String path, boolean typeBranch, Set<String> out) {
        node = resolve(node);
        Iterator<Map.Entry<String, JsonNode>> props = node.path("properties").fields();
        while (props.hasNext()) {
            Map.Entry<String, JsonNode> p = props.next();
            if (typeBranch && p.getKey().equals("type")) {
                continue;
            }
            String child = path.isEmpty() ? p.getKey() : path + "." + p.getKey();
            out.add(child);
            walkValue(p.getValue(), child, out);
        }
        for (JsonNode branch : node.path("allOf")) {
            JsonNode type = branch.path("if").path("properties").path("type").path("const");
            if (type.isTextual()) {
                walkObject(branch.path("then"), path + "(type=" + type.asText() + ")", true, out);
            }
        }
    }

    private static void walkValue(JsonNode node, String path, Set<String> out) {
        node = resolve(node);
        if (node.has("items")) {
            walkValue(node.get("items"), path + "[]", out);
        }
        if (node.path("additionalProperties").isObject()) {
            walkValue(node.get("additionalProperties"), path + ".*", out);
        }
        if (node.has("properties")) {
            walkObject(node, path, false, out);
        }
    }

    private static JsonNode resolve(JsonNode node) {
        while (node.has("$ref")) {
            node = schemaNode.at(node.get("$ref").asText().substring(1));
        }
        return node;
    }

    private static void findOpenObjects(JsonNode node, String where, List<String> open) {
        if (node.isObject()) {
            if (node.has("properties") && !node.path("allOf").isArray() && !where.endsWith("/if")
                    && !node.path("additionalProperties").isBoolean()) {
                open.add(where);
            }
            node.fields().forEachRemaining(e -> findOpenObjects(e.getValue(), where + "/" + e.getKey(), open));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                findOpenObjects(node.get(i), where + "/" + i, open);
            }
        }
    }
}
