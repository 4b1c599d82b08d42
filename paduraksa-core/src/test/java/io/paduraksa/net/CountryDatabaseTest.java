package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.MmdbWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CountryDatabaseTest {
    @TempDir
    static Path dir;
    static CountryDatabase database;

    @BeforeAll
    static void write() throws Exception {
        Path file = dir.resolve("countries.mmdb");
        new MmdbWriter()
                .add("198.51.100.0/24", "DE")
                .add("203.0.113.128/25", "FR")
                .add("2001:db8:1::/48", "JP")
                .addRegistered("192.0.2.0/24", "NL")
                .write(file);
        database = CountryDatabase.open(file);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            198.51.100.1      | DE
            198.51.100.255    | DE
            198.51.101.1      | --
            203.0.113.129     | FR
            203.0.113.127     | --
            2001:db8:1:ffff::1 | JP
            2001:db8:2::1     | --
            192.0.2.9         | NL
            ::ffff:198.51.100.7 | DE
            """)
    void looksUpTheCountryOfAnAddress(String ip, String code) {
        long[] out = new long[2];
        assertThat(IpParser.parse(ip, 0, ip.length(), out)).isTrue();
        assertThat(CountryCodes.code(database.country(out[0], out[1]))).isEqualTo(code);
    }
}
