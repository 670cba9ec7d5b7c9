package dev.engram.scoring;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;

/**
 * Drops a hit that a better hit already says, so the top k carries k different things.
 *
 * <p>A hit is <em>redundant</em> with a better-ranked one when both hold:
 * <ol>
 *   <li>every source message it cites (conversation id and message index) is cited by the better hit, and</li>
 *   <li>its text, without a trailing parenthetical remark, is inside the better hit's text; texts are compared
 *       lower-cased with every run of punctuation, symbols and white space folded to one space.</li>
 * </ol>
 * The typical case: the offline extractor stores a user turn as an episode ({@code "<turn> (re: "<question>")"})
 * and, when the reply adds something, the exchange {@code "User: <turn> — Assistant: <reply>"}; below the exchange,
 * the turn's own episode tells the model nothing new and cites nothing new. The trailing parenthetical is the
 * turn's question context, which the exchange does not repeat. Two facts from one sentence ("lives in Berlin",
 * "works at SAP") share their source but not their text, so both stay. The test reads the sources first, so the
 * texts are folded only for the few hits that share every source with a better one.
 */
final class Redundancy {

    private static final Pattern TRAILING_PARENTHETICAL = Pattern.compile("\\s*\\([^()]*\\)\\s*$");
    private static final Pattern FOLD = Pattern.compile("[\\p{P}\\p{S}\\s]+");

    private Redundancy() {
    }

    /**
     * @param ranked hits, best first
     * @param k how many to keep, ≥ 1
     * @return the first k hits of {@code ranked} that are not redundant with an earlier kept hit, in order
     */
    static List<ScoredMemory> firstDistinct(final List<ScoredMemory> ranked, final int k) {
        final List<ScoredMemory> kept = new ArrayList<>(Math.min(k, ranked.size()));
        final List<String> keptText = new ArrayList<>(Math.min(k, ranked.size()));
        for (final ScoredMemory hit : ranked) {
            if (kept.size() == k) {
                break;
            }
            String core = null;
            boolean redundant = false;
            for (int i = 0; i < kept.size() && !redundant; i++) {
                if (!citedBy(hit.memory(), kept.get(i).memory())) {
                    continue;
                }
                if (core == null) {
                    core = fold(TRAILING_PARENTHETICAL.matcher(hit.memory().getContent()).replaceFirst(""));
                }
                if (keptText.get(i) == null) {
                    keptText.set(i, fold(kept.get(i).memory().getContent()));
                }
                redundant = !core.isEmpty() && keptText.get(i).contains(core);
            }
            if (!redundant) {
                kept.add(hit);
                keptText.add(null);
            }
        }
        return kept;
    }

    /** @return whether every source message of {@code memory} is among {@code better}'s sources */
    private static boolean citedBy(final Memory memory, final Memory better) {
        if (memory.getSources().isEmpty()) {
            return false;
        }
        for (final SourceRef ref : memory.getSources()) {
            boolean found = false;
            for (final SourceRef other : better.getSources()) {
                if (other.getConversationId().equals(ref.getConversationId())
                    && other.getMessageIndexes().containsAll(ref.getMessageIndexes())) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    private static String fold(final String text) {
        return text == null ? "" : FOLD.matcher(text.toLowerCase(Locale.ROOT)).replaceAll(" ").strip();
    }
}
