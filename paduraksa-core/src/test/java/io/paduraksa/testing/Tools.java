package io.paduraksa.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (chromium, redis-server, systemd-analyze, a native transport).
 * Outside CI a missing one skips the test, saying why; in CI ({@value #CI_ENV}=1, set by
 * {@code .ci/run}, which installs them) it fails the test, so a green CI run means every test ran.
 */
public final class Tools {
    /** The environment variable {@code .ci/run} sets to 1. */
    public static final String CI_ENV = "PADURAKSA_CI";

    private Tools() {
    }

    /** True when the tests run under {@code .ci/run}. */
    public static boolean inCi() {
        return "1".equals(System.getenv(CI_ENV));
    }

    /**
     * The first executable of {@code candidates}; without one, skips the test (fails it in CI).
     * {@code tool} names it for the message, with the Debian package that brings it.
     */
    public static Path require(String tool, String debianPackage, String... candidates) {
        for (String c : candidates) {
            Path p = Path.of(c);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        missing(tool + " is not installed (apt-get install " + debianPackage + "; looked for " + String.join(", ", candidates) + ")");
        return null;
    }

    /** Skips the test unless {@code present} (fails it in CI), with {@code why} as the reason. */
    public static void require(boolean present, String why) {
        if (!present) {
            missing(why);
        }
    }

    /**
     * A native transport or library that Netty could not load. A missing or broken native
     * library (a linkage error or a missing class anywhere in {@code cause}'s chain) is our
     * packaging's fault: skip outside CI, fail in CI. A kernel that refuses the feature (for
     * example io_uring switched off by the kernel or a seccomp profile) cannot be installed by
     * {@code .ci/run}: that stays a skip everywhere, printed with Netty's reason.
     */
    public static void requireNative(String what, Throwable cause) {
        if (cause == null) {
            return;
        }
        if (isLinkage(cause)) {
            missing(what + ": native library unavailable: " + cause);
        }
        String why = what + " is refused by this kernel, not a missing tool (skipped, also in CI): " + cause;
        System.out.println("SKIP " + why);
        Assumptions.abort(why);
    }

    /**
     * {@code command} behind {@code env --default-signal=HUP}: a process inherits an ignored SIGHUP
     * (a CI runner or a shell under {@code nohup} may start the build with SIGHUP ignored, and the
     * JVM then installs no handler), so a test that reloads a real server with SIGHUP starts it with
     * the default disposition, as systemd does.
     */
    public static List<String> withDefaultHangup(List<String> command) {
        List<String> all = new ArrayList<>(List.of("/usr/bin/env", "--default-signal=HUP"));
        all.addAll(command);
        return all;
    }

    private static boolean isLinkage(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LinkageError || t instanceof ClassNotFoundException) {
                return true;
            }
        }
        return false;
    }

    private static void missing(String why) {
        if (inCi()) {
            throw new AssertionError(CI_ENV + "=1: " + why + " (.ci/run installs it; a skip here would hide a test)");
        }
        System.out.println("SKIP " + why);
        Assumptions.abort(why);
    }

    /**
     * Kills {@code process} and every process it started (a browser's renderer, GPU and network
     * processes outlive a killed parent and keep writing to its profile directory, so a temporary
     * directory could not be deleted after it), then waits up to 10 s for all of them to be gone.
     */
    public static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                return; // still alive after 10 s: the caller's cleanup reports what is left
            }
        }
    }
}
