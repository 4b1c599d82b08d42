package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.paduraksa.config.AccessLogSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** dist/systemd/paduraksa.service: the settings the service relies on, and systemd's own verdict. */
class UnitFileTest {
    static final Path UNIT = Path.of("..", "dist", "systemd", "paduraksa.service");

    /** Every {@code key=value} of the [Service] section (comments dropped), in order. */
    static List<String> service() throws IOException {
        return section("[Service]");
    }

    /** Every {@code key=value} of one section (comments dropped), in order. */
    static List<String> section(String name) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(UNIT, StandardCharsets.UTF_8)) {
            String l = line.strip();
            if (l.startsWith("[")) {
                inSection = l.equals(name);
            } else if (inSection && !l.isEmpty() && !l.startsWith("#")) {
                lines.add(l);
            }
        }
        return lines;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "Type=notify",
        "NotifyAccess=main",
        "ExecStartPre=/usr/bin/paduraksa check --config /etc/paduraksa/paduraksa.yaml",
        "ExecStart=/usr/bin/paduraksa run --config /etc/paduraksa/paduraksa.yaml",
        "ExecReload=/bin/kill -HUP $MAINPID",
        "WatchdogSec=30s",
        "Restart=on-failure",
        "User=paduraksa",
        "AmbientCapabilities=CAP_NET_BIND_SERVICE",
        "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "LimitNOFILE=1048576",
        "StandardOutput=journal",
        "EnvironmentFile=-/etc/default/paduraksa",
    })
    void serviceHas(String setting) throws IOException {
        assertThat(service()).contains(setting);
    }

    /**
     * Starting the service starts paduraksa.socket first (Wants=, After=), but stopping the socket does
     * not stop the service (no Requires=, BindsTo=, PartOf=); enabling the service enables the socket.
     */
    @Test
    void serviceWantsTheSocketWithoutBeingStoppedByIt() throws IOException {
        assertThat(section("[Unit]")).contains("Wants=paduraksa.socket", "After=paduraksa.socket")
                .noneMatch(l -> l.matches("(Requires|Requisite|BindsTo|PartOf)=.*"));
        assertThat(section("[Install]")).contains("WantedBy=multi-user.target", "Also=paduraksa.socket");
    }

    /** /var/log/paduraksa (the access log's default directory) is writable despite ProtectSystem=strict. */
    @Test
    void logsDirectoryIsTheAccessLogsDefault() throws IOException {
        assertThat(service()).contains("LogsDirectory=paduraksa", "LogsDirectoryMode=0750");
        assertThat(AccessLogSpec.DEFAULT.path()).isEqualTo("/var/log/paduraksa/access.log");
    }

    @Test
    void stopTimeoutIsAboveTheDefaultDrainTimeout() throws IOException {
        String stop = service().stream().filter(l -> l.startsWith("TimeoutStopSec=")).findFirst().orElseThrow();
        // server.drain_timeout defaults to 30 s (ServerSpec); systemd must not SIGKILL a drain in progress.
        assertThat(Integer.parseInt(stop.replaceAll("\\D", ""))).isGreaterThan(30);
    }

    @Test
    void noNotifyReloadWhichDebian12sSystemdLacks() throws IOException {
        assertThat(service()).doesNotContain("Type=notify-reload").doesNotContain("DynamicUser=yes");
    }

    /**
     * systemd-analyze verify on the unit, with /usr/bin/paduraksa pointed at an executable stub (verify
     * refuses a unit whose ExecStart binary is missing); any message (unknown key, bad value) fails.
     */
    @Test
    void systemdAnalyzeVerifiesTheUnit(@TempDir Path dir) throws Exception {
        // Debian 12 ships systemd-analyze in the systemd package (.ci/run installs it).
        Path analyze = io.paduraksa.testing.Tools.require("systemd-analyze", "systemd", "/usr/bin/systemd-analyze");
        Path stub = dir.resolve("paduraksa");
        Files.writeString(stub, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path unit = dir.resolve("paduraksa.service");
        Files.writeString(unit, Files.readString(UNIT).replace("/usr/bin/paduraksa", stub.toString()));
        Path out = dir.resolve("verify.log");
        Process p = new ProcessBuilder(analyze.toString(), "verify", unit.toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(out);
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(log).as("systemd-analyze verify output").isBlank();
    }
}
