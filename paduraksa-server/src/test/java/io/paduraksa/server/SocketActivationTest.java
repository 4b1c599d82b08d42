package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import io.paduraksa.config.ListenerSpec;
import io.paduraksa.ops.Reloader;
import io.paduraksa.server.testing.RawHttp;
import io.paduraksa.server.transport.InheritedSockets;
import io.paduraksa.server.transport.Transport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Socket activation: the systemd environment ({@code LISTEN_PID}/{@code LISTEN_FDS}/{@code LISTEN_FDNAMES}),
 * matching descriptors to listeners, and a server that serves on a listening socket it did not bind.
 * RestartUnderLoadIT does the same with real processes and a launcher that keeps the socket.
 */
class SocketActivationTest {
    private static final ListenerSpec PUBLIC = new ListenerSpec("public", "127.0.0.1:8080", null, null, false, null, false, null, null);
    private static final ListenerSpec ANY = new ListenerSpec(null, "0.0.0.0:8443", null, null, false, null, false, null, null);
    private static final ListenerSpec ADMIN = new ListenerSpec("admin", "127.0.0.1:9901", null, null, false, null, true, null, null);

    @Test
    void readsTheSystemdEnvironmentOnlyWhenItIsForThisProcess() {
        InheritedSockets s = InheritedSockets.fromEnvironment(
                Map.of("LISTEN_PID", "42", "LISTEN_FDS", "2", "LISTEN_FDNAMES", "public:paduraksa.socket"), 42);
        assertThat(s.sockets()).containsExactly(new InheritedSockets.Socket(3, "public"), new InheritedSockets.Socket(4, "paduraksa.socket"));
        assertThat(s.ignored()).isNull();

        InheritedSockets noNames = InheritedSockets.fromEnvironment(Map.of("LISTEN_PID", "42", "LISTEN_FDS", "2", "LISTEN_FDNAMES", "x"), 42);
        assertThat(noNames.sockets()).containsExactly(new InheritedSockets.Socket(3, null), new InheritedSockets.Socket(4, null));

        InheritedSockets parents = InheritedSockets.fromEnvironment(Map.of("LISTEN_PID", "41", "LISTEN_FDS", "1"), 42);
        assertThat(parents.isEmpty()).isTrue();
        assertThat(parents.ignored()).isEqualTo("LISTEN_FDS=1 is for pid 41, not this process (42)");

        assertThat(InheritedSockets.fromEnvironment(Map.of(), 42).isEmpty()).isTrue();
        assertThat(InheritedSockets.fromEnvironment(Map.of(), 42).ignored()).isNull();
        assertThatThrownBy(() -> InheritedSockets.fromEnvironment(Map.of("LISTEN_PID", "42", "LISTEN_FDS", "two"), 42))
                .hasMessage("LISTEN_FDS is not a number: 'two'");
    }

    @Test
    void matchesByDescriptorNameThenByBoundAddress() {
        List<ListenerSpec> listeners = List.of(PUBLIC, ANY, ADMIN);
        Object[] free = new Object[3];
        InetSocketAddress elsewhere = new InetSocketAddress("127.0.0.2", 1);
        assertThat(EdgeServer.match(listeners, "admin", elsewhere, free)).isEqualTo(2);
        assertThat(EdgeServer.match(listeners, "paduraksa.socket", new InetSocketAddress("127.0.0.1", 8080), free)).isEqualTo(0);
        assertThat(EdgeServer.match(listeners, null, new InetSocketAddress("127.0.0.1", 9901), free)).isEqualTo(2);
        // ListenStream=8443 gives a dual-stack [::]:8443 socket: it matches 0.0.0.0:8443.
        assertThat(EdgeServer.match(listeners, null, new InetSocketAddress("::", 8443), free)).isEqualTo(1);
        assertThat(EdgeServer.match(listeners, null, new InetSocketAddress("127.0.0.1", 8443), free)).isEqualTo(-1);
        assertThat(EdgeServer.match(listeners, null, elsewhere, free)).isEqualTo(-1);
        assertThat(EdgeServer.match(listeners, "public", elsewhere, new Object[] {"taken", null, null})).isEqualTo(-1);
    }

    @Test
    void inheritedSocketsKeepANativeTransportAndNioRefusesThem() {
        InheritedSockets one = InheritedSockets.of(List.of(new InheritedSockets.Socket(3, null)));
        assertThat(EdgeServer.transportFor(Transport.NIO, InheritedSockets.none())).isEqualTo(Transport.NIO);
        assertThat(EdgeServer.transportFor(Transport.IO_URING, one)).isEqualTo(Transport.IO_URING);
        assertThat(EdgeServer.transportFor(Transport.EPOLL, one)).isEqualTo(Transport.EPOLL);
        assertThatThrownBy(() -> EdgeServer.transportFor(Transport.NIO, one))
                .hasMessage("inherited listening sockets (LISTEN_FDS) need the epoll or io_uring transport; server.transport is nio");
    }

    @Test
    void takeoverNeedsTheHandOverSocketPath(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("p.yaml"), "listeners: []\n");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code = Main.run(new String[] {"run", "--config", config.toString(), "--takeover"},
                new java.io.PrintStream(new java.io.ByteArrayOutputStream()), new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("paduraksa: --takeover needs --takeover-socket PATH or server.takeover_socket in ");
    }

    /** On each native transport: io_uring wraps the descriptor through {@code InheritedIoUringServerSocketChannel}. */
    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll"})
    void servesOnAnInheritedListeningSocketInsteadOfBindingTheListener(String transport, @TempDir Path dir) throws Exception {
        Epoll.ensureAvailability();
        io.paduraksa.testing.Tools.requireNative(transport,
                Transport.all().stream().filter(t -> t.name().equals(transport)).findFirst().orElseThrow().unavailabilityCause());
        Socket listening = Socket.newSocketStream();
        listening.bind(new InetSocketAddress("127.0.0.1", 0));
        listening.listen(128);
        int port = ((InetSocketAddress) listening.localAddress()).getPort();
        Path config = dir.resolve("paduraksa.yaml");
        // The listener's own address is port 1: binding it would fail, so serving proves the socket was taken.
        Files.writeString(config, """
                server: {transport: %s}
                listeners:
                  - {name: public, address: "127.0.0.1:1", protocols: [http1]}
                hosts:
                  - names: [a.test]
                    routes:
                      - {path: /, respond: {status: 200, body: "inherited"}}
                """.formatted(transport), StandardCharsets.UTF_8);
        EdgeServer server = EdgeServer.start(config, Reloader.compile(config), null, null,
                InheritedSockets.of(List.of(new InheritedSockets.Socket(listening.intValue(), "public"))));
        try (RawHttp c = new RawHttp(port)) {
            assertThat(server.transport().name()).isEqualTo(transport);
            assertThat(server.boundAddresses().get("public")).isEqualTo(new InetSocketAddress("127.0.0.1", port));
            assertThat(c.exchange("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").body()).isEqualTo("inherited");
        } finally {
            server.stop(Duration.ofSeconds(2));
        }
    }
}
