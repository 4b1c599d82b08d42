package io.paduraksa.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The YAML shown in the guides is what the loader and the schema accept, and the error the getting
 * started guide quotes is the one the loader prints.
 */
class DocsExamplesTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @ParameterizedTest
    @ValueSource(strings = {"docs/getting-started.md", "docs/cloudflare.md", "docs/configuration.md"})
    void everyYamlBlockFitsTheSchemaAndWholeFilesLoad(String page) throws Exception {
        Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7)
                .getSchema(new ObjectMapper().readTree(ConfigReferenceTest.repoFile("docs/paduraksa.schema.json").toFile()));
        List<String> blocks = yamlBlocks(page);
        assertThat(blocks).as(page).isNotEmpty();
        for (String block : blocks) {
            if (block.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
                continue; // a comment-only block, like the schema hint
            }
            assertThat(schema.validate(YAML.readTree(block))).as("%s:%n%s", page, block).isEmpty();
            if (block.contains("\nhosts:")) {
                assertThat(ConfigLoader.parse("example.yaml", block).spec().hosts()).as(block).isNotEmpty();
            }
        }
    }

    @Test
    void gettingStartedQuotesTheLoadersError() throws IOException {
        String page = Files.readString(ConfigReferenceTest.repoFile("docs/getting-started.md"));
        String first = yamlBlocks("docs/getting-started.md").get(0);
        String misspelt = first.replace("    deny: [/admin]", "    dney: [/admin]");
        assertThat(misspelt).isNotEqualTo(first);

        assertThatThrownBy(() -> ConfigLoader.parse("edge.yaml", misspelt))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(page).contains(e.errors().get(0).toString()));
    }

    private static List<String> yamlBlocks(String page) throws IOException {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (String line : Files.readAllLines(ConfigReferenceTest.repoFile(page))) {
            if (block == null && line.equals("```yaml")) {
                block = new StringBuilder();
            } else if (block != null && line.equals("```")) {
                blocks.add(block.toString());
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }
}
