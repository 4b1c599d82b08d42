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
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import io.paduraksa.testing.Tools;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code ./mvnw package} built: the tarball unpacks and its launcher runs the server; the .deb has
 * the files, modes, control fields and conffiles the service needs, depends on no Java package (it
 * bundles a jlink runtime holding exactly the modules jdeps finds), is accepted by apt on a plain
 * Debian system, and its launcher runs the server from a scratch root made by {@code dpkg-deb -x}. The server process tells a fake systemd READY=1 (with
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

    /** A TLS listener (served by BoringSSL, keys parsed by the JDK) with the server tests' a.test certificate. */
    private static final String TLS_YAML = """
            listeners:
              - name: public
                address: "127.0.0.1:0"
                protocols: [http1]
                tls: {certificates: [{cert: a-test-chain.pem, key: a-test.key}]}
            hosts:
              - names: [a.test]
                routes:
                  - {path: /, respond: {status: 200, body: "%s"}}
            server: {drain_timeout: 2s}
            """;
    private static final Path TLS_FILES = Path.of("../paduraksa-server/src/test/resources/tls");

    @TempDir
    static Path work;
    static Path tarRoot;
    static Path debRoot;
    static Path debControl;
    /** Modules jdeps reports that the server never loads: jackson-databind and logback only name them
     * as {@code requires static} (java.beans annotations, java.sql date types, JDBC appenders). */
    static final Set<String> OPTIONAL_ONLY = Set.of("java.desktop", "java.sql");
    /** Modules loaded only by name, which jdeps cannot see: the JNDI DNS provider (Netty's resolver). */
    static final Set<String> LOADED_BY_NAME = Set.of("jdk.naming.dns");

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
        assertThat(tarRoot.resolve("bin/find-java.sh")).hasSameTextualContentAs(Path.of("../bin/find-java.sh"));
        assertThat(tarRoot.resolve("runtime/bin/java")).isExecutable();
        assertThat(tarRoot.resolve("runtime/release")).hasSameTextualContentAs(debRoot.resolve("usr/lib/paduraksa/runtime/release"));
        assertThat(tarRoot.resolve("lib/paduraksa-server-" + VERSION + ".jar")).isRegularFile();
        assertThat(tarRoot.resolve("lib/paduraksa-core-" + VERSION + ".jar")).isRegularFile();
        assertThat(tarRoot.resolve("lib/netty-transport-native-epoll-4.2.18.Final-linux-x86_64.jar")).isRegularFile();
        assertThat(tarRoot.resolve("config/paduraksa.yaml")).isRegularFile();
        assertThat(tarRoot.resolve("systemd/paduraksa.service")).hasSameTextualContentAs(Path.of("../dist/systemd/paduraksa.service"));
    }

    @Test
    void tarballLauncherServesReloadsAndStops() throws Exception {
        runServer(tarRoot.resolve("bin/paduraksa"), true, false);
    }

    @Test
    void debInstallsTheServiceLayout() throws Exception {
        assertThat(debRoot.resolve("usr/share/paduraksa/bin/paduraksa")).isExecutable();
        assertThat(debRoot.resolve("usr/share/paduraksa/bin/find-java.sh")).isRegularFile();
        assertThat(debRoot.resolve("usr/lib/paduraksa/runtime/bin/java")).isExecutable();
        assertThat(Files.readSymbolicLink(debRoot.resolve("usr/share/paduraksa/runtime"))).isEqualTo(Path.of("../../lib/paduraksa/runtime"));
        assertThat(debRoot.resolve("usr/share/paduraksa/lib/paduraksa-server-" + VERSION + ".jar")).isRegularFile();
        assertThat(Files.readSymbolicLink(debRoot.resolve("usr/bin/paduraksa"))).isEqualTo(Path.of("../share/paduraksa/bin/paduraksa"));
        assertThat(debRoot.resolve("lib/systemd/system/paduraksa.service")).hasSameTextualContentAs(Path.of("../dist/systemd/paduraksa.service"));
        assertThat(debRoot.resolve("lib/systemd/system/paduraksa.socket")).hasSameTextualContentAs(Path.of("../dist/systemd/paduraksa.socket"));
        assertThat(debRoot.resolve("etc/paduraksa/paduraksa.yaml")).isRegularFile();
        assertThat(debRoot.resolve("usr/share/doc/paduraksa/copyright")).isRegularFile();
        assertThat(Files.readAllLines(debControl.resolve("conffiles"))).containsExactly(
                "/etc/default/paduraksa", "/etc/paduraksa/behind-cloudflare.yaml",
                "/etc/paduraksa/cloudflare-ips.txt", "/etc/paduraksa/paduraksa.yaml");
        String control = Files.readString(debControl.resolve("control"));
        assertThat(control).contains("Package: paduraksa\n", "Version: " + DEB_VERSION + "\n", "Architecture: amd64\n",
                "Depends: adduser\n");
        // The runtime is bundled: no relation to any Java package (Debian 12 has no Java 21+ package).
        assertThat(control.lines().filter(l -> l.matches("(Pre-)?Depends:.*|Recommends:.*|Suggests:.*")))
                .noneMatch(l -> l.toLowerCase(Locale.ROOT).matches(".*(java|jre|jdk).*"));
        for (String script : new String[] {"postinst", "prerm", "postrm"}) {
            assertThat(debControl.resolve(script)).isExecutable();
            assertThat(run(List.of("sh", "-n", debControl.resolve(script).toString()))).as(script + " parses").isEmpty();
        }
        // The scripts themselves: MaintainerScriptsTest runs them.
        for (String script : new String[] {"postinst", "prerm", "postrm"}) {
            assertThat(debControl.resolve(script)).hasSameTextualContentAs(Path.of("src/deb", script));
        }
        // Owned by root in the archive, whoever built it.
        String listing = run(List.of("dpkg-deb", "-c", deb().toString()));
        assertThat(listing.lines()).isNotEmpty().allMatch(l -> l.contains(" root/root "));
        assertThat(listing).containsPattern("-rwxr-xr-x root/root +\\d+ [-0-9: ]+\\./usr/share/paduraksa/bin/paduraksa\n")
                .containsPattern("-rw-r--r-- root/root +\\d+ [-0-9: ]+\\./lib/systemd/system/paduraksa\\.socket\n");
    }

    @Test
    void debLauncherFromAScratchRootServesAndStops() throws Exception {
        runServer(debRoot.resolve("usr/bin/paduraksa"), false, false);
    }

    @Test
    void debLauncherServesTlsOnTheBundledRuntime() throws Exception {
        runServer(debRoot.resolve("usr/bin/paduraksa"), false, true);
    }

    @Test
    void runtimeIsAJlinkImageOfTheBuildJdk() throws IOException {
        Map<String, String> release = release(debRoot.resolve("usr/lib/paduraksa/runtime"));
        assertThat(release.get("JAVA_VERSION")).isEqualTo(System.getProperty("java.version"));
        assertThat(modules(release)).containsAll(Arrays.asList(System.getProperty("dist.runtime.modules").split(",")))
                .doesNotContainAnyElementsOf(OPTIONAL_ONLY);
        assertThat(debRoot.resolve("usr/lib/paduraksa/runtime/lib/server/libjvm.so")).isRegularFile();
        assertThat(debRoot.resolve("usr/lib/paduraksa/runtime/bin/javac")).doesNotExist();
    }

    /** The runtime's modules are exactly what jdeps finds in lib/, less the optional ones, plus those loaded by name. */
    @Test
    void runtimeHoldsEveryModuleJdepsFinds() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jdeps").toString(),
                "--ignore-missing-deps", "--list-deps", "--multi-release", Integer.toString(Runtime.version().feature())));
        try (var jars = Files.list(tarRoot.resolve("lib"))) {
            jars.map(Path::toString).filter(j -> j.endsWith(".jar")).sorted().forEach(command::add); // not the AOT cache
        }
        Set<String> needed = new TreeSet<>();
        for (String line : run(command).lines().map(String::strip).toList()) {
            if (line.matches("[a-z][a-z0-9.]*")) { // module names; "module/package" lines name internal packages
                needed.add(line);
            }
        }
        assertThat(needed).contains("java.base", "jdk.unsupported", "jdk.management");
        needed.removeAll(OPTIONAL_ONLY);
        needed.addAll(LOADED_BY_NAME);
        assertThat(new TreeSet<>(Arrays.asList(System.getProperty("dist.runtime.modules").split(",")))).isEqualTo(needed);
    }

    /** The .deb's own launcher uses its bundled runtime, whatever JAVA_HOME and PATH offer (here Java 17). */
    @Test
    void debCheckRunsOnTheBundledRuntimeWhenJavaHomeIs17(@TempDir Path dir) throws Exception {
        Path jdk17 = fakeJava(dir.resolve("jvm/fake-17"), "17.0.9");
        Map<String, String> env = new HashMap<>();
        env.put("JAVA_HOME", jdk17.toString());
        env.put("PATH", jdk17.resolve("bin") + ":/usr/bin:/bin");
        env.put("PADURAKSA_JVM_ROOT", Files.createDirectories(dir.resolve("no-jvms")).toString());
        for (String config : new String[] {"paduraksa.yaml", "behind-cloudflare.yaml"}) {
            Result r = launch(debRoot.resolve("usr/bin/paduraksa"), env, "check", "--config", debRoot.resolve("etc/paduraksa/" + config).toString());
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains(config + ": ok (");
        }
        Result version = launch(debRoot.resolve("usr/bin/paduraksa"), env, "--version");
        assertThat(version.output()).isEqualTo("paduraksa " + VERSION + "\n");
    }

    /**
     * The package ships the AOT cache its build trained (src/aot/train.sh) and the launcher starts the
     * bundled runtime with it: the server's classes come from the cache ("shared objects file"), unless
     * PADURAKSA_AOT=off. A JVM that cannot use the cache (here: other heap settings) runs without it
     * and says nothing; another runtime (PADURAKSA_JAVA_HOME) is not given it at all.
     */
    @Test
    void launcherStartsTheBundledRuntimeWithTheTrainedAotCache() throws Exception {
        String release = Files.readString(tarRoot.resolve("runtime/release"));
        Matcher major = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(release);
        assertThat(major.find()).as(release).isTrue();
        if (Integer.parseInt(major.group(1)) < 25) { // train.sh makes no cache for a runtime without one-step training
            assertThat(tarRoot.resolve("lib/paduraksa.aot")).doesNotExist();
            return;
        }
        assertThat(tarRoot.resolve("lib/paduraksa.aot")).isNotEmptyFile();
        assertThat(debRoot.resolve("usr/share/paduraksa/lib/paduraksa.aot")).hasSameBinaryContentAs(tarRoot.resolve("lib/paduraksa.aot"));
        String classLog = "-Xlog:class+load=info:stdout -Xmx64m";
        for (Path launcher : List.of(tarRoot.resolve("bin/paduraksa"), debRoot.resolve("usr/share/paduraksa/bin/paduraksa"))) {
            Result cached = launch(launcher, Map.of("PADURAKSA_JAVA_OPTS", classLog), "--version");
            assertThat(cached.exit()).as(cached.output()).isZero();
            assertThat(cached.output()).as("%s uses the cache", launcher)
                    .containsPattern("io\\.paduraksa\\.server\\.Main source: shared objects file");
            Result flags = launch(launcher, Map.of("PADURAKSA_JAVA_OPTS", "-Xmx64m -XX:+PrintFlagsFinal"), "--version");
            assertThat(flags.output()).as("the training run's profiles are not replayed")
                    .containsPattern("bool AOTReplayTraining +=\\s*false +\\{diagnostic\\} \\{command line\\}");
            Result off = launch(launcher, Map.of("PADURAKSA_JAVA_OPTS", classLog, "PADURAKSA_AOT", "off"), "--version");
            assertThat(off.output()).contains("io.paduraksa.server.Main source: file:");
        }
        Result unusable = launch(tarRoot.resolve("bin/paduraksa"), Map.of("PADURAKSA_JAVA_OPTS", "-Xmx64m -XX:-UseCompressedOops"), "--version");
        assertThat(unusable.output()).as("a cache the JVM refuses is skipped silently").isEqualTo("paduraksa " + VERSION + "\n");
        Result other = launch(tarRoot.resolve("bin/paduraksa"),
                Map.of("PADURAKSA_JAVA_HOME", System.getProperty("java.home"), "PADURAKSA_JAVA_OPTS", classLog), "--version");
        assertThat(other.exit()).as(other.output()).isZero();
        assertThat(other.output()).contains("io.paduraksa.server.Main source: file:");
    }

    @Test
    void launcherRefusesPaduraksaJavaHomeOlderThan21(@TempDir Path dir) throws Exception {
        Path jdk17 = fakeJava(dir.resolve("jvm/fake-17"), "17.0.9");
        Result r = launch(tarRoot.resolve("bin/paduraksa"), Map.of("PADURAKSA_JAVA_HOME", jdk17.toString()), "--version");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.output()).contains("PADURAKSA_JAVA_HOME=" + jdk17 + " is not a Java 21 or newer (Java 17)");
    }

    /**
     * apt on this machine's Debian package lists, with an empty dpkg status (a system with nothing
     * installed), installs the .deb: every dependency is in the archive and none is a Java package.
     */
    @Test
    void aptInstallsThePackageOnASystemWithoutJava(@TempDir Path dir) throws Exception {
        Tools.require("apt-get", "apt", "/usr/bin/apt-get"); // skips outside CI without it, fails under .ci/run
        Path status = Files.writeString(dir.resolve("status"), "");
        List<String> simulate = List.of("apt-get", "install", "-s", "-o", "Dir::State::status=" + status, deb().toString());
        Result r = exec(simulate, Map.of());
        boolean noLists = r.exit() != 0 && r.output().contains("adduser"); // adduser is in every Debian archive
        if (noLists && Tools.inCi()) { // a fresh machine without package lists: CI fetches them once
            exec(List.of("apt-get", "update", "-qq"), Map.of());
            r = exec(simulate, Map.of());
        }
        Tools.require(!noLists || Tools.inCi(), "no Debian package lists here (run apt-get update): " + r.output());
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).containsPattern("(?m)^Inst paduraksa \\(" + Pattern.quote(DEB_VERSION) + " ")
                .containsPattern("(?m)^Inst adduser ")
                .doesNotContainPattern("(?m)^Inst \\S*(openjdk|jre|jdk|java)");
    }

    private static Path fakeJava(Path home, String version) throws IOException {
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        for (String tool : new String[] {"java", "javac", "jlink"}) {
            Path p = home.resolve("bin").resolve(tool);
            Files.writeString(p, "#!/bin/sh\necho fake java " + version + " ran >&2\nexit 99\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return home;
    }

    private static Map<String, String> release(Path runtime) throws IOException {
        Map<String, String> map = new HashMap<>();
        for (String line : Files.readAllLines(runtime.resolve("release"))) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                map.put(line.substring(0, eq), line.substring(eq + 1).replace("\"", ""));
            }
        }
        return map;
    }

    private static Set<String> modules(Map<String, String> release) {
        return new TreeSet<>(Arrays.asList(release.get("MODULES").split(" ")));
    }

    record Result(int exit, String output) {}

    private static Result launch(Path launcher, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(Arrays.asList(args));
        Map<String, String> all = new HashMap<>(env);
        all.putIfAbsent("PADURAKSA_JAVA_OPTS", "-Xmx64m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        return exec(command, all);
    }

    /** Runs a command with env added to (and JAVA_OPTS, PADURAKSA_JAVA_HOME removed from) this one's. */
    private static Result exec(List<String> command, Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(work, "exec", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().remove("JAVA_OPTS");
        pb.environment().remove("PADURAKSA_JAVA_HOME");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish; output:\n" + Files.readString(out));
        }
        return new Result(p.exitValue(), Files.readString(out));
    }

    /**
     * Starts {@code launcher run} on a port-0 config with NOTIFY_SOCKET, waits for READY=1 naming the
     * port, asks for /, optionally reloads with SIGHUP, stops it with SIGTERM by PID.
     */
    private static void runServer(Path launcher, boolean reload, boolean tls) throws Exception {
        Path dir = Files.createTempDirectory(work, "run");
        Path config = dir.resolve("paduraksa.yaml");
        String yaml = tls ? TLS_YAML : YAML;
        Files.writeString(config, yaml.formatted("v1"));
        if (tls) {
            Files.copy(TLS_FILES.resolve("a-test-chain.pem"), dir.resolve("a-test-chain.pem"));
            Files.copy(TLS_FILES.resolve("a-test.key"), dir.resolve("a-test.key"));
        }
        Path log = dir.resolve("server.log");
        try (FakeNotifySocket systemd = new FakeNotifySocket(dir.resolve("notify"))) {
            ProcessBuilder pb = new ProcessBuilder(Tools.withDefaultHangup(List.of(launcher.toString(), "run", "--config", config.toString())));
            Map<String, String> env = pb.environment();
            env.put("JAVA_HOME", System.getProperty("java.home")); // ignored: both layouts bundle a runtime
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
                assertThat(tls ? getTls(port) : get(port)).endsWith("\r\n\r\nv1");
                if (reload) {
                    Files.writeString(config, yaml.formatted("v2"));
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
            return exchange(s);
        }
    }

    /** As {@link #get}, over TLS with SNI a.test, trusting only the test CA. */
    private static String getTls(int port) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream ca = Files.newInputStream(TLS_FILES.resolve("ca.pem"))) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            SSLParameters params = s.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName("a.test")));
            s.setSSLParameters(params);
            s.startHandshake();
            return exchange(s);
        }
    }

    private static String exchange(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        OutputStream out = s.getOutputStream();
        out.write("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
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
