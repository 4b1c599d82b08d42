package io.paduraksa.policy.attack;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One exclusion: matches of {@code rules} (ids like 942100, or groups like 942; none: every rule)
 * in the query parameters or cookies named {@code arguments} (none: every part) on requests whose
 * normalised path is under one of {@code paths} (segment-aware prefixes; none: every path) do not
 * count. Compile-time object; its checks are 0 B.
 */
public final class AttackExclusion {
    private final int[] rules;
    private final byte[][] arguments;
    private final byte[][] paths;

    public AttackExclusion(List<Integer> rules, List<String> arguments, List<String> paths) {
        this.rules = rules.stream().mapToInt(Integer::intValue).toArray();
        this.arguments = bytes(arguments);
        this.paths = bytes(paths);
    }

    private static byte[][] bytes(List<String> values) {
        byte[][] out = new byte[values.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    /** The request's normalised path is under one of the paths (or none are given). */
    boolean appliesToPath(byte[] path, int length) {
        if (paths.length == 0) {
            return true;
        }
        for (byte[] prefix : paths) {
            if (isUnder(path, length, prefix)) {
                return true;
            }
        }
        return false;
    }

    /** {@code rule} matched in the argument {@code name[0, nameLength)} (nameLength -1: not an argument). */
    boolean covers(AttackRule rule, byte[] name, int nameLength) {
        return coversRule(rule) && coversArgument(name, nameLength);
    }

    private boolean coversRule(AttackRule rule) {
        if (rules.length == 0) {
            return true;
        }
        for (int r : rules) {
            if (r == rule.id() || r == rule.group()) {
                return true;
            }
        }
        return false;
    }

    private boolean coversArgument(byte[] name, int nameLength) {
        if (arguments.length == 0) {
            return true;
        }
        for (byte[] a : arguments) {
            if (a.length == nameLength && equals(a, name, nameLength)) {
                return true;
            }
        }
        return false;
    }

    private static boolean equals(byte[] a, byte[] b, int length) {
        for (int i = 0; i < length; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUnder(byte[] path, int length, byte[] prefix) {
        int n = prefix.length;
        if (n > 1 && prefix[n - 1] == '/') {
            n--;
        }
        if (length < n || (n == 1 && prefix[0] == '/')) {
            return length >= n;
        }
        for (int i = 0; i < n; i++) {
            if (path[i] != prefix[i]) {
                return false;
            }
        }
        return length == n || path[n] == '/';
    }
}
