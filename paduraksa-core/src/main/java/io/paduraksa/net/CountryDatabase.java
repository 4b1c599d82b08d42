package io.paduraksa.net;

import com.maxmind.db.CHMCache;
import com.maxmind.db.Reader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A MaxMind-format country database (GeoLite2-Country, DB-IP Country Lite .mmdb), read with
 * MaxMind's reader library. Opened when a snapshot is compiled (off the event loops: the file is
 * memory-mapped and its metadata decoded); {@link #country} runs once per connection, on the
 * connection's event loop, never per request.
 *
 * <p>A lookup allocates: the {@code InetAddress} the library takes and the library's own lookup
 * objects (about 100-200 B, see {@code CountryDatabaseAllocationTest}); the decoded records are
 * shared through the reader's cache (a country database has a few hundred distinct ones). Thread-safe.
 */
public final class CountryDatabase {
    private final Path path;
    private final Reader reader;

    private CountryDatabase(Path path, Reader reader) {
        this.path = path;
        this.reader = reader;
    }

    /** Opens and checks the file; compile time only. */
    public static CountryDatabase open(Path path) throws IOException {
        Reader reader = new Reader(path.toFile(), new CHMCache());
        return new CountryDatabase(path, reader);
    }

    public Path path() {
        return path;
    }

    /** The database type from its metadata, such as {@code GeoLite2-Country}. */
    public String type() {
        return reader.getMetadata().getDatabaseType();
    }

    /**
     * The {@link CountryCodes} index of the address ({@code country.iso_code}, else
     * {@code registered_country.iso_code}), or {@link CountryCodes#UNKNOWN}. Never throws for a
     * lookup miss or a damaged record: those are unknown.
     */
    public int country(long high, long low) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> record = reader.get(address(high, low), Map.class);
            if (record == null) {
                return CountryCodes.UNKNOWN;
            }
            int country = isoCode(record.get("country"));
            return country != CountryCodes.UNKNOWN ? country : isoCode(record.get("registered_country"));
        } catch (IOException | RuntimeException e) {
            return CountryCodes.UNKNOWN;
        }
    }

    private static int isoCode(Object section) {
        if (section instanceof Map<?, ?> map && map.get("iso_code") instanceof String code) {
            return CountryCodes.index(code);
        }
        return CountryCodes.UNKNOWN;
    }

    /** An IPv4-mapped address becomes an IPv4 one: the database's IPv4 tree is not under ::ffff:0:0/96. */
    static InetAddress address(long high, long low) throws UnknownHostException {
        byte[] bytes;
        if (high == 0 && (low >>> 32) == 0xFFFFL) {
            bytes = new byte[] {(byte) (low >>> 24), (byte) (low >>> 16), (byte) (low >>> 8), (byte) low};
        } else {
            bytes = new byte[16];
            for (int i = 0; i < 8; i++) {
                bytes[i] = (byte) (high >>> (56 - 8 * i));
                bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
            }
        }
        return InetAddress.getByAddress(bytes);
    }

    @Override
    public String toString() {
        return "CountryDatabase[" + path + ", " + type() + ']';
    }
}
