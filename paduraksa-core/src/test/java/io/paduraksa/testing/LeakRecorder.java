package io.paduraksa.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A Netty leak detector that remembers every report, so a test can fail on it (Netty itself only
 * logs). The test JVMs name it with {@code -Dio.netty.customResourceLeakDetector}, so Netty builds
 * every detector (buffers, and any other tracked resource type) from this class, whatever class
 * is loaded first; {@link LeakCheckExtension} fails the test class after which a report shows up.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
    private static final ConcurrentLinkedQueue<String> REPORTS = new ConcurrentLinkedQueue<>();

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** The constructor Netty's factory prefers when both exist (its older signature). */
    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    /** Reports even when the log level for this class is off (Netty skips reporting then). */
    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        super.reportTracedLeak(resourceType, records);
        REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        super.reportUntracedLeak(resourceType);
        REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected (no records).");
    }

    /** True when the JVM was started with this class as Netty's leak detector. */
    public static boolean installed() {
        return LeakRecorder.class.getName().equals(System.getProperty("io.netty.customResourceLeakDetector"));
    }

    /** Takes the reports seen so far (each at most once). */
    public static List<String> drain() {
        List<String> out = new ArrayList<>();
        for (String r; (r = REPORTS.poll()) != null; ) {
            out.add(r);
        }
        return out;
    }
}
