package dev.engram.consolidation;

import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.port.ExtractedMemory;
import dev.engram.text.MemoryText;
import dev.engram.text.TurnHeuristics;

/**
 * The part of an outdated episode that is still current, read from its text and the old values that outdated it
 * ({@link Memory#getOutdatedValues}, written by {@link Outdated#mark}): the read side of sentence-level outdating, kept
 * apart from the marking rules. Stateless, thread-safe.
 */
public final class OutdatedPart {

    /** Where a sentence of the user's own words splits into clauses: after a comma, semicolon or colon, at a dash. */
    private static final Pattern CLAUSE_END = Pattern.compile("(?<=[,;:])\\s+|(?<=[\uFF0C\uFF1B\uFF1A\u3001])\\s*|\\s+[\u2014\u2013-]\\s+");
    /** Words that lean on what was said before them ("I love it there"): a clause holding one says nothing alone. */
    private static final Pattern LEANS_BACK = Pattern.compile("(?<![\\p{L}'])(?:it|it's|its|there|here|they|them|he|she"
        + "|him|her|that's)(?![\\p{L}'])", Pattern.CASE_INSENSITIVE);

    /**
     * A relative clause ("where I live", "which I love", "who I work with"): it says something of the clause before it
     * and nothing alone, so once that clause is outdated ("Greetings from Graz, where I live." after a move) it is no
     * current part.
     */
    private static final Pattern RELATIVE = Pattern.compile("^(?:and\\s+|but\\s+)?(?:where|which|who|whom|whose|wherein"
        + "|whereby)(?![\\p{L}'])", Pattern.CASE_INSENSITIVE);

    private OutdatedPart() {
    }

    /**
     * What of an outdated memory is still current: the clauses of the user's own words (an episode's turn without the
     * {@code (re: "…")} question it answered, an exchange's turn without the assistant's reply, which answered the
     * whole turn) that state none of the values that outdated it ({@link Memory#getOutdatedValues}) and carry content
     * of their own: first person ({@link TurnHeuristics#isFirstPerson}), neither small talk nor a question, not leaning
     * on what came before ("I love it there", a relative clause: "where I live" of "Greetings from Graz, where I live."
     * after a move from Graz). "I love sushi, any good places in Lisbon?" outdated by the city's
     * change from Lisbon still says "I love sushi"; "I live in Lisbon and cycle to work" (one clause) says nothing
     * current. Clauses end at a sentence end, a comma, a semicolon, a colon or a dash ({@link #CLAUSE_END}).
     *
     * @param memory a memory
     * @return the clauses still current, each ending with a sentence mark, joined by a space; null when the memory is
     *     not outdated, was outdated whole (no values: a correction reaching the sentence the fact was read from, a
     *     mark written before the values were kept), is not an episode of the user's words (a summary, an observation,
     *     a fact) or has no such clause
     */
    public static String currentPart(final Memory memory) {
        if (!Outdated.isOutdated(memory) || memory.getOutdatedValues().isEmpty() || memory.getType() != MemoryType.EPISODIC
            || ExtractedMemory.isSummary(memory.getType(), memory.getDisplayName())
            || ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName())) {
            return null;
        }
        final String turn = MemoryText.exchangeTurn(memory.getContent());
        final String own = turn != null ? turn : MemoryText.ownWords(memory.getContent());
        final StringBuilder kept = new StringBuilder();
        for (final String sentence : TurnHeuristics.sentences(TurnHeuristics.withoutImage(own))) {
            for (final String part : CLAUSE_END.split(sentence)) {
                final String clause = part.strip().replaceAll("[,;:\uFF0C\uFF1B\uFF1A\u3001\\s]+$", "");
                if (!clause.isEmpty() && !TurnHeuristics.isQuestion(clause) && !TurnHeuristics.isSmallTalk(clause)
                    && TurnHeuristics.isFirstPerson(clause) && !LEANS_BACK.matcher(clause).find()
                    && !RELATIVE.matcher(clause).find()
                    && memory.getOutdatedValues().stream().noneMatch(v -> Outdated.states(clause, v))) {
                    final boolean ended = ".!\u3002\uFF01".indexOf(clause.charAt(clause.length() - 1)) >= 0;
                    final boolean han = clause.codePoints().anyMatch(TurnHeuristics::unspacedScript);
                    kept.append(kept.length() == 0 ? "" : " ").append(clause).append(ended ? "" : han ? "\u3002" : ".");
                }
            }
        }
        return kept.length() == 0 ? null : kept.toString();
    }

}
