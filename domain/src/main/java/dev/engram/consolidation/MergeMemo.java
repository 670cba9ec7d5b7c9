package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;

/**
 * What one user's previous merge pass ({@link MemoryMerges}, rule 3 of {@link MemoryLifecycle}) established, so that
 * the next pass compares only the pairs it has to: the memories that pass left unmerged (its <b>singletons</b>), each
 * with everything the pair check reads of it (type, embedding model, vector, content, the conversations of its
 * sources). Not thread-safe: one per user, used by one task's lifecycle passes in turn.
 *
 * <p><b>Why the pass's result does not change.</b> The merge rule is complete-link clustering seeded in memory-id
 * order: for each seed not yet taken, every later memory not yet taken joins when the pair check (the time-independent
 * conjunction of {@code MemoryMerges#similarToAll}: same type, model and size, similarity at the threshold, no shared
 * conversation, the same identifiers) passes against every member so far. Take two singletons y &lt; w of a pass: at
 * seed y the cluster stayed {y}, and w, never taken, was checked against it, so the pair (w, y) failed the check. A
 * later pass that meets both with the same check inputs gets the same answer from the same pure function of them, so
 * it may take that answer without computing it: the pass runs the same loop in the same order and only skips a
 * candidate that is a singleton of the previous pass when the cluster already holds one (the conjunction is false).
 * The rules before the merge (TTL, staleness) only take memories out, which keeps any two of the rest dissimilar; a
 * memory new, changed (in anything the check reads: compared exactly, not by a hash) or back from archive is no
 * singleton of the memo and is compared with everything, as is the merged memory a cluster leaves. By induction the
 * argument also holds for singletons of a pass that itself skipped pairs. So the changes are those of a full pass,
 * whatever the memo holds: a memo lost with a restart, a rebalance or a rebuild (an empty one) gives a full pass and the
 * same result, and nothing of it needs a changelog. The memo must be used with one {@link MemoryLifecycle.Settings}
 * (threshold and similarity scale): the caller keeps it in memory next to the lifecycle it serves.
 *
 * <p>Size: one vector per singleton (the array the pass made of it anyway), about what the pass reads per memory.
 */
public final class MergeMemo {

    /** What the pair check reads of one memory. */
    private record Inputs(MemoryType type, String model, String content, float[] vector, List<String> conversations) {

        static Inputs of(final Memory memory, final float[] vector) {
            return new Inputs(memory.getType(), memory.getEmbeddingModel(), memory.getContent(), vector,
                conversations(memory));
        }

        /** Whether {@code memory}, whose vector the pass made as {@code vector}, gives the check the same inputs. */
        boolean sameAs(final Memory memory, final float[] other) {
            return type == memory.getType() && Objects.equals(model, memory.getEmbeddingModel())
                && Objects.equals(content, memory.getContent()) && Arrays.equals(vector, other)
                && conversations.equals(conversations(memory));
        }

        private static List<String> conversations(final Memory memory) {
            final List<String> ids = new ArrayList<>(memory.getSources().size());
            for (final SourceRef source : memory.getSources()) {
                ids.add(source.getConversationId());
            }
            return ids;
        }
    }

    private Map<String, Inputs> singletons = Map.of();

    /** @return an empty memo: the next pass compares every pair (a full pass) */
    public static MergeMemo empty() {
        return new MergeMemo();
    }

    /** @return how many memories the previous pass left unmerged (0 for an empty memo) */
    public int size() {
        return singletons.size();
    }

    /**
     * @param memory a mergeable memory of this pass
     * @param vector its vector as the pass made it
     * @return whether it was a singleton of the previous pass with the same check inputs
     */
    boolean settled(final Memory memory, final float[] vector) {
        final Inputs inputs = singletons.get(memory.getMemoryId());
        return inputs != null && inputs.sameAs(memory, vector);
    }

    /**
     * Replaces the memo with this pass's singletons.
     *
     * @param mergeable the pass's mergeable memories, in memory-id order
     * @param vectors their vectors, as the pass made them
     * @param merged whether each was taken into a cluster of two or more
     */
    void remember(final List<Memory> mergeable, final float[][] vectors, final boolean[] merged) {
        final Map<String, Inputs> next = new HashMap<>();
        for (int i = 0; i < vectors.length; i++) {
            if (!merged[i]) {
                next.put(mergeable.get(i).getMemoryId(), Inputs.of(mergeable.get(i), vectors[i]));
            }
        }
        singletons = next;
    }
}
