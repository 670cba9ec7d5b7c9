package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.port.MemoryMerger;
import dev.engram.text.MemoryText;

/**
 * The text of an observation ({@link Observations}, "Text"): each statement's own words as a sentence, in order, each
 * once, up to {@link MemoryMerger#MAX_CHARS}, without a fact that another statement of the group says in the user's
 * words; and which statements the text voices (the observation's vector is their centroid).
 */
final class ObservationText {

    /** Ends a sentence, before closing quotes and brackets (a caption's {@code ]} is not one: it ends a phrase). */
    private static final String TERMINAL = ".!?\u2026\u3002\uFF01\uFF1F";
    private static final String CLOSING = "\"'\u201D\u2019)\u300D";

    private ObservationText() {
    }

    /**
     * An observation's text and the statements it voices.
     *
     * @param text each voiced statement's own words as a sentence, in order
     * @param statements the statements whose sentence the text holds (a statement whose sentence is empty, already
     *     in the text, a fact restated by a voiced statement, or beyond {@link MemoryMerger#MAX_CHARS} is not voiced)
     */
    record Voiced(String text, List<Memory> statements) {
    }

    /**
     * @param statements the statements of a group, in order
     * @return the text of {@link Observations#text} and the statements it voices, in order; a fact another statement of the group
     *     restates in the user's words ({@link ObservationGrouping#restatedFacts}: "Has a dog named Max" beside "I have
     *     a dog named Max") is not voiced while that statement is
     */
    static Voiced voiced(final List<Memory> statements) {
        final Map<Integer, List<Integer>> restated = ObservationGrouping.restatedFacts(statements);
        while (true) {
            final Voiced voiced = voiced(statements, restated.keySet());
            final Set<Memory> told = Collections.newSetFromMap(new IdentityHashMap<>());
            told.addAll(voiced.statements());
            // a fact is left out only while a statement saying it is in the text (not cut by the length bound)
            if (!restated.values().removeIf(by -> by.stream().noneMatch(i -> told.contains(statements.get(i))))) {
                return voiced;
            }
        }
    }

    private static Voiced voiced(final List<Memory> statements, final Set<Integer> leftOut) {
        final StringBuilder text = new StringBuilder();
        final List<Memory> voiced = new ArrayList<>(statements.size());
        for (int i = 0; i < statements.size(); i++) {
            final Memory m = statements.get(i);
            final String sentence = sentence(MemoryText.ownWords(m.getContent()));
            if (sentence.isEmpty() || leftOut.contains(i) || text.indexOf(sentence) >= 0
                || text.length() + sentence.length() + 1 > MemoryMerger.MAX_CHARS) {
                continue;
            }
            text.append(text.length() == 0 ? "" : " ").append(sentence);
            voiced.add(m);
        }
        return new Voiced(text.toString(), voiced);
    }

    /** The words with a period at the end unless they end with terminal punctuation (before closing quotes). */
    static String sentence(final String words) {
        int end = words.length();
        while (end > 0 && CLOSING.indexOf(words.charAt(end - 1)) >= 0) {
            end--;
        }
        return end == 0 || TERMINAL.indexOf(words.charAt(end - 1)) >= 0 ? words : words + ".";
    }
}
