package io.paduraksa.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM options bin/paduraksa gives, read from an installed layout (bin/, lib/, runtime/) whose
 * bundled runtime is a script that prints its arguments: transparent huge pages are asked for when
 * the kernel gives them on request or always, never when it has them off, and an operator's own
 * choice of the flag wins.
 */
class LauncherFlagsTest {
    @TempDir
    Path dir;
    private Path thp;

    @BeforeEach
    void layout() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String script : List.of("paduraksa", "find-java.sh")) {
            Files.copy(FindJavaTest.REPO.resolve("bin").resolve(script), bin.resolve(script));
        }
        Files.createDirectories(dir.resolve("lib"));
        Files.writeString(dir.resolve("lib/paduraksa-server-0.0.0.jar"), "");
        Path runtime = Files.createDirectories(dir.resolve("runtime/bin"));
        Files.writeString(dir.resolve("runtime/release"), "JAVA_VERSION=\"25.0.1\"\n");
        Path java = runtime.resolve("java");
        Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        thp = dir.resolve("thp-enabled");
    }

    @Test
    void hugePagesWhenTheKernelGivesThemOnRequest() throws Exception {
        Files.writeString(thp, "always [madvise] never\n");
        assertThat(jvmArgs(Map.of())).contains("-XX:+UseTransparentHugePages", "-XX:+UseParallelGC");
    }

    @Test
    void hugePagesWhenTheKernelAlwaysGivesThem() throws Exception {
        Files.writeString(thp, "[always] madvise never\n");
        assertThat(jvmArgs(Map.of())).contains("-XX:+UseTransparentHugePages");
    }

    @Test
    void noHugePagesWhenTheKernelHasThemOffOrSaysNothing() throws Exception {
        Files.writeString(thp, "always madvise [never]\n");
        assertThat(jvmArgs(Map.of())).doesNotContain("-XX:+UseTransparentHugePages").contains("-XX:+UseParallelGC");
        Files.delete(thp);
        assertThat(jvmArgs(Map.of())).doesNotContain("-XX:+UseTransparentHugePages");
    }

    @Test
    void theOperatorsChoiceWins() throws Exception {
        Files.writeString(thp, "always [madvise] never\n");
        List<String> args = jvmArgs(Map.of("PADURAKSA_JAVA_OPTS", "-XX:-UseTransparentHugePages"));
        assertThat(args).contains("-XX:-UseTransparentHugePages").doesNotContain("-XX:+UseTransparentHugePages");
    }

    private List<String> jvmArgs(Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".log");
        ProcessBuilder pb = new ProcessBuilder(dir.resolve("bin/paduraksa").toString(), "--version")
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeAll(List.of("JAVA_HOME", "JAVA_OPTS", "PADURAKSA_JAVA_OPTS", "PADURAKSA_JAVA_HOME",
                "JDK_JAVA_OPTIONS"));
        pb.environment().put("PADURAKSA_THP_SETTING", thp.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bin/paduraksa did not finish");
        }
        List<String> args = Files.readAllLines(out);
        assertThat(p.exitValue()).as(String.join("\n", args)).isZero();
        assertThat(args).as("the server's main class and argument come last").endsWith("io.paduraksa.server.Main", "--version");
        return args;
    }
}
