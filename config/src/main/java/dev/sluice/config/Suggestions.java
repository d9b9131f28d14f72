package dev.sluice.config;

import java.util.Collection;

/** "Did you mean" helper: the closest known word by edit distance, when it is close enough. */
public final class Suggestions {
    private Suggestions() {
    }

    /** Returns the closest candidate to {@code word}, or null when none is plausibly meant. */
    public static String closest(String word, Collection<String> candidates) {
        String best = null;
        int bestDist = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(word, c);
            if (d < bestDist) {
                bestDist = d;
                best = c;
            }
        }
        if (best == null) {
            return null;
        }
        int limit = Math.max(1, Math.min(3, word.length() / 3));
        if (bestDist <= limit || (word.length() >= 4 && (best.startsWith(word) || best.contains(word)))) {
            return best;
        }
        return null;
    }

    /** Damerau-Levenshtein (optimal string alignment) distance. */
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
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }

    /** Formats the HAProxy 3.x style suffix, or an empty string. */
    static String didYouMean(String suggestion) {
        return suggestion == null ? "" : "; did you mean '" + suggestion + "' maybe ?";
    }
}
