package dev.engram.rules;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryType;
import dev.engram.consolidation.Facts;
import dev.engram.core.MemoryIds;
import dev.engram.core.ValueAliases;
import dev.engram.port.ContradictionJudge;

/**
 * The embedded {@link ContradictionJudge}: rules over fact keys, values and negation cues, no model.
 *
 * <ul>
 *   <li>both facts of one key: a negated candidate stating the existing value → CONTRADICTS, a
 *       negated candidate of another value → COMPATIBLE; otherwise the same value (normalized, and
 *       the same numbers when both contents carry numbers) → SAME, a different one → CONTRADICTS;</li>
 *   <li>facts of different keys → COMPATIBLE;</li>
 *   <li>otherwise (at least one side is not a keyed fact): a negated candidate whose value appears
 *       in the existing content → CONTRADICTS; one side phrased as a negation or aversion and the
 *       other not ("Sushi is my favourite" / "I can't stand sushi anymore") → CONTRADICTS, unless
 *       both are EPISODIC: an episode is an event at its time, and a later event never makes an
 *       earlier one untrue (on LoCoMo the polarity cue archived 87 similar but unrelated turns);
 *       otherwise COMPATIBLE.</li>
 * </ul>
 * The caller only asks about pairs that are already close (the 0.7–0.9 cosine band), so topical
 * overlap is given; the similarity itself is not used. Stateless and thread-safe.
 */
public final class KeyValueContradictionJudge implements ContradictionJudge {

    @Override
    public Verdict judge(final Memory existing, final MemoryCandidate candidate, final double similarity) {
        final String existingKey = existing.getKey();
        final String candidateKey = candidate.getKey();
        if (Facts.sameKey(existingKey, candidateKey)) {
            final boolean sameValue = Facts.sameValue(existing.getValue(), existing.getContent(),
                candidate.getValue(), candidate.getContent());
            if (candidate.getNegated()) {
                return ValueAliases.fold(existing.getValue()).equals(ValueAliases.fold(candidate.getValue()))
                    ? Verdict.CONTRADICTS : Verdict.COMPATIBLE;
            }
            return sameValue ? Verdict.SAME : Verdict.CONTRADICTS;
        }
        if (existingKey != null && candidateKey != null) {
            return Verdict.COMPATIBLE;
        }
        if (candidate.getNegated() && candidate.getValue() != null
            && MemoryIds.fold(existing.getContent()).contains(MemoryIds.fold(candidate.getValue()))) {
            return Verdict.CONTRADICTS;
        }
        final boolean bothEpisodes = existing.getType() == MemoryType.EPISODIC
            && candidate.getType() == MemoryType.EPISODIC;
        if (!bothEpisodes && Facts.isNegative(existing.getContent()) != Facts.isNegative(candidate.getContent())) {
            return Verdict.CONTRADICTS;
        }
        return Verdict.COMPATIBLE;
    }
}
