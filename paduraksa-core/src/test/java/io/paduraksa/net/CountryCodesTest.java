package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CountryCodesTest {
    @Test
    void everyCodeHasItsOwnIndexAndCaseIsFolded() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (char a = 'A'; a <= 'Z'; a++) {
            for (char b = 'A'; b <= 'Z'; b++) {
                String code = "" + a + b;
                int i = CountryCodes.index(code);
                if (!code.equals("XX")) {
                    assertThat(i).isPositive().isLessThan(CountryCodes.TABLE_SIZE);
                    assertThat(seen.add(i)).isTrue();
                    assertThat(CountryCodes.code(i)).isEqualTo(code);
                    assertThat(CountryCodes.index(code.toLowerCase(java.util.Locale.ROOT))).isEqualTo(i);
                }
            }
        }
        assertThat(CountryCodes.code(CountryCodes.index("T1"))).isEqualTo("T1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "D", "DEU", "XX", "xx", "1T", "D-", "é1", " D"})
    void anythingElseIsUnknown(String value) {
        assertThat(CountryCodes.index(value)).isEqualTo(CountryCodes.UNKNOWN);
    }
}
