package io.paduraksa.server.connection;

import io.paduraksa.net.IpParser;
/**
 * The connection's client address as PROXY protocol settled it, fired as a user event by
 * {@link ProxyProtocolHandler} before any request byte travels on, and consumed by
 * {@link ClientInfoHandler}. One per connection.
 */
public final class ClientAddressEvent {
    private final long high;
    private final long low;
    private final boolean fromProxyHeader;

    public ClientAddressEvent(long high, long low, boolean fromProxyHeader) {
        this.high = high;
        this.low = low;
        this.fromProxyHeader = fromProxyHeader;
    }

    public long high() {
        return high;
    }

    public long low() {
        return low;
    }

    @Override
    public String toString() {
        return "ClientAddressEvent(" + IpParser.format(high, low)
                + (fromProxyHeader ? ", from PROXY header)" : ", direct peer)");
    }
}
