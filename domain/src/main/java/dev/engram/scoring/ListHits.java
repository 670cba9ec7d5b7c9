package dev.engram.scoring;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.port.ExtractedMemory;
import dev.engram.text.MemoryText;

/**
 * The list rule of {@code retrieval.skip.observed} ({@link HybridScorer#forList}): what a list of hits leaves out
 * or replaces because a hit above it already says it.
 *
 * <ul>
 *   <li>A hit that an observation ranked above it states word for word (its own words, {@link MemoryText#ownWords}:
 *       without the {@code (re: "…")} question it answered, which an observation leaves out) is left out; the next
 *       hit takes its place.</li>
 *   <li>An exchange episode ({@code User: … — Assistant: …}, {@link ExtractedMemory#isExchange}) whose user turn
 *       ({@link MemoryText#exchangeTurn}) an episodic statement above it is word for word takes that statement's
 *       place: it says the same and the reply.</li>
 * </ul>
 * Stateless; the comparison is exact string containment / equality (no normalisation).
 */
final class ListHits {

    private ListHits() {
    }

    /**
     * @param ranked a ranking, best first (not modified)
     * @param k how many hits at most, ≥ 1
     * @return the first k of {@code ranked} without the hits an observation above them states word for word; an
     *     exchange episode whose user turn a statement above it is, word for word, in that statement's place
     */
    static List<ScoredMemory> withoutObserved(final List<ScoredMemory> ranked, final int k) {
        final List<ScoredMemory> out = new ArrayList<>(Math.min(k, ranked.size()));
        final List<String> observed = new ArrayList<>();
        final List<String> stated = new ArrayList<>();
        for (final ScoredMemory hit : ranked) {
            if (out.size() == k) {
                break;
            }
            final Memory m = hit.memory();
            final String own = MemoryText.ownWords(m.getContent());
            if (ExtractedMemory.isObservation(m.getType(), m.getDisplayName())) {
                observed.add(m.getContent());
            } else if (observed.stream().anyMatch(o -> o.contains(own))) {
                continue;
            } else if (ExtractedMemory.isExchange(m.getDisplayName())) {
                // the turn and its reply: it says all the statement of the turn above says, so it takes that place
                final String turn = MemoryText.exchangeTurn(m.getContent());
                final int at = turn == null ? -1 : stated.indexOf(turn);
                if (at >= 0) {
                    out.set(at, hit);
                    stated.set(at, null);
                    continue;
                }
            } else if (m.getType() == MemoryType.EPISODIC
                && !ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
                stated.add(own);
                out.add(hit);
                continue;
            }
            stated.add(null);
            out.add(hit);
        }
        return out;
    }
}
