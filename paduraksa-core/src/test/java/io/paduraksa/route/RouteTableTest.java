package io.paduraksa.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RouteTableTest {

    private static final RouteTable<String> TABLE = RouteTable.<String>builder()
            .add("/healthz", "health")
            .add("/old", "redirect")
            .add("/admin/", "admin-dir")
            .add("/admin", "admin")
            .add("/api/v2", "api-v2")
            .add("/api", "api")
            .add("/", "default")
            .add("/never", "shadowed")
            .build();

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/healthz, health, 0",
        "/healthz/, health, 0",
        "/healthzz, default, 6",
        "/old/page, redirect, 1",
        "/admin/x, admin-dir, 2",
        "/admin/, admin-dir, 2",
        "/admin, admin, 3",
        "/administrator, default, 6",
        "/api/v2/users, api-v2, 4",
        "/api/v20, api, 5",
        "/api, api, 5",
        "/apix, default, 6",
        "/, default, 6",
        "/never, default, 6",
    })
    void firstMatchInConfigurationOrderWins(String path, String value, int index) {
        byte[] bytes = path.getBytes(StandardCharsets.US_ASCII);
        assertThat(TABLE.match(bytes, bytes.length)).isEqualTo(value);
        assertThat(TABLE.matchIndex(bytes, bytes.length)).isEqualTo(index);
    }

    @Test
    void missReturnsNullAndMinusOne() {
        RouteTable<String> table = RouteTable.<String>builder().add("/a", "a").add("/b/", "b").build();
        byte[] path = "/b".getBytes(StandardCharsets.US_ASCII);
        assertThat(table.match(path, 2)).isNull();
        assertThat(table.matchIndex(path, 2)).isEqualTo(-1);
        assertThat(table.matchIndex("/".getBytes(StandardCharsets.US_ASCII), 1)).isEqualTo(-1);
    }

    @Test
    void emptyTableMatchesNothing() {
        RouteTable<Integer> table = RouteTable.<Integer>builder().build();
        assertThat(table.size()).isZero();
        assertThat(table.match("/".getBytes(StandardCharsets.US_ASCII), 1)).isNull();
    }

    @Test
    void exposesEntriesForExplain() {
        assertThat(TABLE.size()).isEqualTo(8);
        assertThat(TABLE.prefix(3)).isEqualTo("/admin");
        assertThat(TABLE.value(3)).isEqualTo("admin");
        RouteTable<String> table = RouteTable.<String>builder().add("/a/./b/", "x").build();
        assertThat(table.prefix(0)).isEqualTo("/a/b/");
        assertThat(table).hasToString("RouteTable[/a/b/ -> x]");
    }

    @Test
    void findsRoutesThatCanNeverWin() {
        assertThat(TABLE.shadowingIndex(0)).isEqualTo(-1);
        assertThat(TABLE.shadowingIndex(2)).isEqualTo(-1); // /admin/ before /admin: both reachable
        assertThat(TABLE.shadowingIndex(3)).isEqualTo(-1);
        assertThat(TABLE.shadowingIndex(7)).isEqualTo(6);
        RouteTable<String> table = RouteTable.<String>builder()
                .add("/admin", "a").add("/admin/", "b").add("/admin/x", "c").add("/adminx", "d").build();
        assertThat(table.shadowingIndex(1)).isEqualTo(0);
        assertThat(table.shadowingIndex(2)).isEqualTo(0);
        assertThat(table.shadowingIndex(3)).isEqualTo(-1);
    }

    @Test
    void rejectsInvalidEntries() {
        assertThatThrownBy(() -> RouteTable.<String>builder().add("/a/../../b", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path prefix '/a/../../b': '..' above the root");
        assertThatThrownBy(() -> RouteTable.<String>builder().add("/a", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("route '/a' has no value");
    }

    /** The second-byte filter and byte compare agree with a plain String rule on random tables. */
    @Test
    void agreesWithAStringRuleOnRandomTables() {
        String[] parts = {"a", "b", "ab", "A", "/"};
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 2_000; round++) {
            String[] prefixes = new String[1 + random.nextInt(6)];
            RouteTable.Builder<Integer> builder = RouteTable.builder();
            for (int i = 0; i < prefixes.length; i++) {
                prefixes[i] = randomPath(random, parts);
                builder.add(prefixes[i], i);
            }
            RouteTable<Integer> table = builder.build();
            for (int k = 0; k < 20; k++) {
                String path = randomPath(random, parts);
                byte[] bytes = path.getBytes(StandardCharsets.US_ASCII);
                int expected = -1;
                for (int i = 0; i < prefixes.length && expected < 0; i++) {
                    if (stringMatch(prefixes[i], path)) {
                        expected = i;
                    }
                }
                assertThat(table.matchIndex(bytes, bytes.length)).as("%s in %s", path, table).isEqualTo(expected);
            }
        }
    }

    /** A random already-normalised path: no empty segments except a trailing slash. */
    private static String randomPath(SplittableRandom random, String[] parts) {
        StringBuilder sb = new StringBuilder("/");
        int segments = random.nextInt(4);
        for (int s = 0; s < segments; s++) {
            sb.append(parts[random.nextInt(4)]);
            if (s < segments - 1 || random.nextBoolean()) {
                sb.append('/');
            }
        }
        return sb.toString();
    }

    private static boolean stringMatch(String prefix, String path) {
        if (prefix.endsWith("/")) {
            return path.startsWith(prefix);
        }
        return path.equals(prefix) || path.startsWith(prefix + "/");
    }
}
