package io.paduraksa.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

class ResolvedAddressTest {
    private ScheduledExecutorService scheduler;
    private ListAppender<ILoggingEvent> logs;
    private Logger logger;

    @BeforeEach
    void setUp() {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "resolver-test");
            t.setDaemon(true);
            return t;
        });
        logger = (Logger) LoggerFactory.getLogger(ResolvedAddress.class);
        logs = new ListAppender<>();
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void tearDown() {
        logger.detachAppender(logs);
        scheduler.shutdownNow();
    }

    @Test
    void localhostResolvesToLoopback() {
        try (ResolvedAddress a = new ResolvedAddress("localhost", 8080, Duration.ZERO, scheduler)) {
            assertThat(a.isResolved()).isTrue();
            assertThat(a.current().isUnresolved()).isFalse();
            assertThat(a.current().getAddress().isLoopbackAddress()).isTrue();
            assertThat(a.current().getPort()).isEqualTo(8080);
        }
    }

    @ParameterizedTest
    @CsvSource({"192.0.2.7, 192.0.2.7", "2001:db8::1, 2001:db8:0:0:0:0:0:1", "'[2001:db8::1]', 2001:db8:0:0:0:0:0:1"})
    void ipLiteralsNeverGoToTheResolver(String host, String expected) {
        AtomicInteger calls = new AtomicInteger();
        try (ResolvedAddress a = new ResolvedAddress(host, 443, Duration.ofMillis(10), scheduler, h -> {
            calls.incrementAndGet();
            throw new UnknownHostException(h);
        })) {
            assertThat(a.current().getAddress().getHostAddress()).isEqualTo(expected);
            assertThat(a.isResolved()).isTrue();
            a.refreshNow();
            assertThat(calls).hasValue(1); // only the explicit call; nothing was scheduled
        }
    }

    @Test
    void failedReResolutionKeepsTheLastGoodAddressAndWarnsOncePerStreak() throws Exception {
        InetAddress first = InetAddress.getByName("192.0.2.1");
        InetAddress second = InetAddress.getByName("192.0.2.2");
        AtomicReference<InetAddress> answer = new AtomicReference<>(first);
        ResolvedAddress.Resolver resolver = h -> {
            InetAddress a = answer.get();
            if (a == null) {
                throw new UnknownHostException(h + ": test failure");
            }
            return a;
        };
        try (ResolvedAddress a = new ResolvedAddress("app.test", 80, Duration.ZERO, scheduler, resolver)) {
            assertThat(a.current().getAddress()).isEqualTo(first);
            answer.set(null);
            a.refreshNow();
            a.refreshNow();
            a.refreshNow();
            assertThat(a.current().getAddress()).isEqualTo(first);
            assertThat(warnings()).isEqualTo(1);
            answer.set(second);
            a.refreshNow();
            assertThat(a.current().getAddress()).isEqualTo(second);
            answer.set(null);
            a.refreshNow();
            assertThat(warnings()).isEqualTo(2);
            assertThat(a.current().getAddress()).isEqualTo(second);
        }
    }

    @Test
    void firstFailureLeavesAnUnresolvedAddressUntilItResolves() throws Exception {
        AtomicReference<InetAddress> answer = new AtomicReference<>();
        try (ResolvedAddress a = new ResolvedAddress("app.test", 80, Duration.ZERO, scheduler, h -> {
            InetAddress x = answer.get();
            if (x == null) {
                throw new UnknownHostException(h);
            }
            return x;
        })) {
            assertThat(a.isResolved()).isFalse();
            assertThat(a.current().isUnresolved()).isTrue();
            assertThat(a.current().getHostString()).isEqualTo("app.test");
            answer.set(InetAddress.getByName("198.51.100.5"));
            a.refreshNow();
            assertThat(a.isResolved()).isTrue();
            assertThat(a.current().getAddress().getHostAddress()).isEqualTo("198.51.100.5");
        }
    }

    @Test
    void reResolvesPeriodicallyOnTheScheduler() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ResolvedAddress.Resolver resolver = h -> InetAddress.getByName("203.0.113." + (1 + calls.getAndIncrement() % 200));
        try (ResolvedAddress a = new ResolvedAddress("app.test", 80, Duration.ofMillis(20), scheduler, resolver)) {
            assertThat(a.current().getAddress().getHostAddress()).isEqualTo("203.0.113.1");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (a.current().getAddress().getHostAddress().equals("203.0.113.1")) {
                if (System.nanoTime() > deadline) {
                    fail("no re-resolution within 5 s");
                }
                Thread.sleep(5);
            }
            a.close();
            int after = calls.get();
            assertThat(after).isGreaterThanOrEqualTo(2);
        }
    }

    private long warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
    }
}
