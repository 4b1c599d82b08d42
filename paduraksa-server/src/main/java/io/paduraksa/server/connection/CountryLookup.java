package io.paduraksa.server.connection;

import io.paduraksa.net.CountryCodes;

/**
 * The country of an address (IPv4 mapped, as {@link ClientAddresses} writes it) as a
 * {@link CountryCodes} index, 0 when unknown. Backed by the current snapshot's country database
 * when the server is wired. Called once per connection by {@link ClientInfoHandler}, on the
 * event loop, only for peers that are not trusted proxies; it may allocate (see
 * {@code CountryDatabase}) but must not block.
 */
@FunctionalInterface
public interface CountryLookup {
    /** Knows no country. */
    CountryLookup NONE = (high, low) -> CountryCodes.UNKNOWN;

    int country(long high, long low);
}
