package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.paduraksa.testing.Tools;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The .deb's postinst, prerm and postrm (paduraksa-dist/src/deb), run with {@code sh} in the order dpkg
 * runs them, under DPKG_ROOT (a temporary root) and with recording stand-ins for systemctl,
 * deb-systemd-helper, deb-systemd-invoke, adduser, getent, dpkg-statoverride and chown first on PATH.
 * {@code ROOT/run/systemd/system} present means "systemd runs", as on a booted system.
 */
class MaintainerScriptsTest {
    static final Path DEB = Path.of("src", "deb");
    static final String[] FAKES = {"systemctl", "deb-systemd-helper", "deb-systemd-invoke", "adduser", "getent",
        "dpkg-statoverride", "chown"};

    @TempDir
    Path dir;
    Path root;
    Path calls;
    Path log;
    boolean userExists;
    boolean socketActive;

    @BeforeEach
    void fakeSystem() throws IOException {
        root = Files.createDirectories(dir.resolve("root"));
        Files.createDirectories(root.resolve("etc/paduraksa"));
        Files.createDirectories(root.resolve("run/systemd/system"));
        log = root.resolve("var/log/paduraksa");
        calls = dir.resolve("calls");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String fake : FAKES) {
            // getent: the user exists only when told; systemctl is-active: the socket runs only when told.
            String exit = switch (fake) {
                case "getent" -> "[ \"$FAKE_USER_EXISTS\" = 1 ] || exit 2\n";
                case "systemctl" -> "[ \"$1\" != is-active ] || [ \"$FAKE_SOCKET_ACTIVE\" = 1 ] || exit 3\n";
                case "dpkg-statoverride" -> "exit 1\n";
                default -> "";
            };
            Path p = bin.resolve(fake);
            Files.writeString(p, "#!/bin/sh\necho \"" + fake + " $*\" >> \"$CALLS\"\n" + exit + "exit 0\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void firstInstallCreatesUserAndLogDirectoryAndEnablesAndStartsSocketAndService() throws Exception {
        script("postinst", "configure");
        assertThat(calls()).containsSubsequence(
                "adduser --system --group --quiet --no-create-home --home /nonexistent paduraksa",
                "chown root:paduraksa " + root.resolve("etc/paduraksa"),
                "chown paduraksa:paduraksa " + log,
                "deb-systemd-helper enable paduraksa.socket",
                "deb-systemd-helper enable paduraksa.service",
                "systemctl --system daemon-reload",
                "deb-systemd-invoke start paduraksa.socket paduraksa.service");
        assertThat(log).isDirectory();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(log))).isEqualTo("rwxr-x---");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("etc/paduraksa")))).isEqualTo("rwxr-x---");
    }

    /** dpkg's upgrade: old prerm upgrade, new postrm-less unpack, old postrm upgrade, new postinst configure OLD. */
    @Test
    void upgradeRestartsOnlyTheServiceAndNeverStopsTheSocket() throws Exception {
        userExists = true;
        socketActive = true;
        Files.createDirectories(log);
        script("prerm", "upgrade", "0.2.0");
        script("postrm", "upgrade", "0.2.0");
        assertThat(calls()).as("nothing before the new files are in place").isEmpty();
        script("postinst", "configure", "0.1.0");
        List<String> calls = calls();
        assertThat(calls).noneMatch(c -> c.startsWith("adduser"))
                .contains("systemctl --system daemon-reload", "deb-systemd-invoke restart paduraksa.service")
                .noneMatch(c -> c.matches("(systemctl|deb-systemd-invoke) (stop|restart|try-restart|reload-or-restart) .*paduraksa\\.socket.*"))
                .noneMatch(c -> c.matches("(systemctl|deb-systemd-invoke) stop .*"));
        assertThat(calls.stream().filter(c -> c.matches("(systemctl|deb-systemd-invoke) (start|restart) .*"))).containsExactly(
                "deb-systemd-invoke restart paduraksa.service");
    }

    /** From a version without the socket unit the service holds the ports: it stops before the socket starts. */
    @Test
    void upgradeWithoutARunningSocketStopsTheServiceThenStartsSocketAndService() throws Exception {
        userExists = true;
        script("postinst", "configure", "0.1.0");
        assertThat(calls()).containsSubsequence("systemctl is-active --quiet paduraksa.socket",
                "deb-systemd-invoke stop paduraksa.service", "deb-systemd-invoke start paduraksa.socket paduraksa.service");
    }

    @Test
    void removeStopsSocketAndServiceAndKeepsLogsAndEnablement() throws Exception {
        Files.createDirectories(log);
        Files.writeString(log.resolve("access.log"), "{}\n");
        script("prerm", "remove");
        script("postrm", "remove");
        assertThat(calls()).containsExactly("deb-systemd-invoke stop paduraksa.socket paduraksa.service",
                "systemctl --system daemon-reload");
        assertThat(log.resolve("access.log")).hasContent("{}");
    }

    @Test
    void purgeRemovesLogsAndPurgesEnablement() throws Exception {
        Files.createDirectories(log);
        Files.writeString(log.resolve("access.log"), "{}\n");
        script("postrm", "purge");
        assertThat(calls()).contains("systemctl --system daemon-reload",
                "deb-systemd-helper purge paduraksa.socket", "deb-systemd-helper purge paduraksa.service")
                .noneMatch(c -> c.startsWith("deluser"));
        assertThat(log).doesNotExist();
        assertThat(root.resolve("var/log")).isDirectory();
    }

    /** A chroot or container: no systemd runs, so nothing is started, stopped or reloaded; files are still handled. */
    @Test
    void withoutSystemdNothingIsStartedStoppedOrReloaded() throws Exception {
        Files.delete(root.resolve("run/systemd/system"));
        script("postinst", "configure");
        script("postinst", "configure", "0.1.0");
        script("prerm", "remove");
        script("postrm", "remove");
        assertThat(log).isDirectory();
        script("postrm", "purge");
        assertThat(log).doesNotExist();
        assertThat(calls()).as("deb-systemd-helper only records enablement; it works without systemd")
                .noneMatch(c -> c.startsWith("systemctl") || c.startsWith("deb-systemd-invoke"))
                .contains("deb-systemd-helper enable paduraksa.socket", "deb-systemd-helper enable paduraksa.service");
    }

    @Test
    void abortedRemoveStartsTheUnitsAgain() throws Exception {
        script("postinst", "abort-remove");
        assertThat(calls()).containsExactly("deb-systemd-invoke start paduraksa.socket paduraksa.service");
    }

    @Test
    void scriptsPassShellcheck() throws Exception {
        Path shellcheck = Tools.require("shellcheck", "shellcheck", "/usr/bin/shellcheck");
        for (String script : new String[] {"postinst", "prerm", "postrm"}) {
            Result r = exec(List.of(shellcheck.toString(), "--shell=sh", DEB.resolve(script).toString()), Map.of());
            assertThat(r.exit()).as(script + ":\n" + r.output()).isZero();
        }
    }

    record Result(int exit, String output) {}

    /** Runs {@code sh src/deb/NAME ARGS} as dpkg would; it must exit 0. */
    private void script(String name, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("sh", DEB.resolve(name).toString()));
        command.addAll(List.of(args));
        Result r = exec(command, Map.of("DPKG_ROOT", root.toString(), "CALLS", calls.toString(),
                "PATH", dir.resolve("bin") + ":/usr/sbin:/usr/bin:/sbin:/bin",
                "FAKE_USER_EXISTS", userExists ? "1" : "0", "FAKE_SOCKET_ACTIVE", socketActive ? "1" : "0"));
        assertThat(r.exit()).as(name + " " + String.join(" ", args) + ":\n" + r.output()).isZero();
    }

    private List<String> calls() throws IOException {
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    private Result exec(List<String> command, Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(dir, "exec", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish");
        }
        return new Result(p.exitValue(), Files.readString(out));
    }
}
