package io.paduraksa.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a JSON access log a test server writes: the writer thread formats lines a few milliseconds
 * after the request ended, so a lookup polls (up to 5 s) instead of reading once.
 */
public final class AccessLogLines {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long LIMIT_NANOS = 5_000_000_000L;

    private AccessLogLines() {
    }

    /** The first line of {@code log} whose {@code path} is {@code path} and {@code protocol} is {@code protocol}. */
    public static JsonNode lineFor(Path log, String path, String protocol) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        List<String> seen = List.of();
        while (System.nanoTime() - deadline < 0) {
            seen = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
            for (String l : seen) {
                if (l.isBlank()) {
                    continue;
                }
                JsonNode n = JSON.readTree(l);
                if (n.get("path").asText().equals(path) && n.get("protocol").asText().equals(protocol)) {
                    return n;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + protocol + " access-log line for " + path + " in " + seen);
    }
}
