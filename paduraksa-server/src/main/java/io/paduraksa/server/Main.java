package io.paduraksa.server;

import io.netty.util.ResourceLeakDetector;
import io.paduraksa.config.ConfigError;
import io.paduraksa.config.ConfigException;
import io.paduraksa.gate.GateOutcome;
import io.paduraksa.ops.Signals;
import io.paduraksa.ops.SystemdNotifier;
import io.netty.buffer.PooledByteBufAllocator;
import io.paduraksa.config.ConfigLoader;
import io.paduraksa.config.LoadedConfig;
import io.paduraksa.snapshot.SnapshotCompiler;
import io.paduraksa.ops.ratelimit.RedisRateLimitSync;
import io.paduraksa.policy.RateLimiters;
import io.paduraksa.snapshot.Snapshot;
import io.paduraksa.server.transport.InheritedSockets;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.slf4j.LoggerFactory;

/**
 * The {@code paduraksa} command line: {@code run}, {@code check}, {@code explain}, {@code --version},
 * {@code --help}. Exit codes: 0 success, 1 invalid configuration or failed start, 2 usage error.
 */
public final class Main {
    static final String USAGE = """
            Usage:
              paduraksa run --config FILE          start the server
                  [--takeover-socket PATH]         hand the listening sockets to a new process over PATH
                                                   (default: server.takeover_socket in the file, if set)
                  [--takeover]                     take them from the server listening on PATH, then stop it
              paduraksa check --config FILE        validate a configuration (exit 0 when valid)
              paduraksa explain --config FILE [--peer IP] [-H 'Name: value' ...] METHOD URL
                                                   show what the gate decides for one request, and why
              paduraksa --version | --help
            URL is http://host[:port]/path?query, or /path with -H 'Host: name'. --peer defaults to 127.0.0.1.
            """;

    private Main() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("run")) {
            // First of all: until a SIGHUP handler is installed, the JVM's own one exits the process (status 129).
            Signals.catchHangupsEarly();
        }
        if (!leakDetectionAsked(System.getProperties())) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        int code = run(args, System.out, System.err);
        if (code != 0 || args.length == 0 || !args[0].equals("run")) {
            System.exit(code);
        }
    }

    /**
     * Whether the operator chose a Netty leak-detection level. Without a choice the process runs with
     * detection off: Netty's default (SIMPLE) wraps one buffer in 128 and, when it is released, records
     * a stack trace, about 5 KB each. With the answer buffer of every gate-answered HTTP/1.1 request
     * that was the whole 48 B per request the process allocated under wrk (JFR: {@code Object[]} from
     * {@code Throwable.fillInStackTrace} under {@code ResourceLeakDetector$TraceRecord}, released by
     * {@code ChannelOutboundBuffer.remove} after the flush of {@code Http1GateHandler}). Set
     * {@code -Dio.netty.leakDetection.level=simple} (or paranoid) to hunt a leak. Only {@link #main}
     * applies it, so that tests calling {@link #run} keep their own level.
     */
    static boolean leakDetectionAsked(Properties system) {
        return system.getProperty("io.netty.leakDetection.level") != null || system.getProperty("io.netty.leakDetectionLevel") != null;
    }

    /** Runs a command; {@code run} returns once the server is up (it keeps running on its threads). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            (args.length == 0 ? err : out).print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        if (args[0].equals("--version") || args[0].equals("version")) {
            out.println("paduraksa " + version());
            return 0;
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("paduraksa: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        return switch (o.command) {
            case "check" -> check(o, out, err);
            case "explain" -> explain(o, out, err);
            case "run" -> serve(o, err);
            default -> {
                err.println("paduraksa: unknown command '" + o.command + "' (expected run, check or explain)");
                yield 2;
            }
        };
    }

    private static Snapshot load(Options o, PrintStream err) {
        try {
            LoadedConfig config = ConfigLoader.load(o.config);
            Snapshot snapshot = SnapshotCompiler.compile(config, PooledByteBufAllocator.DEFAULT);
            List<ConfigError> tls = TlsCheck.errors(config);
            if (!tls.isEmpty()) {
                snapshot.release();
                throw new ConfigException(tls);
            }
            return snapshot;
        } catch (ConfigException e) {
            for (ConfigError error : e.errors()) {
                err.println(error);
            }
            err.println(o.config + ": " + e.errors().size() + (e.errors().size() == 1 ? " error" : " errors"));
            return null;
        } catch (IOException e) {
            err.println("paduraksa: cannot read " + o.config + ": " + e.getMessage());
            return null;
        }
    }

    private static int check(Options o, PrintStream out, PrintStream err) {
        Snapshot s = load(o, err);
        if (s == null) {
            return 1;
        }
        out.println(o.config + ": ok (" + s.hostList().size() + " hosts, " + s.policies().size() + " policies, "
                + s.clusters().size() + " clusters, " + s.spec().listeners().size() + " listeners)");
        s.release();
        return 0;
    }

    private static int explain(Options o, PrintStream out, PrintStream err) {
        if (o.positional.size() != 2) {
            err.println("paduraksa: explain needs METHOD and URL");
            err.print(USAGE);
            return 2;
        }
        Snapshot s = load(o, err);
        if (s == null) {
            return 1;
        }
        try {
            GateOutcome outcome = Explain.run(out, s, o.peer, o.headers, o.positional.get(0), o.positional.get(1));
            return outcome == null ? 1 : 0;
        } catch (IllegalArgumentException e) {
            err.println("paduraksa: " + e.getMessage());
            return 2;
        } finally {
            s.release();
        }
    }

    private static int serve(Options o, PrintStream err) {
        LoggerFactory.getLogger(Main.class).info("paduraksa {} starting: pid {}, config {}", version(), ProcessHandle.current().pid(),
                o.config);
        // Before the first compile: distributed rate limits share their counts through Redis from then on.
        RateLimiters.syncWith(new RedisRateLimitSync());
        Snapshot s = load(o, err);
        if (s == null) {
            return 1;
        }
        // --takeover-socket wins over server.takeover_socket, so a hand-over can move to another path.
        String configured = s.spec().server().takeoverSocket();
        Path handOver = o.takeoverSocket != null ? o.takeoverSocket : configured == null ? null : Path.of(configured);
        if (o.takeover && handOver == null) {
            s.release();
            err.println("paduraksa: --takeover needs --takeover-socket PATH or server.takeover_socket in " + o.config);
            return 2;
        }
        try {
            InheritedSockets inherited = InheritedSockets.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
            Takeover.Received from = null;
            if (o.takeover) {
                from = Takeover.receive(handOver);
                inherited = from.sockets();
            }
            EdgeServer server = EdgeServer.start(o.config, s, null, null, inherited);
            server.installSignalHandlers();
            if (handOver != null && from == null) {
                server.acceptTakeovers(handOver);
            }
            server.ready(SystemdNotifier.fromEnvironment(System.getenv(), ProcessHandle.current().pid()));
            if (from != null) {
                Takeover.retire(from.fromPid());
                // The old process's hand-over socket file goes when its stop begins (Netty unlinks it on close).
                Takeover.awaitRelease(handOver, from.fromPid());
                server.acceptTakeovers(handOver);
            }
            return 0;
        } catch (Exception e) {
            err.println("paduraksa: cannot start: " + e.getMessage());
            return 1;
        }
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "development build" : v;
    }

    /** Parsed command-line options. */
    static final class Options {
        String command;
        Path config;
        String peer = "127.0.0.1";
        Path takeoverSocket;
        boolean takeover;
        final List<String> headers = new ArrayList<>();
        final List<String> positional = new ArrayList<>();

        static Options parse(String[] args) {
            Options o = new Options();
            o.command = args[0];
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--config", "-c" -> o.config = Path.of(value(args, ++i, a));
                    case "--peer" -> o.peer = value(args, ++i, a);
                    case "--takeover-socket" -> o.takeoverSocket = Path.of(value(args, ++i, a));
                    case "--takeover" -> o.takeover = true;
                    case "-H", "--header" -> o.headers.add(value(args, ++i, a));
                    default -> {
                        if (a.startsWith("--config=")) {
                            o.config = Path.of(a.substring("--config=".length()));
                        } else if (a.startsWith("-") && a.length() > 1 && o.positional.isEmpty()) {
                            throw new IllegalArgumentException("unknown option '" + a + "'");
                        } else {
                            o.positional.add(a);
                        }
                    }
                }
            }
            if (o.config == null) {
                throw new IllegalArgumentException(o.command + " needs --config FILE");
            }
            if (!Files.isRegularFile(o.config)) {
                throw new IllegalArgumentException("no such file: " + o.config);
            }
            return o;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
