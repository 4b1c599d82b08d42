package io.paduraksa.policy;

import io.paduraksa.testing.TestPolicyInput;
import io.paduraksa.testing.AllocationAssert;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("allocation")
class PathPolicyAllocationTest {

    /** The gate's request state: the normalised path in a reused buffer. */
    static final class Request extends TestPolicyInput {
        final PathPolicy policy;
        long sink;

        Request(PathPolicy policy, String normalisedPath) {
            this.policy = policy;
            path(normalisedPath);
        }

        void run() {
            sink += policy.evaluate(this).action().ordinal();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/static/css/site.css, CONTINUE",
        "/ADMIN/users, DROP",
        "/wp-login.php, DROP",
        "/private/x, DROP",
    })
    void evaluatesWithoutAllocating(String path, String expected) {
        PathPolicy policy = new PathPolicy("paths", List.of("/static/", "/api", "/wp-login.php", "/admin"),
                List.of("/admin", "/.git/", "/.env", "/wp-login.php", "/phpmyadmin", "/cgi-bin/"), PolicyDecision.DROP);
        Request request = new Request(policy, path);
        assertThat(policy.evaluate(request).toString()).isEqualTo(expected);
        AllocationAssert.assertZero("path policy " + path, request, Request::run);
    }
}
