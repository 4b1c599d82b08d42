package io.paduraksa.spikes.h1alloc;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Summarises {@code jdk.ObjectAllocationSample} events of the event-loop thread ({@code spike-loop-*}):
 * sampled weight by allocated class and allocation site (the first frame outside java.*, jdk.*, sun.*).
 * Usage: {@code JfrTop <recording.jfr> [top]}. Weights are sampled estimates; read them as shares.
 */
public final class JfrTop {

    private JfrTop() {
    }

    public static void main(String[] args) throws Exception {
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Map<String, long[]> byKey = new HashMap<>();
        long total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (!e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
                continue;
            }
            if (e.getThread("eventThread") == null
                    || !e.getThread("eventThread").getJavaName().startsWith("spike-loop")) {
                continue;
            }
            long w = e.getLong("weight");
            String key = e.getClass("objectClass").getName() + "  <-  " + site(e.getStackTrace());
            long[] acc = byKey.computeIfAbsent(key, k -> new long[2]);
            acc[0] += w;
            acc[1]++;
            total += w;
        }
        List<Map.Entry<String, long[]>> rows = new ArrayList<>(byKey.entrySet());
        rows.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
        System.out.printf(Locale.ROOT, "event-loop sampled weight total: %d bytes%n", total);
        for (int i = 0; i < Math.min(top, rows.size()); i++) {
            long[] v = rows.get(i).getValue();
            System.out.printf(Locale.ROOT, "%5.1f%%  %6d samples  %s%n", 100.0 * v[0] / total, v[1], rows.get(i).getKey());
        }
    }

    private static String site(RecordedStackTrace st) {
        if (st == null) {
            return "?";
        }
        for (RecordedFrame f : st.getFrames()) {
            String type = f.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName() + ":" + f.getLineNumber();
            }
        }
        return "?";
    }
}
