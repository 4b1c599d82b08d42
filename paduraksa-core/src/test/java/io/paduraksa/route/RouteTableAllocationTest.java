package io.paduraksa.route;

import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class RouteTableAllocationTest {

    private static final String[] PREFIXES = {
        "/healthz", "/metrics", "/old", "/login", "/logout", "/admin/", "/admin", "/api/v3", "/api/v2", "/api/v1",
        "/api", "/static/img", "/static", "/assets", "/favicon.ico", "/robots.txt", "/.well-known/",
        "/download", "/ws", "/",
    };

    static final class State {
        final RouteTable<String> table;
        final byte[] path;
        long sink;

        State(RouteTable<String> table, String path) {
            this.table = table;
            this.path = path.getBytes(StandardCharsets.US_ASCII);
        }

        void run() {
            sink += table.matchIndex(path, path.length);
            if (table.match(path, path.length) != null) {
                sink++;
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "first, /healthz, 0, true",
        "last, /some/page/index.html, 19, true",
        "miss, /some/page/index.html, -1, false",
    })
    void matchesWithoutAllocating(String kind, String path, int expected, boolean withCatchAll) {
        RouteTable.Builder<String> builder = RouteTable.builder();
        for (int i = 0; i < (withCatchAll ? PREFIXES.length : PREFIXES.length - 1); i++) {
            builder.add(PREFIXES[i], "route-" + i);
        }
        State state = new State(builder.build(), path);
        assertThat(state.table.matchIndex(state.path, state.path.length)).isEqualTo(expected);
        AllocationAssert.assertZero("route table " + kind, state, State::run);
    }
}
