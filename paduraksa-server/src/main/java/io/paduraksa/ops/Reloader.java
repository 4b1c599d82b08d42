package io.paduraksa.ops;

import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotCompiler;
import io.paduraksa.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the configuration file, compiles it off the event loops and swaps the snapshot with one
 * volatile write. A broken file is rejected with every error logged and the running snapshot keeps
 * serving. The replaced snapshot's buffers are released after a grace period, when the requests
 * that started on it are done with its precomputed answers.
 */
public final class Reloader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Reloader.class);

    private final Path file;
    private final SnapshotStore store;
    private final Duration grace;
    /** Replaced snapshots whose grace period has not ended. */
    private final java.util.Set<Snapshot> waiting = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "paduraksa-snapshot-release");
        t.setDaemon(true);
        return t;
    });
    private final List<ReloadListener> listeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> signalHooks = new CopyOnWriteArrayList<>();
    private volatile String lastError;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile SystemdNotifier notifier = SystemdNotifier.none();

    public Reloader(Path file, SnapshotStore store, Duration grace) {
        this.file = file;
        this.store = store;
        this.grace = grace;
    }

    /** Told after each successful swap (e.g. to rebuild TLS contexts, resize limits). */
    @FunctionalInterface
    public interface ReloadListener {
        void reloaded(Snapshot previous, Snapshot current);
    }

    public void addListener(ReloadListener listener) {
        listeners.add(listener);
    }

    /** Run at every {@link #reload}, whether or not the file is accepted (the access log reopens its file: logrotate). */
    public void addSignalHook(Runnable hook) {
        signalHooks.add(hook);
    }

    /** Where {@link #reload} reports RELOADING=1 before and READY=1 after (also after a rejected file). */
    public void notifier(SystemdNotifier notifier) {
        this.notifier = notifier;
    }

    /** Loads and compiles a file, as start-up does. */
    public static Snapshot compile(Path file) throws IOException, ConfigException {
        return SnapshotCompiler.compile(ConfigLoader.load(file), PooledByteBufAllocator.DEFAULT);
    }

    /**
     * Reloads now (the SIGHUP path calls this on its own thread). Returns true when the new
     * snapshot is serving.
     */
    public synchronized boolean reload() {
        for (Runnable hook : signalHooks) {
            hook.run();
        }
        SystemdNotifier n = notifier;
        n.reloading();
        boolean swapped = swap();
        // READY=1 also after a rejected file: the service is still serving, on the previous generation.
        n.ready(swapped ? "config generation " + store.current().generation() + " loaded"
                : "reload failed, still serving generation " + store.current().generation() + ": " + lastError);
        return swapped;
    }

    private boolean swap() {
        Snapshot next;
        try {
            next = compile(file);
        } catch (ConfigException e) {
            lastError = e.getMessage();
            failures.incrementAndGet();
            StringBuilder sb = new StringBuilder("reload rejected, still serving generation ")
                    .append(store.current().generation()).append(':');
            for (ConfigError error : e.errors()) {
                sb.append("\n  ").append(error);
            }
            LOG.error(sb.toString());
            return false;
        } catch (IOException | RuntimeException e) {
            lastError = file + ": " + e;
            failures.incrementAndGet();
            LOG.error("reload rejected, still serving generation {}: cannot read {}: {}", store.current().generation(), file, e.toString());
            return false;
        }
        Snapshot previous = store.publish(next);
        lastError = null;
        reloads.incrementAndGet();
        LOG.info("reloaded {}: generation {} -> {} ({} hosts, sha256 {})", file, previous.generation(), next.generation(),
                next.hostList().size(), next.sourceSha256().substring(0, 12));
        for (ReloadListener listener : listeners) {
            try {
                listener.reloaded(previous, next);
            } catch (RuntimeException e) {
                LOG.error("after reload: {}", e.toString(), e);
            }
        }
        waiting.add(previous);
        releaser.schedule(() -> releaseWaiting(previous), grace.toMillis(), TimeUnit.MILLISECONDS);
        return true;
    }

    /** The error text of the last failed reload, or null when the last one succeeded. */
    public String lastError() {
        return lastError;
    }

    public long reloads() {
        return reloads.get();
    }

    public long failures() {
        return failures.get();
    }

    public Path file() {
        return file;
    }

    /**
     * Stops the release timer and frees every replaced snapshot still waiting for its grace period.
     * (Running the tasks {@code shutdownNow} returns does not do it: a scheduled task run after
     * shutdown cancels itself instead, and those snapshots' buffers leaked; the leak check of
     * ReloadIT, AdminIT and the other reloading ITs reported them.)
     */
    @Override
    public void close() {
        releaser.shutdownNow();
        for (Snapshot s : waiting) {
            releaseWaiting(s);
        }
    }

    /** Releases {@code s} once, whether its grace period ended or the server stopped first. */
    private void releaseWaiting(Snapshot s) {
        if (waiting.remove(s)) {
            s.release();
        }
    }
}
