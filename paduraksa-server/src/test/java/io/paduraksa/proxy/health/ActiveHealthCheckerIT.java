package io.paduraksa.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.paduraksa.proxy.balance.DestinationState;
import io.paduraksa.server.http2.H2Client;
import io.paduraksa.server.testing.Await;
import io.paduraksa.snapshot.UpstreamCluster.Protocol;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The active checker against real loopback origins in each protocol a cluster can speak: HTTP/1.1,
 * h2c by prior knowledge and h2 over TLS with ALPN; and a destination given by host name whose
 * address changes between probes.
 */
class ActiveHealthCheckerIT {
    private static final Duration INTERVAL = Duration.ofMillis(30);
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static EventLoopGroup group;

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ParameterizedTest
    @CsvSource({"HTTP1, HTTP1", "H2C, H2C", "H2_TLS, H2"})
    void healthyStaysHealthyFlipsAfterTheUnhealthyThresholdAndRecovers(HealthOrigin.Mode mode, Protocol protocol) throws Exception {
        try (HealthOrigin origin = new HealthOrigin(mode);
             ResolvedAddress address = new ResolvedAddress("127.0.0.1", origin.port(), Duration.ZERO, null)) {
            DestinationState state = new DestinationState(0, 1, null);
            boolean tls = mode == HealthOrigin.Mode.H2_TLS;
            String authority = (tls ? "a.test:" : "app.test:") + origin.port();
            ActiveHealthChecker.Target target = new ActiveHealthChecker.Target(state, address, authority,
                    tls ? clientContext() : null, tls ? "a.test" : null, protocol);
            try (ActiveHealthChecker checker = checker(target, 3)) {
                checker.start();
                Await.until("four probes answered", () -> origin.requests.get() >= 4);
                assertThat(state.isActiveHealthy()).isTrue();
                assertThat(origin.seen).contains(authority + " /healthz");

                origin.status.set(503);
                Await.until("unhealthy after 503s", () -> !state.isActiveHealthy());
                // 503s answered, not requests since the switch: a probe that arrived just before it may get one too.
                assertThat(origin.failed.get()).isGreaterThanOrEqualTo(3);

                origin.status.set(200);
                Await.until("healthy again after 200s", state::isActiveHealthy);
            }
        }
    }

    @Test
    void h2OverTlsIsUnhealthyWhenAlpnDoesNotChooseH2() throws Exception {
        try (HealthOrigin origin = new HealthOrigin(HealthOrigin.Mode.H2_TLS, "127.0.0.1", 0, ApplicationProtocolNames.HTTP_1_1);
             ResolvedAddress address = new ResolvedAddress("127.0.0.1", origin.port(), Duration.ZERO, null)) {
            DestinationState state = new DestinationState(0, 1, null);
            ActiveHealthChecker.Target target = new ActiveHealthChecker.Target(state, address, "a.test", clientContext(), "a.test",
                    Protocol.H2);
            try (ActiveHealthChecker checker = checker(target, 2)) {
                checker.start();
                Await.until("unhealthy: ALPN chose http/1.1", () -> !state.isActiveHealthy());
            }
        }
    }

    @Test
    void h2cProbeOfAnHttp1OnlyOriginFails() throws Exception {
        try (HealthOrigin origin = new HealthOrigin(HealthOrigin.Mode.HTTP1);
             ResolvedAddress address = new ResolvedAddress("127.0.0.1", origin.port(), Duration.ZERO, null)) {
            DestinationState state = new DestinationState(0, 1, null);
            ActiveHealthChecker.Target target = new ActiveHealthChecker.Target(state, address, "app.test", null, null, Protocol.H2C);
            try (ActiveHealthChecker checker = checker(target, 2)) {
                checker.start();
                Await.until("unhealthy: the origin does not speak HTTP/2", () -> !state.isActiveHealthy());
            }
        }
    }

    /** Two origins on one port of two loopback addresses; the host name moves from the failing one to the good one. */
    @Test
    void probesFollowTheHostNameToItsNewAddress() throws Exception {
        InetAddress first = InetAddress.getByAddress("origin.test", new byte[] {127, 0, 0, 1});
        InetAddress second = InetAddress.getByAddress("origin.test", new byte[] {127, 0, 0, 2});
        try (HealthOrigin a = new HealthOrigin(HealthOrigin.Mode.H2C);
             HealthOrigin b = new HealthOrigin(HealthOrigin.Mode.H2C, "127.0.0.2", a.port())) {
            a.status.set(503);
            AtomicReference<InetAddress> answer = new AtomicReference<>(first);
            try (ResolvedAddress address = new ResolvedAddress("origin.test", a.port(), Duration.ZERO, null, host -> answer.get())) {
                DestinationState state = new DestinationState(0, 1, null);
                ActiveHealthChecker.Target target = new ActiveHealthChecker.Target(state, address, "origin.test:" + a.port(),
                        null, null, Protocol.H2C);
                try (ActiveHealthChecker checker = checker(target, 2)) {
                    checker.start();
                    Await.until("unhealthy at the first address", () -> !state.isActiveHealthy());
                    assertThat(b.requests.get()).isZero();

                    answer.set(second);
                    address.refreshNow();
                    Await.until("healthy at the second address", state::isActiveHealthy);
                    int atFirst = a.requests.get();
                    int atSecond = b.requests.get();
                    Await.until("more probes at the second address", () -> b.requests.get() >= atSecond + 2);
                    assertThat(a.requests.get()).isEqualTo(atFirst);
                    assertThat(b.seen).contains("origin.test:" + a.port() + " /healthz");
                }
            }
        }
    }

    @Test
    void anUnresolvedHostFailsItsProbesWithoutConnecting() throws Exception {
        try (ResolvedAddress address = new ResolvedAddress("nowhere.test", 8080, Duration.ZERO, null, host -> {
            throw new UnknownHostException(host);
        })) {
            DestinationState state = new DestinationState(0, 1, null);
            ActiveHealthChecker.Target target = new ActiveHealthChecker.Target(state, address, "nowhere.test:8080", null, null,
                    Protocol.HTTP1);
            try (ActiveHealthChecker checker = checker(target, 2)) {
                checker.start();
                Await.until("unhealthy while unresolved", () -> !state.isActiveHealthy());
            }
        }
    }

    /**
     * Reload: a new checker continues the replaced one's failures in a row. The old checker (which
     * would need 100) saw at least five before it was closed; the new one needs six, so its first
     * failed probe turns the destination unhealthy instead of its sixth.
     */
    @Test
    void aCheckerCarriedOverContinuesTheFailuresInARow() throws Exception {
        try (HealthOrigin origin = new HealthOrigin(HealthOrigin.Mode.HTTP1);
             ResolvedAddress address = new ResolvedAddress("127.0.0.1", origin.port(), Duration.ZERO, null)) {
            origin.status.set(503);
            DestinationState oldState = new DestinationState(0, 1, null);
            ActiveHealthChecker old = checker(new ActiveHealthChecker.Target(oldState, address, "app.test", null, null,
                    Protocol.HTTP1), 100);
            old.start();
            // A probe begins only after the previous one's result: six begun means five results.
            Await.until("six probes", () -> origin.requests.get() >= 6);
            old.close();

            DestinationState state = new DestinationState(0, 1, null);
            state.carryFrom(oldState, true);
            assertThat(state.isActiveHealthy()).isTrue();
            int before = origin.requests.get();
            try (ActiveHealthChecker carried = checker(new ActiveHealthChecker.Target(state, address, "app.test", null, null,
                    Protocol.HTTP1), 6)) {
                carried.carryFrom(0, old, 0);
                carried.start();
                Await.until("unhealthy", () -> !state.isActiveHealthy());
                assertThat(origin.requests.get() - before).as("probes of the new checker").isBetween(1, 2);
            }
        }
    }

    private static ActiveHealthChecker checker(ActiveHealthChecker.Target target, int threshold) {
        return new ActiveHealthChecker(group, NioSocketChannel.class, "api", new ActiveHealthChecker.Target[] {target},
                "/healthz", INTERVAL, TIMEOUT, threshold, threshold);
    }

    /** Like the forwarder's for an h2 cluster: verifies the test CA, offers h2 and http/1.1. */
    private static SslContext clientContext() throws Exception {
        return SslContextBuilder.forClient()
                .trustManager(H2Client.testFile("ca.pem").toFile())
                .endpointIdentificationAlgorithm("HTTPS")
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                .build();
    }
}
