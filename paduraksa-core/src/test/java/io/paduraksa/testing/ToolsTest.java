package io.paduraksa.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class ToolsTest {

    @Test
    void aPresentToolIsReturned() {
        assertThat(Tools.require("sh", "dash", "/nonexistent/sh", "/bin/sh")).hasToString("/bin/sh");
    }

    @Test
    void aMissingToolSkipsOutsideCiAndFailsInCi() {
        if (Tools.inCi()) {
            assertThatThrownBy(() -> Tools.require("nope", "nope", "/nonexistent/nope"))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("PADURAKSA_CI=1");
        } else {
            assertThatThrownBy(() -> Tools.require("nope", "nope", "/nonexistent/nope"))
                    .isInstanceOf(TestAbortedException.class).hasMessageContaining("apt-get install nope");
        }
    }

    @Test
    void aKernelRefusalSkipsButAMissingNativeLibraryIsAMissingTool() {
        assertThatThrownBy(() -> Tools.requireNative("io_uring", new RuntimeException("io_uring_setup: Operation not permitted")))
                .isInstanceOf(TestAbortedException.class).hasMessageContaining("refused by this kernel");
        Throwable linkage = new IllegalStateException("load", new UnsatisfiedLinkError("no netty_transport_native_io_uring"));
        if (Tools.inCi()) {
            assertThatThrownBy(() -> Tools.requireNative("io_uring", linkage)).isInstanceOf(AssertionError.class);
        } else {
            assertThatThrownBy(() -> Tools.requireNative("io_uring", linkage)).isInstanceOf(TestAbortedException.class)
                    .hasMessageContaining("native library unavailable");
        }
    }
}
