package io.paduraksa.net;

import com.maxmind.db.CHMCache;
import com.maxmind.db.MaxMindDbConstructor;
import com.maxmind.db.MaxMindDbParameter;
import com.maxmind.db.Reader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * A MaxMind-format country database (GeoLite2-Country, DB-IP Country Lite .mmdb), read with
 * MaxMind's reader library. Opened when a snapshot is compiled (off the event loops: the file is
 * memory-mapped and its metadata decoded); {@link #country} runs once per connection, on the
 * connection's event loop, never per request.
 *
 * <p>A lookup allocates: the {@code InetAddress} the library takes, the library's per-lookup decoder
 * and record objects and our two-field record: about 1.1 KB per lookup with the tests' database
 * ({@code CountryDatabaseAllocationTest}), paid once per connection from an untrusted peer, next to
 * the several KB a connection's channel and pipeline cost. Nested maps stored behind pointers (as
 * MaxMind's own files store countries) come from the reader's cache. Thread-safe.
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
            CountryRecord record = reader.get(address(high, low), CountryRecord.class);
            return record == null ? CountryCodes.UNKNOWN : record.index;
        } catch (IOException | RuntimeException e) {
            return CountryCodes.UNKNOWN;
        }
    }

    /**
     * What a lookup decodes: only the two ISO codes. The library decodes a record's top level per
     * lookup; decoding it into a map would also build every name in every language (several KB for
     * GeoLite2), while the nested country maps, stored once and pointed to, come from its cache.
     * Public for the library's reflection; not an API.
     */
    public static final class CountryRecord {
        final int index;

        @MaxMindDbConstructor
        public CountryRecord(@MaxMindDbParameter(name = "country") IsoCode country,
                @MaxMindDbParameter(name = "registered_country") IsoCode registered) {
            int c = country == null ? CountryCodes.UNKNOWN : country.index;
            this.index = c != CountryCodes.UNKNOWN || registered == null ? c : registered.index;
        }
    }

    /** {@code {iso_code: "DE"}} as its {@link CountryCodes} index. Public for the library's reflection. */
    public static final class IsoCode {
        final int index;

        @MaxMindDbConstructor
        public IsoCode(@MaxMindDbParameter(name = "iso_code") String isoCode) {
            this.index = CountryCodes.index(isoCode);
        }
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
