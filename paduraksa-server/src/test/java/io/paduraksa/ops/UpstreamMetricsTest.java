package io.paduraksa.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.snapshot.SnapshotStore;
import io.paduraksa.testing.CompiledFixtures;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UpstreamMetricsTest {
    private final Snapshot snapshot = CompiledFixtures.compile("metrics.yaml", MetricsTest.YAML);
    private final SnapshotStore store = new SnapshotStore(snapshot);
    private final Metrics metrics = new Metrics(store, List.of("public"), new boolean[1]);
    private final UpstreamMetrics upstream = metrics.upstream();

    @AfterEach
    void release() {
        snapshot.release();
    }

    private String render() {
        try (Reloader reloader = new Reloader(null, store, Duration.ZERO)) {
            return MetricsText.render(metrics, reloader);
        }
    }

    @ParameterizedTest
    @CsvSource({"0, 0", "500, 0", "501, 1", "1000, 1", "9999999, 13", "10000000, 13", "10000001, 14"})
    void latencyFallsInTheFirstBucketItFits(long micros, int bucket) {
        assertThat(UpstreamMetrics.bucket(micros)).isEqualTo(bucket);
    }

    @Test
    void sameNamesGiveTheSameHandleSoCountersContinueAcrossReloads() {
        UpstreamMetrics.Destination d = upstream.destination("app", "http://192.0.2.10:8080");
        d.request();
        d.retire();
        assertThat(upstream.destinations()).isEmpty();
        assertThat(upstream.destination("app", "http://192.0.2.10:8080")).isSameAs(d);
        assertThat(upstream.sum(d)[UpstreamMetrics.REQUESTS]).isEqualTo(1);
    }

    @Test
    void histogramIsCumulativeWithSumAndCountInSeconds() {
        UpstreamMetrics.Destination d = upstream.destination("app", "http://192.0.2.10:8080");
        d.request();
        d.response(200, 300);          // <= 0.0005
        d.request();
        d.response(503, 2_000);        // <= 0.0025
        d.request();
        d.response(200, 20_000_000);   // +Inf
        d.request();
        d.error(UpstreamMetrics.CONNECT);

        String text = render();
        String labels = "cluster=\"app\",destination=\"http://192.0.2.10:8080\"";
        assertThat(text)
                .contains("# TYPE paduraksa_upstream_response_seconds histogram\n")
                .contains("paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"0.0005\"} 1\n")
                .contains("paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"0.001\"} 1\n")
                .contains("paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"0.0025\"} 2\n")
                .contains("paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"10\"} 2\n")
                .contains("paduraksa_upstream_response_seconds_bucket{" + labels + ",le=\"+Inf\"} 3\n")
                .contains("paduraksa_upstream_response_seconds_sum{" + labels + "} 20.0023\n")
                .contains("paduraksa_upstream_response_seconds_count{" + labels + "} 3\n")
                .contains("paduraksa_upstream_requests_total{" + labels + "} 4\n")
                .contains("paduraksa_upstream_responses_total{" + labels + ",class=\"2xx\"} 2\n")
                .contains("paduraksa_upstream_responses_total{" + labels + ",class=\"5xx\"} 1\n")
                .contains("paduraksa_upstream_errors_total{" + labels + ",kind=\"connect\"} 1\n")
                .contains("paduraksa_upstream_errors_total{" + labels + ",kind=\"timeout\"} 0\n");
    }

    @Test
    void countsFromSeveralThreadsAddUp() throws Exception {
        UpstreamMetrics.Destination d = upstream.destination("app", "http://192.0.2.10:8080");
        Thread[] threads = new Thread[3];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                for (int n = 0; n < 1000; n++) {
                    d.request();
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(upstream.sum(d)[UpstreamMetrics.REQUESTS]).isEqualTo(3000);
    }

    @Test
    void aStripeGrowsWhenLaterDestinationsArrive() {
        UpstreamMetrics.Destination last = null;
        for (int i = 0; i < 40; i++) {
            last = upstream.destination("app", "http://192.0.2." + i + ":80");
            last.request();
        }
        assertThat(upstream.sum(last)[UpstreamMetrics.REQUESTS]).isEqualTo(1);
        assertThat(upstream.sum(upstream.destination("app", "http://192.0.2.0:80"))[UpstreamMetrics.REQUESTS]).isEqualTo(1);
    }

    @Test
    void gaugesComeFromTheForwardersSourceWithEscapedLabels() {
        upstream.source(g -> {
            g.destination("app", "http://192.0.2.10:8080/\"x\"", true, 3, 5, 2);
            g.cluster("empty");
        });
        String text = render();
        String labels = "cluster=\"app\",destination=\"http://192.0.2.10:8080/\\\"x\\\"\"";
        assertThat(text)
                .contains("paduraksa_upstream_healthy{" + labels + "} 1\n")
                .contains("paduraksa_upstream_in_flight{" + labels + "} 3\n")
                .contains("paduraksa_upstream_connections{" + labels + ",state=\"open\"} 5\n")
                .contains("paduraksa_upstream_connections{" + labels + ",state=\"idle\"} 2\n")
                .doesNotContain("cluster=\"empty\"");
    }
}
