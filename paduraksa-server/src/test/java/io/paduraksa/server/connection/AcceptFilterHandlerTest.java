package io.paduraksa.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AcceptFilterHandlerTest {
    private static final long LOOPBACK_LOW = 0x0000_FFFF_7F00_0001L; // ::ffff:127.0.0.1
    private static EventLoopGroup group;

    @BeforeAll
    static void startLoop() {
        group = LoopbackServer.TRANSPORT.newEventLoopGroup(1);
    }

    @AfterAll
    static void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void refusedPeerIsClosedBeforeAnyByteIsRead() throws Exception {
        AcceptFilterHandler filter = new AcceptFilterHandler((high, low) -> !(high == 0 && low == LOOPBACK_LOW));
        try (LoopbackServer server = LoopbackServer.start(group, p -> p.addLast(filter));
             Socket socket = server.connect()) {
            OutputStream out = socket.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();

            assertThat(LoopbackServer.closedByServer(socket)).isTrue();
            assertThat(server.awaitClosed()).isNotNull();
            assertThat(server.reads).hasValue(0);
            assertThat(filter.refusedCount()).isEqualTo(1);
        }
    }

    @Test
    void allowedPeerIsServedAndTheFilterLeavesThePipeline() throws Exception {
        AcceptFilterHandler filter = new AcceptFilterHandler((high, low) -> high == 0 && low == LOOPBACK_LOW);
        try (LoopbackServer server = LoopbackServer.start(group, p -> p.addLast(filter));
             Socket socket = server.connect()) {
            socket.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));

            assertThat(LoopbackServer.readEcho(socket, 5)).isEqualTo("hello");
            assertThat(server.reads.get()).isPositive();
            assertThat(server.pipelines.take()).containsExactly("Recorder");
            assertThat(filter.refusedCount()).isZero();
        }
    }
}
