package io.paduraksa.server.connection;

/**
 * A set of addresses as 128 bits (IPv4 mapped into {@code ::ffff:0:0/96}, as {@link ClientAddresses}
 * writes them). Backed by the core's {@code IpRangeSet} when the server is wired; tests use lambdas.
 *
 * <p>Called once per connection by {@link AcceptFilterHandler}, {@link ProxyProtocolHandler} and
 * {@link ClientInfoHandler}; an implementation must not allocate or block.
 */
@FunctionalInterface
public interface AddressMatcher {
    /** Matches no address. */
    AddressMatcher NONE = (high, low) -> false;
    /** Matches every address. */
    AddressMatcher ALL = (high, low) -> true;

    boolean matches(long high, long low);
}
