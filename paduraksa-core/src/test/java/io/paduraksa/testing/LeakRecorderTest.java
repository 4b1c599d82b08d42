package io.paduraksa.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

/** The positive control of the leak check: a buffer dropped without release is reported. */
class LeakRecorderTest {

    @Test
    void testJvmsRunTheRecorderAtParanoid() {
        assertThat(LeakRecorder.installed()).as("-Dio.netty.customResourceLeakDetector").isTrue();
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    @Test
    void anUnreleasedBufferIsReportedWithItsRecords() throws Exception {
        LeakCheckExtension.collect();
        leakOne();
        // Drained here, so this class's own check stays green.
        assertThat(String.join("\n", LeakCheckExtension.collect()))
                .contains("LEAK: ByteBuf.release() was not called")
                .contains("leakOne");
    }

    private static void leakOne() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(16);
        b.writeLong(42);
    }
}
