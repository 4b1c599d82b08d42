package io.paduraksa.server.testing;

import io.paduraksa.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real server process ({@code java ... io.paduraksa.server.Main run --config FILE}) on this test's
 * class path, with stdout and stderr in one log file. Failure messages carry the log's text, since
 * the file usually lives in a temporary folder that is gone by the time anyone reads the report.
 */
public final class ServerProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private ServerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code run --config config}, logging to {@code log}. */
    public static ServerProcess start(Path config, Path log) throws IOException {
        return start(config, log, List.of());
    }

    /** Starts {@code run --config config} behind {@code prefix} (e.g. {@code nohup}), logging to {@code log}. */
    public static ServerProcess start(Path config, Path log, List<String> prefix) throws IOException {
        // Without a prefix, SIGHUP at its default (the build may run with it ignored); with nohup, as nohup leaves it.
        List<String> command = new ArrayList<>(prefix.isEmpty() ? Tools.withDefaultHangup(List.of()) : prefix);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"),
                "io.paduraksa.server.Main", "run", "--config", config.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ServerProcess(p, log);
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    /** The log's text so far ("" before the file exists). */
    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** {@code what}, followed by the log's text: for assertion messages. */
    public String withLog(String what) {
        return what + "; server log:\n" + log();
    }

    /**
     * Waits up to 20 s for the "serving ... on {...listener=/127.0.0.1:PORT..." line and returns the
     * port; fails with the log when the process exits first or the line does not come.
     */
    public int awaitPort(String listener) throws InterruptedException {
        Pattern serving = Pattern.compile("serving .* on \\{.*\\b" + Pattern.quote(listener) + "=/127\\.0\\.0\\.1:(\\d+)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Matcher m = serving.matcher(log());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive()) {
                throw new AssertionError(withLog("server process exited with " + process.exitValue() + " before serving"));
            }
            Thread.sleep(20);
        }
        throw new AssertionError(withLog("server process did not log its port in 20 s"));
    }

    /** Waits for the process to end and returns its exit code; fails with the log if it does not end in {@code limit}. */
    public int awaitExit(Duration limit) throws InterruptedException {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(withLog("server process still running after " + limit.toMillis() + " ms"));
        }
        return process.exitValue();
    }

    /** Sends SIGHUP with {@code kill -HUP}; returns kill's exit code (non-zero once the process is gone). */
    public int hangup() throws IOException, InterruptedException {
        return new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
