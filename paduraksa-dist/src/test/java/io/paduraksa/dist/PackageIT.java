package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code ./mvnw package} built: the tarball unpacks and its launcher runs the server; the .deb has
 * the files, modes, control fields and conffiles the service needs, and its launcher runs the server
 * from a scratch root made by {@code dpkg-deb -x}. The server process tells a fake systemd READY=1 (with
 * the bound port), RELOADING=1/READY=1 on SIGHUP and STOPPING=1 on SIGTERM, then exits 0.
 */
class PackageIT {
    private static final String VERSION = System.getProperty("dist.version");
    private static final String DEB_VERSION = VERSION.replace('-', '~');
    private static final String YAML = """
            listeners:
              - {name: public, address: "127.0.0.1:0", protocols: [http1]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "%s"}}
            server: {drain_timeout: 2s}
            """;

    @TempDir
    static Path work;
    static Path tarRoot;
    static Path debRoot;
    static Path debControl;

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("dist.tarball"));
        run(List.of("tar", "-xzf", tarball.toString(), "-C", work.toString()));
        tarRoot = work.resolve("paduraksa-" + VERSION);
        debRoot = work.resolve("deb-root");
        debControl = work.resolve("deb-control");
        run(List.of("dpkg-deb", "-x", deb().toString(), debRoot.toString()));
        run(List.of("dpkg-deb", "-e", deb().toString(), debControl.toString()));
    }

    static Path deb() {
        return Path.of(System.getProperty("dist.debDir"), "paduraksa_" + DEB_VERSION + "_amd64.deb");
    }

    @Test
    void tarballHoldsLauncherJarsConfigAndUnit() throws IOException {
        assertThat(tarRoot.resolve("bin/paduraksa")).isExecutable();
        assertThat(tarRoot.resolve("lib/paduraksa-server-" + VERSION + ".jar")).isRegularFile();
        assertThat(tarRoot.resolve("lib/paduraksa-core-" + VERSION + ".jar")).isRegularFile();
        assertThat(tarRoot.resolve("lib/netty-transport-native-epoll-4.2.18.Final-linux-x86_64.jar")).isRegularFile();
        assertThat(tarRoot.resolve("config/paduraksa.yaml")).isRegularFile();
        assertThat(tarRoot.resolve("systemd/paduraksa.service")).hasSameTextualContentAs(Path.of("../dist/systemd/paduraksa.service"));
    }

    @Test
    void tarballLauncherServesReloadsAndStops() throws Exception {
        runServer(tarRoot.resolve("bin/paduraksa"), true);
    }

    @Test
    void debInstallsTheServiceLayout() throws Exception {
        assertThat(debRoot.resolve("usr/share/paduraksa/bin/paduraksa")).isExecutable();
        assertThat(debRoot.resolve("usr/share/paduraksa/lib/paduraksa-server-" + VERSION + ".jar")).isRegularFile();
        assertThat(Files.readSymbolicLink(debRoot.resolve("usr/bin/paduraksa"))).isEqualTo(Path.of("../share/paduraksa/bin/paduraksa"));
        assertThat(debRoot.resolve("lib/systemd/system/paduraksa.service")).hasSameTextualContentAs(Path.of("../dist/systemd/paduraksa.service"));
        assertThat(debRoot.resolve("etc/paduraksa/paduraksa.yaml")).isRegularFile();
        assertThat(debRoot.resolve("usr/share/doc/paduraksa/copyright")).isRegularFile();
        assertThat(Files.readAllLines(debControl.resolve("conffiles"))).containsExactly(
                "/etc/default/paduraksa", "/etc/paduraksa/behind-cloudflare.yaml",
                "/etc/paduraksa/cloudflare-ips.txt", "/etc/paduraksa/paduraksa.yaml");
        String control = Files.readString(debControl.resolve("control"));
        assertThat(control).contains("Package: paduraksa\n", "Version: " + DEB_VERSION + "\n", "Architecture: amd64\n",
                "Depends: openjdk-21-jre-headless | openjdk-25-jre-headless | java21-runtime-headless, adduser\n");
        for (String script : new String[] {"postinst", "prerm", "postrm"}) {
            assertThat(debControl.resolve(script)).isExecutable();
            assertThat(run(List.of("sh", "-n", debControl.resolve(script).toString()))).as(script + " parses").isEmpty();
        }
        assertThat(Files.readString(debControl.resolve("postinst")))
                .contains("adduser --system --group", "[ -d /run/systemd/system ]", "systemctl daemon-reload");
        // Owned by root in the archive, whoever built it.
        String listing = run(List.of("dpkg-deb", "-c", deb().toString()));
        assertThat(listing.lines()).isNotEmpty().allMatch(l -> l.contains(" root/root "));
        assertThat(listing).containsPattern("-rwxr-xr-x root/root +\\d+ [-0-9: ]+\\./usr/share/paduraksa/bin/paduraksa\n");
    }

    @Test
    void debLauncherFromAScratchRootServesAndStops() throws Exception {
        runServer(debRoot.resolve("usr/bin/paduraksa"), false);
    }

    @Test
    void launcherRefusesJavaOlderThan21(@TempDir Path dir) throws Exception {
        Path jdk17 = dir.resolve("jvm/fake-17");
        Files.createDirectories(jdk17.resolve("bin"));
        Files.writeString(jdk17.resolve("release"), "JAVA_VERSION=\"17.0.9\"\n");
        Path java = jdk17.resolve("bin/java");
        Files.writeString(java, "#!/bin/sh\nexit 99\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path tools = Files.createDirectories(dir.resolve("tools")); // a PATH without any java
        for (String tool : new String[] {"dirname", "readlink", "sed"}) {
            Files.createSymbolicLink(tools.resolve(tool), Path.of("/usr/bin", tool));
        }
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", tarRoot.resolve("bin/paduraksa").toString(), "--version");
        pb.environment().put("JAVA_HOME", jdk17.toString());
        pb.environment().put("PATH", tools.toString());
        pb.environment().put("PADURAKSA_JVM_ROOT", dir.resolve("jvm").toString());
        Path err = dir.resolve("err");
        Process p = pb.redirectErrorStream(true).redirectOutput(err.toFile()).start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(Files.readString(err)).contains("needs Java 21 or newer", "(Java 17)", "openjdk-21-jre-headless");
    }

    /**
     * Starts {@code launcher run} on a port-0 config with NOTIFY_SOCKET, waits for READY=1 naming the
     * port, asks for /, optionally reloads with SIGHUP, stops it with SIGTERM by PID.
     */
    private static void runServer(Path launcher, boolean reload) throws Exception {
        Path dir = Files.createTempDirectory(work, "run");
        Path config = dir.resolve("paduraksa.yaml");
        Files.writeString(config, YAML.formatted("v1"));
        Path log = dir.resolve("server.log");
        try (FakeNotifySocket systemd = new FakeNotifySocket(dir.resolve("notify"))) {
            ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "run", "--config", config.toString());
            Map<String, String> env = pb.environment();
            env.put("JAVA_HOME", System.getProperty("java.home"));
            env.put("PADURAKSA_JAVA_OPTS", "-Xmx64m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
            env.put("NOTIFY_SOCKET", systemd.path.toString());
            env.remove("JAVA_OPTS");
            Process process = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                String ready = next(systemd, process, log, 20);
                Matcher m = Pattern.compile("READY=1\nSTATUS=serving config generation 1 on public=127\\.0\\.0\\.1:(\\d+)").matcher(ready);
                assertThat(m.matches()).as(ready).isTrue();
                int port = Integer.parseInt(m.group(1));
                assertThat(process.info().command().orElse("")).as("the launcher exec'd the JVM (same PID)").endsWith("/java");
                assertThat(get(port)).endsWith("\r\n\r\nv1");
                if (reload) {
                    Files.writeString(config, YAML.formatted("v2"));
                    signal("HUP", process);
                    assertThat(next(systemd, process, log, 10)).matches("RELOADING=1\nMONOTONIC_USEC=\\d+");
                    assertThat(next(systemd, process, log, 10)).isEqualTo("READY=1\nSTATUS=config generation 2 loaded");
                    assertThat(get(port)).endsWith("\r\n\r\nv2");
                }
                signal("TERM", process);
                assertThat(next(systemd, process, log, 10)).startsWith("STOPPING=1");
                assertThat(process.waitFor(15, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
                assertThat(process.exitValue()).as("exit code; log:\n%s", Files.readString(log)).isZero();
            } finally {
                process.destroyForcibly();
            }
        }
    }

    private static String next(FakeNotifySocket systemd, Process process, Path log, int seconds) throws Exception {
        try {
            return systemd.next(seconds);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + " (process alive: " + process.isAlive() + "); log:\n" + Files.readString(log), e);
        }
    }

    private static void signal(String name, Process process) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor()).isZero();
    }

    /** One HTTP/1.1 request with Connection: close; the whole answer. */
    private static String get(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** Runs a command; fails with its output unless it exits 0; returns its output. */
    private static String run(List<String> command) throws Exception {
        Path out = Files.createTempFile(work, "cmd", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish");
        }
        String text = Files.readString(out);
        assertThat(p.exitValue()).as("%s:\n%s", command, text).isZero();
        return text;
    }
}
