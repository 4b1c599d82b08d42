package io.paduraksa.policy;

import io.netty.util.AsciiString;
import io.paduraksa.net.CountryCodes;
import io.paduraksa.net.CountryDatabase;
import java.util.List;
import java.util.Locale;

/**
 * Country rules ({@code type: country}). The request's country is the trusted proxy's country
 * header ({@code CF-IPCountry} by default) when the peer is a trusted proxy, and otherwise the
 * country of the peer address, looked up once per connection in the configuration's database
 * (kept in the connection's {@code ClientInfo}). A country header from any other peer is ignored:
 * a client cannot pick its own country. A {@code deny}ed country is denied; with an {@code allow}
 * list, a country outside it is denied; a request without a country gets the {@code unknown}
 * verdict. Per request {@link #evaluate}: at most one header lookup and one array read; 0 B.
 */
public final class CountryPolicy extends NamedPolicy {
    /** Per country index: true when denied. Slot {@link CountryCodes#UNKNOWN} holds the unknown verdict. */
    private final boolean[] denied = new boolean[CountryCodes.TABLE_SIZE];
    private final AsciiString header;
    private final CountryDatabase database;
    private final PolicyDecision denial;

    /**
     * @param allow        codes allowed (empty: all not denied)
     * @param deny         codes denied
     * @param denyUnknown  the verdict without a country
     * @param header       the country header a trusted proxy sends
     * @param database     the database looked up per connection (null: none; then only the header gives countries)
     */
    public CountryPolicy(String name, List<String> allow, List<String> deny, boolean denyUnknown, String header,
            CountryDatabase database, PolicyDecision denial) {
        super(name);
        if (allow.isEmpty() && deny.isEmpty()) {
            throw new IllegalArgumentException("a country policy needs allow or deny");
        }
        this.header = AsciiString.cached(header.toLowerCase(Locale.ROOT));
        this.database = database;
        this.denial = denial;
        if (!allow.isEmpty()) {
            java.util.Arrays.fill(denied, true);
            for (String code : allow) {
                denied[index(code)] = false;
            }
        }
        for (String code : deny) {
            denied[index(code)] = true;
        }
        denied[CountryCodes.UNKNOWN] = denyUnknown;
    }

    private static int index(String code) {
        int i = CountryCodes.index(code);
        if (i == CountryCodes.UNKNOWN) {
            throw new IllegalArgumentException("'" + code + "' is not a country code (expected an ISO 3166 alpha-2 code like DE)");
        }
        return i;
    }

    /** The database this policy named, or null. */
    public CountryDatabase database() {
        return database;
    }

    /** Runs per request on the event loop; 0 B. */
    @Override
    public PolicyDecision evaluate(PolicyInput request) {
        return denied[country(request)] ? denial : PolicyDecision.CONTINUE;
    }

    /** The request's country index: the trusted proxy's header, else the connection's lookup. */
    public int country(PolicyInput request) {
        return request.isPeerTrustedProxy() ? CountryCodes.index(request.header(header)) : request.peerCountry();
    }

    @Override
    public String toString() {
        return "CountryPolicy[" + name + ", header " + header + (database != null ? ", " + database.path() : "") + " -> " + denial + ']';
    }
}
