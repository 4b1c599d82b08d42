package io.paduraksa.ops;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP (reload) and SIGTERM/SIGINT (graceful stop) through {@code sun.misc.Signal}, which works
 * on JDK 21+ without flags. If the JVM was started with SIGHUP ignored (as under {@code nohup}),
 * the JVM will not install a handler for it: that is detected and logged, since reloads would then
 * silently never happen.
 */
public final class Signals {
    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private Signals() {
    }

    /** Runs {@code action} on a new thread for every SIGHUP; returns false when SIGHUP cannot be handled. */
    public static boolean onHangup(Runnable action) {
        try {
            SignalHandler previous = Signal.handle(new Signal("HUP"), signal -> start("paduraksa-sighup", action));
            if (previous == SignalHandler.SIG_IGN) {
                LOG.warn("SIGHUP is ignored by this process (started under nohup?): the JVM installs no handler, "
                        + "so 'kill -HUP' will not reload; restart without nohup, or use systemd's ExecReload");
                return false;
            }
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("cannot handle SIGHUP: {}", e.getMessage());
            return false;
        }
    }

    /** Runs {@code action} once on SIGTERM or SIGINT (graceful stop) instead of the JVM's default exit. */
    public static void onTerminate(Runnable action) {
        SignalHandler handler = signal -> start("paduraksa-stop", action);
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), handler);
            } catch (IllegalArgumentException e) {
                LOG.warn("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
    }

    private static void start(String name, Runnable action) {
        Thread t = new Thread(action, name);
        t.setDaemon(false);
        t.start();
    }
}
