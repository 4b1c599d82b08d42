package io.paduraksa.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.testing.AllocationAssert;
import io.paduraksa.testing.MmdbWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures (does not forbid) what a lookup costs: it runs once per connection, where the
 * connection's own objects cost far more; the number is stated in {@link CountryDatabase}.
 */
@Tag("allocation")
class CountryDatabaseAllocationTest {

    static final class Lookup {
        CountryDatabase database;
        int found;

        void run() {
            found += database.country(0, 0xFFFF_C633_6407L) != CountryCodes.UNKNOWN ? 1 : 0;
        }
    }

    @Test
    void aLookupAllocatesAboutAKilobyte(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("c.mmdb");
        new MmdbWriter().add("198.51.100.0/24", "DE").add("2001:db8::/32", "JP").write(file);
        Lookup l = new Lookup();
        l.database = CountryDatabase.open(file);
        AllocationAssert.Result r = AllocationAssert.measure("country lookup", l, Lookup::run, 50_000, 10_000);
        System.out.println("country lookup: " + r);
        assertThat(l.found).isPositive();
        assertThat(r.totalBytes() / 10_000).as("bytes per lookup").isLessThan(2048);
    }
}
