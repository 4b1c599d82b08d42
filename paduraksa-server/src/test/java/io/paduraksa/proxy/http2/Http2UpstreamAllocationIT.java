package io.paduraksa.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.paduraksa.proxy.H2Origin;
import io.paduraksa.server.GateAllocationIT;
import io.paduraksa.server.cycle.GateMeter;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * h2c in, h2c out: what the server's event loops allocate per request forwarded from an HTTP/2
 * client to an HTTP/2 upstream (both directions on our own codec), measured as
 * {@link GateAllocationIT} does (browser-like requests on rotating paths, ONE client connection with
 * 50 streams in flight, warm-up, settling rounds, then {@link GateAllocationIT#MEASURED} counted
 * requests, each loop thread's allocated-bytes counter). The origin ({@link H2Origin}, Netty's codec)
 * runs on its own named loop, outside the count. Asserted: at most {@link #MAX_TOTAL} B over all
 * counted requests together (Netty's pools refilling now and then, as in GateAllocationIT), every
 * answer a 200 and every request at the origin.
 *
 * <p>On Netty's {@code Http2ConnectionHandler} as the upstream client this was 2,367 and 2,316 B per
 * request (two counted runs, 2026-12-02: 23.7 MB over 10,000 requests; red against this bound).
 */
@Tag("allocation")
class Http2UpstreamAllocationIT {
    static final long MAX_TOTAL = 4_096;
    static final int JIT_WARM_UP = 20_000;

    static H2Origin origin;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        origin = new H2Origin(100);
        origin.keepRequests = false;
        StringBuilder hosts = new StringBuilder();
        for (String h : GateAllocationIT.HOSTS) {
            hosts.append("  - names: [").append(h).append(", \"*.").append(h).append("\"]\n")
                    .append("    routes: [{path: /, forward: app}]\n");
        }
        server = TestServer.startMetered(TestServer.EPOLL + """
                listeners:
                  - {name: h2, address: "127.0.0.1:0", protocols: [h2c]}
                clusters:
                  app: {protocol: h2c, destinations: [{url: "http://127.0.0.1:%d"}]}
                hosts:
                %s
                """.formatted(origin.port(), hosts));
    }

    @AfterAll
    static void stop() {
        server.close();
        origin.close();
    }

    @Test
    void h2cToH2cForwardingAllocatesAtMost4KiBPer10000RequestsOnTheServersLoops() throws Exception {
        GateMeter meter = server.meter();
        try (H2Client c = H2Client.connect(server.port("h2"))) {
            Http2Headers[] requests = GateAllocationIT.h2Requests("/fixed");
            GateAllocationIT.h2Run(c, requests, 200, JIT_WARM_UP);
            String settling = GateAllocationIT.warmUpAndSettle(meter, n -> GateAllocationIT.h2Run(c, requests, 200, n));
            int originAtStart = origin.received.get();
            long[] allocated = GateAllocationIT.measure(meter, n -> GateAllocationIT.h2Run(c, requests, 200, n));
            GateAllocationIT.report("h2c -> h2c forwarded", meter, allocated, settling);
            int counted = GateAllocationIT.MEASURED;
            for (int run = 2; allocated[1] > MAX_TOTAL && run <= GateAllocationIT.COUNTED_RUNS; run++) {
                // a pool refill can land in a counted run; a per-request cost repeats in every one
                allocated = GateAllocationIT.measure(meter, n -> GateAllocationIT.h2Run(c, requests, 200, n));
                GateAllocationIT.report("h2c -> h2c forwarded (counted run " + run + ")", meter, allocated, settling);
                counted += GateAllocationIT.MEASURED;
            }
            assertThat(meter.requests()).isEqualTo(GateAllocationIT.MEASURED);
            assertThat(origin.received.get() - originAtStart).as("requests the origin received").isEqualTo(counted);
            assertThat(allocated[1]).as("bytes over %,d h2c -> h2c requests on the server's event loops", GateAllocationIT.MEASURED)
                    .isLessThanOrEqualTo(MAX_TOTAL);
        }
    }
}
