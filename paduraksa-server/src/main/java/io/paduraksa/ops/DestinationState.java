package io.paduraksa.ops;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One destination's gauges as the forwarder reported them through {@link UpstreamMetrics.Source}
 * at a scrape; a cluster reported without destinations has a null {@code destination}.
 */
record DestinationState(String cluster, String destination, boolean healthy, int inFlight, int open, int idle) {

    /** Asks the forwarder's source (if one is installed) for every destination. Scrape time: allocates. */
    static List<DestinationState> collect(UpstreamMetrics u) {
        List<DestinationState> out = new ArrayList<>();
        UpstreamMetrics.Source source = u.source();
        if (source == null) {
            return out;
        }
        Set<String> empty = new LinkedHashSet<>();
        source.report(new UpstreamMetrics.Gauges() {
            @Override
            public void cluster(String cluster) {
                empty.add(cluster);
            }

            @Override
            public void destination(String cluster, String destination, boolean healthy, int inFlight, int openConnections,
                                    int idleConnections) {
                out.add(new DestinationState(cluster, destination, healthy, inFlight, openConnections, idleConnections));
            }
        });
        for (DestinationState d : out) {
            empty.remove(d.cluster());
        }
        List<DestinationState> all = new ArrayList<>(out);
        for (String c : empty) {
            all.add(new DestinationState(c, null, false, 0, 0, 0));
        }
        return all;
    }
}
