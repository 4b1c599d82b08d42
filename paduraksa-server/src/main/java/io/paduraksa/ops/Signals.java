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
 *
 * <p>Until a handler is installed the JVM's own SIGHUP handler exits the process (status 129), so
 * {@code run} calls {@link #catchHangupsEarly()} first, before the configuration is read and before
 * any listener binds. A SIGHUP that arrives before {@link #onHangup} names the reload is remembered
 * (several count as one) and the reload runs once the server serves, so a file changed during the
 * start is still picked up.
 */
public final class Signals {
    /** The one SIGHUP handler; {@code action} is null until the server serves. */
    private static final Hangup HANGUP = new Hangup();

    private Signals() {
    }

    /**
     * Installs the SIGHUP handler that remembers signals until {@link #onHangup}. Touches no logging
     * before the handler is in place (Logback's start-up takes long enough for a SIGHUP to slip in).
     * Returns false when SIGHUP cannot be handled (ignored, or refused by the JVM).
     */
    public static boolean catchHangupsEarly() {
        return HANGUP.install();
    }

    /** Runs {@code action} on a new thread for every SIGHUP; returns false when SIGHUP cannot be handled. */
    public static boolean onHangup(Runnable action) {
        boolean handled = HANGUP.install();
        if (!handled) {
            HANGUP.explain();
            return false;
        }
        HANGUP.action(action);
        return true;
    }

    /** Runs {@code action} once on SIGTERM or SIGINT (graceful stop) instead of the JVM's default exit. */
    public static void onTerminate(Runnable action) {
        SignalHandler handler = signal -> start("paduraksa-stop", action);
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), handler);
            } catch (IllegalArgumentException e) {
                log().warn("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
    }

    private static void start(String name, Runnable action) {
        Thread t = new Thread(action, name);
        t.setDaemon(false);
        t.start();
    }

    private static Logger log() {
        return LoggerFactory.getLogger(Signals.class);
    }

    /** The SIGHUP handler: starts the reload, or remembers the signal while there is none yet. */
    private static final class Hangup implements SignalHandler {
        /** Guarded by this: the reload, null until the server serves. */
        private Runnable action;
        /** Guarded by this: a SIGHUP came before {@code action}. */
        private boolean pending;
        /** 0: not tried, 1: installed, 2: ignored (nohup), 3: refused by the JVM. */
        private int state;
        private String refusal;

        synchronized boolean install() {
            if (state == 0) {
                try {
                    SignalHandler previous = Signal.handle(new Signal("HUP"), this);
                    state = previous == SignalHandler.SIG_IGN ? 2 : 1;
                } catch (IllegalArgumentException e) {
                    state = 3;
                    refusal = e.getMessage();
                }
            }
            return state == 1;
        }

        synchronized void explain() {
            if (state == 2) {
                log().warn("SIGHUP is ignored by this process (started under nohup?): the JVM installs no handler, "
                        + "so 'kill -HUP' will not reload; restart without nohup, or use systemd's ExecReload");
            } else if (state == 3) {
                log().warn("cannot handle SIGHUP: {}", refusal);
            }
        }

        /**
         * Names the reload. The JVM runs each signal's handler on a thread of its own, so two SIGHUPs
         * and this call can overlap: {@code action} and {@code pending} change together under the
         * lock, and a remembered signal is logged once and run once.
         */
        void action(Runnable next) {
            boolean remembered;
            synchronized (this) {
                action = next;
                remembered = pending;
                pending = false;
                if (remembered) {
                    log().info("SIGHUP received while starting: reloading now that the configuration serves");
                }
            }
            if (remembered) {
                start("paduraksa-sighup", next);
            }
        }

        @Override
        public void handle(Signal signal) {
            Runnable a;
            synchronized (this) {
                a = action;
                if (a == null && !pending) {
                    pending = true;
                    // under the lock, so that this line comes before the one action() writes
                    log().info("SIGHUP received while starting: the reload runs once the configuration serves");
                }
            }
            if (a != null) {
                start("paduraksa-sighup", a);
            }
        }
    }
}
