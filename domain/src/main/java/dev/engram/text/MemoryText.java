package dev.engram.text;

import java.util.regex.Pattern;

/**
 * Reading a memory's content: what of it are the user's own words. Shared by consolidation (an observation
 * states its statements' own words) and ranking (a statement an observation already states is left out).
 */
public final class MemoryText {

    /** The {@code (re: "…")} context an exchange episode carries at its end: the turn it answers. */
    private static final Pattern CONTEXT = Pattern.compile("\\s*\\(re: \".*\"\\)\\s*$", Pattern.DOTALL);

    private MemoryText() {
    }

    /**
     * @param content a statement's content
     * @return the statement without the {@code (re: "…")} context at its end: what an observation states of it
     */
    public static String ownWords(final String content) {
        return CONTEXT.matcher(content).replaceFirst("").strip();
    }
}
