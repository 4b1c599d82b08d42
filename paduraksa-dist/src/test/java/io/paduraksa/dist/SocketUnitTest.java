package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dist/systemd/paduraksa.socket: one ListenStream= per listener of the sample config, sockets that outlive a service restart. */
class SocketUnitTest {
    static final Path SOCKET = Path.of("..", "dist", "systemd", "paduraksa.socket");
    static final Path SAMPLE = Path.of("..", "config", "paduraksa.yaml");

    static List<String> settings() throws Exception {
        return Files.readAllLines(SOCKET, StandardCharsets.UTF_8).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("[")).toList();
    }

    @Test
    void listensOnEveryAddressOfTheSampleConfig() throws Exception {
        Matcher m = Pattern.compile("address: \"([^\"]+)\"").matcher(Files.readString(SAMPLE));
        int addresses = 0;
        while (m.find()) {
            addresses++;
            assertThat(settings()).contains("ListenStream=" + m.group(1));
        }
        assertThat(addresses).isPositive();
        assertThat(settings().stream().filter(l -> l.startsWith("ListenStream=")).count()).isEqualTo(addresses);
    }

    /**
     * One unit gives all its sockets one name, and the server matches a socket by name before address:
     * the name must be no listener's, so that each socket goes to the listener with its address.
     */
    @Test
    void socketsAreMatchedByAddressNotByName() throws Exception {
        Matcher m = Pattern.compile("(?m)^  - name: (\\S+)$").matcher(Files.readString(SAMPLE));
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).contains("public", "admin");
        assertThat(settings()).filteredOn(l -> l.startsWith("FileDescriptorName=")).hasSize(1)
                .noneMatch(l -> names.contains(l.substring("FileDescriptorName=".length())));
    }

    @Test
    void aServiceRestartDoesNotCloseTheSockets() throws Exception {
        assertThat(settings()).noneMatch(l -> l.startsWith("PartOf=") || l.startsWith("BindsTo=") || l.startsWith("Accept=yes"));
        assertThat(settings()).contains("WantedBy=sockets.target");
    }

    /** systemd-analyze verify on the socket unit next to the service (stub ExecStart binary), no messages. */
    @Test
    void systemdAnalyzeVerifiesTheSocketUnit(@TempDir Path dir) throws Exception {
        Path analyze = io.paduraksa.testing.Tools.require("systemd-analyze", "systemd", "/usr/bin/systemd-analyze");
        Path stub = dir.resolve("paduraksa");
        Files.writeString(stub, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(stub, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("paduraksa.service"),
                Files.readString(UnitFileTest.UNIT).replace("/usr/bin/paduraksa", stub.toString()));
        Path socket = dir.resolve("paduraksa.socket");
        Files.copy(SOCKET, socket);
        Path out = dir.resolve("verify.log");
        Process p = new ProcessBuilder(analyze.toString(), "verify", socket.toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(out);
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(log).as("systemd-analyze verify output").isBlank();
    }
}
