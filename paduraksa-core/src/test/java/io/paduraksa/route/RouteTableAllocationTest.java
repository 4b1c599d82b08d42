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

    /** What the gate does per request: normalise the target's path (parameters stripped), then match. */
    static final class NormalisedState {
        final RouteTable<String> table;
        final CharSequence target;
        final byte[] out = new byte[256];
        long sink;

        NormalisedState(RouteTable<String> table, CharSequence target) {
            this.table = table;
            this.target = target;
        }

        int runOnce() {
            int end = PathNormalizer.pathEnd(target, 0, target.length());
            int n = PathNormalizer.normalize(target, 0, end, out, PathNormalizer.DEFAULT_OPTIONS);
            return n < 0 ? n : table.matchIndex(out, n);
        }

        void run() {
            sink += runOnce();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/admin;x=1",
        "/admin;jsessionid=1/x",
        "/x/..;/admin",
        "/a;x/..;y/admin;z?q=1",
        "/%61dmin%3Bx=1",
        "/.;/admin;/",
    })
    void matchesParameterSpellingsOfAdminWithoutAllocating(String target) {
        RouteTable.Builder<String> builder = RouteTable.builder();
        for (String prefix : PREFIXES) {
            builder.add(prefix, prefix);
        }
        NormalisedState state = new NormalisedState(builder.build(), target);
        int index = state.runOnce();
        assertThat(index).as(target).isGreaterThanOrEqualTo(0);
        assertThat(state.table.value(index)).as(target).startsWith("/admin");
        AllocationAssert.assertZero("normalise and match " + target, state, NormalisedState::run);
    }
}
