package io.paduraksa.proxy;

import io.netty.channel.socket.SocketChannel;
import io.paduraksa.snapshot.UpstreamCluster;
import javax.net.ssl.SSLException;

/** Endpoints for tests of the protocol packages' pools (Endpoint's constructor is the forwarder's). */
public final class TestEndpoints {
    private TestEndpoints() {
    }

    /**
     * The endpoint of {@code cluster}'s first destination, an IP literal (nothing to re-resolve), for
     * connections of {@code channelClass}; a test opens its pool itself, so the endpoint opens none.
     */
    public static Endpoint first(UpstreamCluster cluster, Class<? extends SocketChannel> channelClass) throws SSLException {
        return new Endpoint(cluster, cluster.destinations().get(0), channelClass, null, (endpoint, loop) -> {
            throw new UnsupportedOperationException("the test opens its own pool");
        });
    }
}
