package io.paduraksa.testing;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotCompiler;

/** Compiles configuration text the way start-up does (loader, then compiler, pooled buffers). */
public final class CompiledFixtures {
    private CompiledFixtures() {
    }

    public static Snapshot compile(String fileName, String yaml) {
        try {
            return SnapshotCompiler.compile(ConfigLoader.parse(fileName, yaml), PooledByteBufAllocator.DEFAULT);
        } catch (ConfigException e) {
            throw new AssertionError("fixture does not compile:\n" + e.getMessage(), e);
        }
    }

    /** The 520-host benchmark configuration ({@link SyntheticConfig}). */
    public static Snapshot synthetic() {
        return compile("synthetic.yaml", SyntheticConfig.yaml());
    }
}
