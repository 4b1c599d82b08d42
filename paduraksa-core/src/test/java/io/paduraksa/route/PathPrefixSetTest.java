package io.paduraksa.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathPrefixSetTest {

    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
        "/admin, /admin, true",
        "/admin, /admin/, true",
        "/admin, /admin/x, true",
        "/admin, /admin/x/y/, true",
        "/admin, /administrator, false",
        "/admin, /admi, false",
        "/admin, /, false",
        "/admin, /Admin, false",
        "/admin, /x/admin, false",
        "/admin/, /admin/, true",
        "/admin/, /admin/x, true",
        "/admin/, /admin, false",
        "/admin/, /adminx, false",
        "/, /, true",
        "/, /anything/at/all, true",
        "/a/b, /a/b/c, true",
        "/a/b, /a/bc, false",
        "/a/b, /a, false",
        // configured prefixes are normalised like paths
        "/a/./b, /a/b/c, true",
        "/%61dmin, /admin, true",
        "//admin, /admin/x, true",
        "/x/../admin, /admin, true",
        "/a%3ab, /a%3Ab, true",
        "/static/, /static/x, true",
    })
    void matchesSegmentAware(String prefix, String path, boolean expected) {
        PathPrefixSet set = PathPrefixSet.of(List.of(prefix), false);
        assertThat(set.matches(bytes(path), path.length())).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
        "/admin, /ADMIN, true",
        "/admin, /Admin/x, true",
        "/Admin, /aDmIn, true",
        "/ADMIN, /administrator, false",
        "/admin, /admin, true",
        "/a%3ab, /A%3ab, true",
        "/caf%c3%a9, /CAF%C3%A9, true",
    })
    void matchesIgnoringAsciiCaseWhenAsked(String prefix, String path, boolean expected) {
        PathPrefixSet set = PathPrefixSet.of(List.of(prefix), true);
        assertThat(set.matches(bytes(path), path.length())).isEqualTo(expected);
    }

    @Test
    void readsOnlyTheGivenLength() {
        PathPrefixSet set = PathPrefixSet.of(List.of("/admin"), false);
        byte[] buffer = bytes("/administrator");
        assertThat(set.matches(buffer, 6)).isTrue();
        assertThat(set.matches(buffer, 7)).isFalse();
        assertThat(set.matches(buffer, 5)).isFalse();
    }

    @Test
    void reportsTheFirstMatchingPrefixInConfigurationOrder() {
        PathPrefixSet set = PathPrefixSet.of(List.of("/api/v2", "/api", "/"), false);
        assertThat(set.matchIndex(bytes("/api/v2/x"), 9)).isEqualTo(0);
        assertThat(set.matchIndex(bytes("/api/v1/x"), 9)).isEqualTo(1);
        assertThat(set.matchIndex(bytes("/other"), 6)).isEqualTo(2);
        assertThat(set.size()).isEqualTo(3);
        assertThat(set.prefix(0)).isEqualTo("/api/v2");
        assertThat(set).hasToString("PathPrefixSet[/api/v2, /api, /]");
    }

    @Test
    void emptySetMatchesNothing() {
        PathPrefixSet set = PathPrefixSet.of(List.of(), true);
        assertThat(set.isEmpty()).isTrue();
        assertThat(set.matches(bytes("/"), 1)).isFalse();
        assertThat(set.matchIndex(bytes("/x"), 2)).isEqualTo(-1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "admin|path prefix 'admin': path does not start with '/'",
        "/a/../..|path prefix '/a/../..': '..' above the root",
        "/a%zz|path prefix '/a%zz': '%' not followed by two hex digits",
        "/a%2Fb|path prefix '/a%2Fb': encoded slash (%2F) rejected",
        "/a b|path prefix '/a b': control or non-ASCII byte",
        "/caf\u00e9|path prefix '/caf\u00e9': control or non-ASCII byte",
        "/a?b|path prefix '/a?b': '#' or '?' inside the path",
    })
    void rejectsInvalidPrefixesNamingThem(String prefix, String message) {
        assertThatThrownBy(() -> PathPrefixSet.of(List.of("/ok", prefix), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void rejectsEmptyPrefix() {
        assertThatThrownBy(() -> PathPrefixSet.of(List.of(""), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path prefix '': path does not start with '/'");
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
