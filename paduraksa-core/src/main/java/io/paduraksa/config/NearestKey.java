package io.paduraksa.config;

import java.util.Collection;

/**
 * Suggests the known key an unknown one was probably meant to be, so that {@code polices:} is
 * reported as {@code did you mean 'policies'?}. Distance is Damerau-Levenshtein (optimal string
 * alignment: a swap of two neighbours counts once); {@code trustedProxies} and
 * {@code Trusted-Proxies} match {@code trusted_proxies} outright.
 */
final class NearestKey {
    private NearestKey() {
    }

    /** The nearest known key, or null when none is close enough to be a plausible typo. */
    static String of(String unknown, Collection<String> known) {
        String folded = fold(unknown);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            if (fold(candidate).equals(folded)) {
                return candidate;
            }
            int d = distance(unknown.toLowerCase(java.util.Locale.ROOT), candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        int allowed = Math.max(1, Math.min(3, unknown.length() / 3));
        return bestDistance <= allowed ? best : null;
    }

    private static String fold(String key) {
        StringBuilder sb = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c != '_' && c != '-') {
                sb.append(Character.toLowerCase(c));
            }
        }
        return sb.toString();
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[a.length()][b.length()];
    }
}
