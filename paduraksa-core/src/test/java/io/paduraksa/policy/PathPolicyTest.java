package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathPolicyTest {

    /** The gate's request state, reduced to what this policy reads: a normalised path in a reused buffer. */
    static final class Request extends TestPolicyInput {
        Request(String normalisedPath) {
            path(normalisedPath);
        }
    }

    private static final PathPolicy DENY_ONLY =
            new PathPolicy("no-admin", List.of(), List.of("/admin", "/.git/", "/wp-login.php"), PolicyDecision.DROP);
    private static final PathPolicy ALLOW_AND_DENY =
            new PathPolicy("public-only", List.of("/public", "/static/"), List.of("/public/secret"), PolicyDecision.DROP);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/admin, DROP",
        "/admin/, DROP",
        "/admin/users, DROP",
        "/ADMIN, DROP",
        "/Admin/x, DROP",
        "/administrator, CONTINUE",
        "/.git/config, DROP",
        "/.GIT/config, DROP",
        "/.git, CONTINUE",
        "/wp-login.php, DROP",
        "/WP-LOGIN.PHP, DROP",
        "/, CONTINUE",
        "/x/admin, CONTINUE",
    })
    void denyListWinsIgnoringCase(String path, String expected) {
        assertThat(DENY_ONLY.evaluate(new Request(path)).toString()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/public, CONTINUE",
        "/public/page, CONTINUE",
        "/publication, DROP",
        "/Public/page, DROP",
        "/static/app.js, CONTINUE",
        "/static, DROP",
        "/public/secret, DROP",
        "/public/SECRET/x, DROP",
        "/public/secrets, CONTINUE",
        "/, DROP",
        "/other, DROP",
    })
    void allowListMatchesCaseSensitivelyAndDenyStillWins(String path, String expected) {
        assertThat(ALLOW_AND_DENY.evaluate(new Request(path)).toString()).isEqualTo(expected);
    }

    @Test
    void emptyListsAllowEverything() {
        PathPolicy open = new PathPolicy("open", List.of(), List.of(), PolicyDecision.DROP);
        assertThat(open.evaluate(new Request("/anything"))).isSameAs(PolicyDecision.CONTINUE);
    }

    @Test
    void readsOnlyPathLengthBytes() {
        Request request = new Request("/admin");
        request.path()[6] = 'x'; // stale bytes from a longer earlier path
        request.path()[7] = 'y';
        assertThat(DENY_ONLY.evaluate(request)).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void configuredPrefixesAreNormalised() {
        PathPolicy p = new PathPolicy("n", List.of(), List.of("/a/./%61dmin/"), PolicyDecision.DROP);
        assertThat(p.evaluate(new Request("/a/admin/x"))).isSameAs(PolicyDecision.DROP);
    }

    @Test
    void invalidPrefixesAreNamed() {
        assertThatThrownBy(() -> new PathPolicy("p", List.of("public"), List.of(), PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path policy 'p' allow: path prefix 'public': path does not start with '/'");
        assertThatThrownBy(() -> new PathPolicy("p", List.of(), List.of("/../x"), PolicyDecision.DROP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path policy 'p' deny: path prefix '/../x': '..' above the root");
    }
}
