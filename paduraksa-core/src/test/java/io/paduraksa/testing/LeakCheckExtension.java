package io.paduraksa.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leak by its end. Registered for every test class of
 * the modules through {@code META-INF/services} (core's test-jar) and JUnit's extension
 * autodetection, which {@code junit-platform.properties} (also there) switches on; it acts only in JVMs that run {@link LeakRecorder}
 * with detection on (the allocation-test runs turn detection off).
 *
 * <p>Netty finds a leak when the garbage collector has taken an unreleased buffer and a later
 * buffer allocation polls the detector's queue. So after each class: collect, then allocate and
 * release a few buffers (pooled and unpooled) until the reference queue has been seen; a report
 * names the access records of the leaked object. A leak of a server thread that outlives its
 * class can show after the next class instead: the message says which class's check saw it.
 */
public final class LeakCheckExtension implements AfterAllCallback {
    private static final int FLUSH_ROUNDS = 4;

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        if (!LeakRecorder.installed() || ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.DISABLED) {
            return;
        }
        List<String> reports = collect();
        if (!reports.isEmpty()) {
            throw new AssertionError(reports.size() + " Netty leak report(s) seen after " + context.getDisplayName()
                    + " (the leaked object was made by this class or, if it outlived its class, the one before):\n"
                    + String.join("\n\n", reports));
        }
    }

    /** Runs the garbage collector and lets every detector poll its queue; returns the reports. */
    public static List<String> collect() throws InterruptedException {
        for (int round = 0; round < FLUSH_ROUNDS; round++) {
            System.gc();
            // The reference handler thread enqueues the cleared references after the collection.
            Thread.sleep(20);
            for (int i = 0; i < 4; i++) {
                ByteBuf a = UnpooledByteBufAllocator.DEFAULT.buffer(8);
                a.release();
                ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(8);
                b.release();
            }
        }
        return LeakRecorder.drain();
    }
}
