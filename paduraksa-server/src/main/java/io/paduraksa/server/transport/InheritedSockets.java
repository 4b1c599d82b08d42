package io.paduraksa.server.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Listening sockets handed to this process by systemd socket activation ({@code sd_listen_fds(3)}):
 * {@code LISTEN_PID} must be this process, {@code LISTEN_FDS} counts the descriptors, which start at
 * 3, and {@code LISTEN_FDNAMES} (optional) names them, colon-separated ({@code FileDescriptorName=}
 * in the socket unit; systemd's default is the socket unit's name).
 *
 * <p>Read once at start; nothing here is on the request path. Java cannot unset environment
 * variables, so they stay set; the {@code LISTEN_PID} check keeps any child process from taking them.
 */
public final class InheritedSockets {
    /** The first descriptor systemd passes ({@code SD_LISTEN_FDS_START}). */
    public static final int FIRST_FD = 3;

    /** One inherited descriptor and its name ({@code null} when the environment names none). */
    public record Socket(int fd, String name) {
    }

    private static final InheritedSockets NONE = new InheritedSockets(List.of(), null);

    private final List<Socket> sockets;
    /** Why the environment's sockets were not taken (e.g. another process's LISTEN_PID), or null. */
    private final String ignored;

    private InheritedSockets(List<Socket> sockets, String ignored) {
        this.sockets = List.copyOf(sockets);
        this.ignored = ignored;
    }

    /** No inherited sockets: every listener is bound. */
    public static InheritedSockets none() {
        return NONE;
    }

    /** The given descriptors (tests: a socket this JVM opened, at whatever number it got). */
    public static InheritedSockets of(List<Socket> sockets) {
        return new InheritedSockets(sockets, null);
    }

    /** The sockets systemd (or a launcher doing the same) passed to process {@code pid}. */
    public static InheritedSockets fromEnvironment(Map<String, String> env, long pid) {
        return parse(env, pid, FIRST_FD);
    }

    /**
     * As {@link #fromEnvironment}, the descriptors counted from {@code firstFd}.
     *
     * @throws IllegalArgumentException when {@code LISTEN_PID} is this process but {@code LISTEN_FDS} is not a count
     */
    static InheritedSockets parse(Map<String, String> env, long pid, int firstFd) {
        String count = env.get("LISTEN_FDS");
        if (count == null || count.isEmpty()) {
            return NONE;
        }
        String forPid = env.get("LISTEN_PID");
        if (forPid == null || !forPid.trim().equals(Long.toString(pid))) {
            return new InheritedSockets(List.of(), "LISTEN_FDS=" + count + " is for pid " + forPid + ", not this process (" + pid + ')');
        }
        int n;
        try {
            n = Integer.parseInt(count.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("LISTEN_FDS is not a number: '" + count + "'");
        }
        if (n < 0) {
            throw new IllegalArgumentException("LISTEN_FDS is negative: " + n);
        }
        String namesText = env.get("LISTEN_FDNAMES");
        String[] names = namesText == null ? new String[0] : namesText.split(":", -1);
        List<Socket> sockets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = names.length == n && !names[i].isEmpty() ? names[i] : null;
            sockets.add(new Socket(firstFd + i, name));
        }
        return new InheritedSockets(sockets, null);
    }

    public List<Socket> sockets() {
        return sockets;
    }

    public boolean isEmpty() {
        return sockets.isEmpty();
    }

    /** Why the environment's sockets were not taken, or null (none offered, or taken). */
    public String ignored() {
        return ignored;
    }
}
