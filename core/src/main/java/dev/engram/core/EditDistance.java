package dev.engram.core;

/**
 * The optimal string alignment distance of two strings (Damerau–Levenshtein restricted so that no substring is
 * edited twice): insertions, deletions, substitutions and swaps of two neighbouring characters, each one edit
 * (Damerau 1964; Boytsov 2011, "Indexing methods for approximate dictionary searching"). Counted in UTF-16 chars,
 * O(length a × length b) time and space. Used to name the closest setting to a misspelt one and to tell a mistyped
 * value from its correction.
 */
public final class EditDistance {

    private EditDistance() {
    }

    /**
     * @param a a string
     * @param b another string
     * @return the number of edits turning {@code a} into {@code b}, 0 when equal
     */
    public static int of(final String a, final String b) {
        final int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
