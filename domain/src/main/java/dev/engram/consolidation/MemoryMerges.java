package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryMerger;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.Vectors;

/**
 * Rule 3 of {@link MemoryLifecycle} (see its class comment): ACTIVE memories without a fact key whose embeddings
 * reach the merge threshold with every other member (complete link, seeded in memory-id order, so deterministic)
 * become one MERGED memory under the oldest member's id; the others are ARCHIVED with reason MERGED. Thread-safe
 * if the merger is.
 */
final class MemoryMerges {

    private final MemoryLifecycle.Settings settings;
    private final MemoryMerger merger;

    /**
     * @param settings the merge threshold and the similarity scale
     * @param merger writes a merged memory's content
     */
    MemoryMerges(final MemoryLifecycle.Settings settings, final MemoryMerger merger) {
        this.settings = settings;
        this.merger = merger;
    }

    /**
     * The merge rule over a pass's ACTIVE memories.
     *
     * @param active the memories the earlier rules left ACTIVE, in memory-id order
     * @param now the event time of the pass
     * @param access the user's retrieval hits
     * @param memo the user's previous pass ({@link MergeMemo}: a pair of two of its singletons is known to fail the
     *     check and is not compared again); replaced with this pass's singletons; an empty one compares every pair
     * @return ARCHIVED (reason MERGED) changes of the absorbed members and one MERGED change per cluster
     */
    List<Consolidator.Change> merge(final List<Memory> active, final Instant now, final AccessCounts.Lookup access,
                                    final MergeMemo memo) {
        if (settings.mergeThreshold() >= 1.0) {
            memo.remember(List.of(), new float[0][], new boolean[0]);
            return List.of();
        }
        final List<Memory> mergeable = active.stream().filter(m -> m.getKey() == null
            && !ExtractedMemory.isSummary(m.getType(), m.getDisplayName()) && !Outdated.isOutdated(m)).toList();
        // per memory once, not per pair: the pass is quadratic in a user's memories and runs in one transaction
        final float[][] vectors = new float[mergeable.size()][];
        final float[][] units = new float[mergeable.size()][];
        final double[] norms = new double[mergeable.size()];
        final double[] minCosines = new double[mergeable.size()];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = Vectors.toArray(mergeable.get(i).getEmbedding());
            norms[i] = Math.sqrt(Vectors.dot(vectors[i], vectors[i]));
            units[i] = Vectors.normalized(vectors[i]);
            // similarity = (cosine − floor) / (1 − floor) reaches the threshold only from this cosine on (less a
            // margin for rounding): a pair below it is rejected with one dot product and no scale lookup
            final double floor = settings.scale().floor(mergeable.get(i).getEmbeddingModel());
            minCosines[i] = floor < 1 ? floor + settings.mergeThreshold() * (1 - floor) - 1e-9 : Double.NEGATIVE_INFINITY;
        }
        final Pass pass = new Pass(mergeable, vectors, units, norms, minCosines);
        // Read lazily, once per memory and pass: the regex scan of Facts#identifiers over every pair was most of
        // the consolidator's CPU in bench ingest (JFR), while the cosine rejects nearly every pair first.
        final List<Set<String>> identifiers = new ArrayList<>(Collections.nCopies(mergeable.size(), null));
        // singletons of the previous pass with the same check inputs: no two of them pass the check (MergeMemo)
        final boolean[] settled = new boolean[mergeable.size()];
        final int[] unsettled = new int[mergeable.size()];
        int unsettledCount = 0;
        for (int i = 0; i < settled.length; i++) {
            settled[i] = memo.settled(mergeable.get(i), vectors[i]);
            if (!settled[i]) {
                unsettled[unsettledCount++] = i;
            }
        }
        final boolean[] taken = new boolean[mergeable.size()];
        final boolean[] merged = new boolean[mergeable.size()];
        final List<Consolidator.Change> changes = new ArrayList<>();
        int nextUnsettled = 0; // the first unsettled index after the seed
        for (int seed = 0; seed < mergeable.size(); seed++) {
            while (nextUnsettled < unsettledCount && unsettled[nextUnsettled] <= seed) {
                nextUnsettled++;
            }
            if (taken[seed]) {
                continue;
            }
            final List<Integer> cluster = new ArrayList<>(List.of(seed));
            taken[seed] = true;
            boolean holdsSettled = settled[seed];
            // complete link: a memory joins only if it is similar to every member, so clusters
            // never chain across topics (single link glued whole conversations together on LoCoMo)
            if (holdsSettled) {
                // a settled candidate fails against the settled seed: only the unsettled ones can join (in order)
                for (int u = nextUnsettled; u < unsettledCount; u++) {
                    final int other = unsettled[u];
                    if (!taken[other] && similarToAll(other, cluster, pass, identifiers)) {
                        taken[other] = true;
                        cluster.add(other);
                    }
                }
            } else {
                for (int other = seed + 1; other < mergeable.size(); other++) {
                    // a settled candidate fails against a settled member: the conjunction is false uncomputed
                    if (!taken[other] && !(holdsSettled && settled[other]) && similarToAll(other, cluster, pass, identifiers)) {
                        taken[other] = true;
                        cluster.add(other);
                        holdsSettled |= settled[other];
                    }
                }
            }
            if (cluster.size() > 1) {
                cluster.forEach(i -> merged[i] = true);
                changes.addAll(mergeCluster(cluster.stream().map(mergeable::get).toList(), now, access));
            }
        }
        memo.remember(mergeable, vectors, merged);
        return changes;
    }

    /**
     * Whether {@code candidate} may join {@code cluster}: for every member the same type, the same model and
     * vector size, a similarity at the merge threshold, no shared conversation and the same identifiers. The
     * checks run cheapest first (the result is their conjunction, so the order changes nothing else).
     */
    private boolean similarToAll(final int candidate, final List<Integer> cluster, final Pass pass,
                                 final List<Set<String>> identifiers) {
        final List<Memory> mergeable = pass.mergeable();
        final float[][] vectors = pass.vectors();
        final Memory a = mergeable.get(candidate);
        for (final int member : cluster) {
            final Memory b = mergeable.get(member);
            if (a.getType() != b.getType()
                || vectors[candidate].length != vectors[member].length
                || !Objects.equals(a.getEmbeddingModel(), b.getEmbeddingModel())
                || !pass.mayReach(candidate, member)
                || settings.scale().similarity(b.getEmbeddingModel(),
                    Vectors.cosine(vectors[candidate], vectors[member])) < settings.mergeThreshold()
                || sharesConversation(a, b)
                || !identifiers(candidate, mergeable, identifiers).equals(identifiers(member, mergeable, identifiers))) {
                return false;
            }
        }
        return true;
    }

    /**
     * One merge pass's vectors, the same scaled to unit length, their norms and, per memory, the least cosine at which
     * its model's scaled similarity can reach the merge threshold.
     *
     * <p>The filter ({@link #mayReach}) runs for every pair of a user's mergeable memories that the {@link MergeMemo}
     * does not settle (every pair in a user's first pass; after it, the pairs with a memory new or changed since the
     * previous pass): it takes the float dot product of the unit vectors in
     * four lanes ({@link Vectors#dot(float[], float[], int)}, a quarter of the double sum's dependent additions), and
     * lets a pair through from {@value #FILTER_MARGIN} below the least cosine. Its error against the exact cosine is
     * below {@code n · 2⁻²⁴} for unit vectors of n ≤ 1,024 dimensions (each of n products and sums rounds by at most
     * half a float ulp of a partial sum of magnitude ≤ 1: ≤ 6.1e-5), so a pair the exact check
     * ({@link MemoryMerges#similarToAll}) would accept is never filtered out, and which memories merge is unchanged.
     */
    private record Pass(List<Memory> mergeable, float[][] vectors, float[][] units, double[] norms,
                        double[] minCosines) {
        /** How far below the least cosine the filter still lets a pair through (see the record's comment). */
        static final double FILTER_MARGIN = 1e-3;

        /** False only when the pair's cosine is certainly below the merge threshold (same model, same size). */
        boolean mayReach(final int a, final int b) {
            if (norms[a] == 0 || norms[b] == 0) {
                return true; // Vectors.cosine answers 0 here: leave it to the exact check
            }
            return Vectors.dot(units[a], units[b], 0) >= minCosines[b] - FILTER_MARGIN;
        }
    }

    /** {@link Facts#identifiers} of one mergeable memory's content, computed on first use. */
    private static Set<String> identifiers(final int index, final List<Memory> mergeable, final List<Set<String>> cache) {
        Set<String> ids = cache.get(index);
        if (ids == null) {
            ids = Facts.identifiers(mergeable.get(index).getContent());
            cache.set(index, ids);
        }
        return ids;
    }

    /**
     * Two turns of one conversation are two statements, however alike (a reply and its follow-up);
     * a merge folds the same thing said again in another conversation.
     */
    private static boolean sharesConversation(final Memory a, final Memory b) {
        for (final SourceRef x : a.getSources()) {
            for (final SourceRef y : b.getSources()) {
                if (x.getConversationId().equals(y.getConversationId())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The merged memory's counters add up its members' with their hits ({@link AccessCounts}): it is a new memory
     * (its id from theirs), so what its members were used for becomes its own base.
     */
    private List<Consolidator.Change> mergeCluster(final List<Memory> members, final Instant now,
                                                   final AccessCounts.Lookup access) {
        final Memory lead = members.stream().min(Comparator.comparingDouble((Memory m) -> -m.getImportance())
            .thenComparing(Memory::getLastConfirmedAt, Comparator.reverseOrder())
            .thenComparing(Memory::getMemoryId)).orElseThrow();
        // The oldest member survives with its id (then the smallest id): a fact restated for weeks keeps one id
        // however many times its restatements are merged into it, and a merged memory stays the oldest of its next
        // cluster (its createdAt is its members' earliest).
        final Memory survivor = members.stream().min(Comparator.comparing(Memory::getCreatedAt)
            .thenComparing(Memory::getMemoryId)).orElseThrow();
        final String mergedId = survivor.getMemoryId();
        final Set<SourceRef> sources = new LinkedHashSet<>();
        final List<String> supersedes = new ArrayList<>();
        Instant earliest = lead.getValidFrom();
        Instant lastConfirmed = lead.getLastConfirmedAt();
        Instant lastAccessed = access.of(lead.getMemoryId()).lastAccessedOf(lead);
        double importance = 0;
        double confidence = 0;
        int accessCount = 0;
        int reinforcements = 0;
        supersedes.addAll(survivor.getSupersedes());
        for (final Memory m : members) {
            sources.addAll(m.getSources());
            if (m != survivor && !supersedes.contains(m.getMemoryId())) {
                supersedes.add(m.getMemoryId());
            }
            earliest = m.getValidFrom().isBefore(earliest) ? m.getValidFrom() : earliest;
            lastConfirmed = m.getLastConfirmedAt().isAfter(lastConfirmed) ? m.getLastConfirmedAt() : lastConfirmed;
            // the survivor's own hits stay in the access store under its id: only its base counters are added here
            final AccessCounts hits = m == survivor ? AccessCounts.NONE : access.of(m.getMemoryId());
            final Instant accessed = hits.lastAccessedOf(m);
            lastAccessed = accessed.isAfter(lastAccessed) ? accessed : lastAccessed;
            importance = Math.max(importance, m.getImportance());
            confidence = Math.max(confidence, m.getConfidence());
            accessCount += hits.countOf(m);
            reinforcements += m.getReinforcementCount();
        }
        final Memory merged = Memory.newBuilder(lead).setMemoryId(mergedId).setStatus(MemoryStatus.ACTIVE)
            .setContent(mergedContent(lead, members))
            .setArchiveReason(null).setImportance(importance).setConfidence(confidence)
            .setAccessCount(accessCount).setReinforcementCount(reinforcements)
            .setCreatedAt(earliest).setValidFrom(earliest).setValidTo(null).setUpdatedAt(now)
            .setLastConfirmedAt(lastConfirmed).setLastAccessedAt(lastAccessed)
            .setSupersededBy(null).setSupersedes(supersedes).setSources(new ArrayList<>(sources)).build();
        final List<Consolidator.Change> changes = new ArrayList<>();
        for (final Memory m : members) {
            if (m != survivor) {
                changes.add(MemoryLifecycle.archive(m, ArchiveReason.MERGED, mergedId, now));
            }
        }
        changes.add(MemoryLifecycle.change(survivor, merged, UpdateOperation.MERGED, MemoryLifecycle.CAUSE, now));
        return changes;
    }

    /** The lead's content and the others' (oldest first) through the {@link MemoryMerger}. */
    private String mergedContent(final Memory lead, final List<Memory> members) {
        final List<Memory> others = members.stream().filter(m -> m != lead).sorted(Comparator.comparing(Memory::getValidFrom)
            .thenComparing(Memory::getMemoryId)).toList();
        final String content = merger.mergedContent(lead, others);
        return content == null || content.isBlank() || content.length() > MemoryLifecycle.MAX_MERGED_CHARS
            ? MemoryMerger.CONCATENATE.mergedContent(lead, others) : content;
    }
}
