package io.paduraksa.ops;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One destination's gauges as the forwarder reported them through {@link UpstreamMetrics.Source}
 * at a scrape; a cluster reported without destinations has a null {@code destination}.
 */
record DestinationGauges(String cluster, String destination, boolean healthy, int inFlight, int open, int idle) {

    /** Asks the forwarder's source (if one is installed) for every destination. Scrape time: allocates. */
    static List<DestinationGauges> collect(UpstreamMetrics u) {
        List<DestinationGauges> out = new ArrayList<>();
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
                out.add(new DestinationGauges(cluster, destination, healthy, inFlight, openConnections, idleConnections));
            }
        });
        for (DestinationGauges d : out) {
            empty.remove(d.cluster());
        }
        List<DestinationGauges> all = new ArrayList<>(out);
        for (String c : empty) {
            all.add(new DestinationGauges(c, null, false, 0, 0, 0));
        }
        return all;
    }
}
