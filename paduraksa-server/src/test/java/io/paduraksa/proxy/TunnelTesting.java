package io.paduraksa.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/** What the WebSocket and tunnel tests share: reading a response head off a raw socket, waiting for a counter. */
final class TunnelTesting {
    private TunnelTesting() {
    }

    /** The bytes up to and including the blank line (or what came before the stream ended), as ISO-8859-1. */
    static String readHead(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            sb.append((char) b);
        }
        return sb.toString();
    }

    /** Waits up to 5 s for {@code value} to reach {@code atLeast}, then asserts it did. */
    static void waitFor(IntSupplier value, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (value.getAsInt() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(value.getAsInt()).isGreaterThanOrEqualTo(atLeast);
    }
}
