package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/find-java.sh, the one JDK search shared by ./mvnw, bin/paduraksa and .ci/run: a newcomer whose
 * {@code java} is 17 (Debian 12's default) and who has no JAVA_HOME still gets a JDK 21+ from ./mvnw,
 * and when none exists the message names each Java found with its version. Fake Java homes are a
 * {@code release} file plus scripts that exit 99, so a test fails loudly if one of them is run.
 */
class FindJavaTest {
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void mvnwPicksAJdk21FromTheJvmRootWhenPathJavaIs17AndJavaHomeIsUnset() throws Exception {
        Path jdk17 = fake(dir.resolve("jvm/fake-17"), "17.0.9", true);
        // The JDK running this test (21+) stands for /usr/lib/jvm/temurin-25-jdk-amd64 and the like.
        Files.createSymbolicLink(dir.resolve("jvm/a-real-jdk"), Path.of(System.getProperty("java.home")));
        Result r = run(List.of(REPO.resolve("mvnw").toString(), "-v"), Map.of(
                "PATH", jdk17.resolve("bin") + ":/usr/bin:/bin",
                "PADURAKSA_JVM_ROOT", dir.resolve("jvm").toString()));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("Apache Maven ", "Java version: " + System.getProperty("java.version"))
                .doesNotContain("fake java");
    }

    @Test
    void mvnwNamesEachJavaItFoundWhenNoneIsAJdk21() throws Exception {
        Path jdk17 = fake(dir.resolve("jvm/fake-17"), "17.0.9", true);
        Path jre25 = fake(dir.resolve("jvm/fake-jre-25"), "25.0.1", false);
        Result r = run(List.of(REPO.resolve("mvnw").toString(), "-v"), Map.of(
                "JAVA_HOME", jdk17.toString(),
                "PATH", jdk17.resolve("bin") + ":/usr/bin:/bin",
                "PADURAKSA_JVM_ROOT", dir.resolve("jvm").toString()));
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.output()).isEqualTo("paduraksa: needs a JDK 21 or newer; found: " + jdk17 + " (Java 17); "
                + jre25 + " (no javac/jlink: a runtime, not a JDK);\n"
                + "paduraksa: install one (e.g. apt-get install openjdk-21-jdk-headless on Debian 13 or Ubuntu 24.04;"
                + " on Debian 12 a Temurin 21+ JDK) or set JAVA_HOME to it\n");
    }

    @Test
    void aRuntimeSearchTakesJavaHomeFirstThenTheNewestUnderTheJvmRoot() throws Exception {
        Path jre21 = fake(dir.resolve("jvm/jre-21"), "21.0.5", false);
        Path jdk25 = fake(dir.resolve("jvm/jdk-25"), "25.0.1", true);
        fake(dir.resolve("jvm/jdk-17"), "17.0.9", true);
        Path noJava = Files.createDirectories(dir.resolve("bin-without-java"));
        Files.createSymbolicLink(noJava.resolve("sed"), Path.of("/usr/bin/sed"));
        Files.createSymbolicLink(noJava.resolve("readlink"), Path.of("/usr/bin/readlink"));
        Files.createSymbolicLink(noJava.resolve("dirname"), Path.of("/usr/bin/dirname"));
        String script = ". " + REPO.resolve("bin/find-java.sh") + "; paduraksa_find_java \"$@\"";
        Map<String, String> env = Map.of("PATH", noJava.toString(), "PADURAKSA_JVM_ROOT", dir.resolve("jvm").toString());
        assertThat(run(List.of("/bin/sh", "-c", script, "sh"), env).output()).isEqualTo(jdk25 + "\n");
        assertThat(run(List.of("/bin/sh", "-c", script, "sh", "jdk"), env).output()).isEqualTo(jdk25 + "\n");
        Map<String, String> withHome = Map.of("PATH", noJava.toString(), "PADURAKSA_JVM_ROOT", dir.resolve("jvm").toString(),
                "JAVA_HOME", jre21.toString());
        assertThat(run(List.of("/bin/sh", "-c", script, "sh"), withHome).output()).isEqualTo(jre21 + "\n");
        assertThat(run(List.of("/bin/sh", "-c", script, "sh", "jdk"), withHome).output()).isEqualTo(jdk25 + "\n");
    }

    /** A fake Java home: a release file naming the version, bin/java (and javac, jlink for a JDK) exiting 99. */
    static Path fake(Path home, String version, boolean jdk) throws IOException {
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        for (String tool : jdk ? new String[] {"java", "javac", "jlink"} : new String[] {"java"}) {
            Path p = home.resolve("bin").resolve(tool);
            Files.writeString(p, "#!/bin/sh\necho fake java " + version + " ran >&2\nexit 99\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return home;
    }

    record Result(int exit, String output) {}

    /** Runs a command without JAVA_HOME, MAVEN_OPTS or JAVA_OPTS from this JVM's environment, plus env. */
    Result run(List<String> command, Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeAll(List.of("JAVA_HOME", "MAVEN_OPTS", "MAVEN_ARGS", "JAVA_OPTS", "JDK_JAVA_OPTIONS"));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish");
        }
        return new Result(p.exitValue(), Files.readString(out));
    }
}
