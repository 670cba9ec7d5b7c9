package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.MemoryIds;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryMerger;
import dev.engram.scoring.SimilarityScale;
import dev.engram.scoring.Vectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observations: memories that state a user's statements on one topic together ("Melanie camped at the beach.
 * Melanie went camping in the mountains with her family. …"), citing every source message of those statements,
 * so a question whose answer is spread over many conversations ("Where has Melanie camped?") finds it in one
 * hit. They are the consolidation step of a memory system that Park et al. ("Generative Agents", UIST 2023)
 * call reflection, Hindsight calls observations and Zep keeps as entity summaries; here the grouping is by
 * embedding and the text is the statements themselves ({@link MemoryMerger#CONCATENATE}), so it needs no model
 * call: no cost per pass, the same text on every replay, and the statements' own words stay findable by lexical
 * retrieval.
 *
 * <p><b>Which statements.</b> The user's ACTIVE memories that are statements of the user: not a conversation
 * summary ({@link ExtractedMemory#isSummary}), not an exchange episode (the user's turn and the assistant's
 * reply, verbatim: {@link ExtractedMemory#isExchange}), not an observation.
 *
 * <p><b>Grouping</b> (deterministic, so a replay gives the same observations): per embedding model, the
 * statements in order of {@code createdAt} (then memory id); each joins the open group whose centroid (the sum
 * of its members' normalised vectors) is most similar to it, if that similarity ({@link SimilarityScale}:
 * the model's floor applied) reaches {@code lifecycle.observe.threshold}, else it starts a group. A group is
 * closed once it holds {@code lifecycle.observe.max.members}. Adding later statements never moves an earlier
 * one, so a group only grows while its statements stay ACTIVE. Every group of two or more statements is one
 * observation.
 *
 * <p><b>The observation</b>: id = name-based UUID of {@code "observation"} and the first statement's id;
 * SEMANTIC, source INFERRED, display name {@link ExtractedMemory#OBSERVATION_DISPLAY_NAME}; content = the
 * statements in order, each once, up to {@link MemoryMerger#MAX_CHARS}; its own embedding of that content (so
 * the consolidator needs an {@link Embedder}; a group whose model the embedder does not hold now, e.g. during
 * {@code reembed}, gets no observation until it does); importance and confidence = the statements' maximum;
 * sources = the union of theirs; event dates = the union of theirs; created and valid from = the newest
 * statement's {@code createdAt}. An observation whose sources did not change is left as it is (its access
 * counts stay); one whose group changed is rewritten (CREATED with the same id, access counts kept); one whose
 * group is gone is removed (DELETED, and out of the store); one the user deleted (a DELETED marker under its
 * id) is not written again.
 *
 * <p><b>Cost.</b> A pass regroups a user only when the user's statements or observations are not as that user's last
 * pass left them (a fingerprint; accesses do not count; kept in memory, so a restart regroups everyone once, and a
 * pass whose transaction aborted is redone), so the daily pass touches the users who said something that day;
 * regrouping is one pass over the statements against the open groups' centroids.
 *
 * <p><b>When a statement changes between passes</b> (superseded, archived, corrected or deleted),
 * {@link #citing} names the observations that cite one of its messages; the consolidator removes them at
 * once, so what the user took back is not served from an observation, and the next pass rebuilds them.
 * Thread-safe if the embedder is.
 */
public final class Observations {

    /** The cause of an observation removed because a statement it holds changed. */
    public static final String CAUSE_STATEMENT_CHANGED = "statement-changed";

    private static final Logger LOG = LoggerFactory.getLogger(Observations.class);

    private final double threshold;
    private final int maxMembers;
    private final SimilarityScale scale;
    private final Embedder embedder;
    /** Per {@code tenant/user}: the {@link #fingerprint} of the last pass (in memory: a restart recomputes once). */
    private final Map<String, Long> fingerprints = new ConcurrentHashMap<>();

    /**
     * @param threshold similarity ({@code scale}) from which a statement joins a group; 1 or more disables observations
     * @param maxMembers statements per observation at most, ≥ 2
     * @param scale puts each model's cosines on the threshold's scale
     * @param embedder embeds the observations' content; null disables observations
     * @throws IllegalArgumentException for {@code maxMembers} below 2
     */
    public Observations(final double threshold, final int maxMembers, final SimilarityScale scale,
                        final Embedder embedder) {
        if (maxMembers < 2) {
            throw new IllegalArgumentException("an observation holds at least 2 statements: " + maxMembers);
        }
        this.threshold = threshold;
        this.maxMembers = maxMembers;
        this.scale = Objects.requireNonNull(scale, "scale");
        this.embedder = embedder;
    }

    /** @return whether this pass writes observations (an embedder, a threshold below 1) */
    public boolean enabled() {
        return embedder != null && threshold < 1.0;
    }

    /**
     * @param memory a memory
     * @return whether it is a statement an observation may hold (see the class comment)
     */
    public static boolean isStatement(final Memory memory) {
        return memory.getStatus() == MemoryStatus.ACTIVE
            && !ExtractedMemory.isSummary(memory.getType(), memory.getDisplayName())
            && !ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName())
            && !ExtractedMemory.isExchange(memory.getDisplayName());
    }

    /**
     * @param memory a memory
     * @return whether it is an observation (any status)
     */
    public static boolean isObservation(final Memory memory) {
        return ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName());
    }

    /**
     * The observations one pass writes for one user.
     *
     * @param userMemories every memory of ONE user (any status), after the pass's other rules
     * @param now the event time of the pass
     * @param cause the cause of the events
     * @return CREATED changes for new and rewritten observations, DELETED changes (remove from the store) for
     *     observations whose group is gone; empty when disabled
     */
    public List<Consolidator.Change> review(final Collection<Memory> userMemories, final Instant now, final String cause) {
        if (!enabled()) {
            return List.of();
        }
        final String user = userKey(userMemories);
        final long fingerprint = fingerprint(userMemories, embedder.current().modelName());
        if (user == null || Long.valueOf(fingerprint).equals(fingerprints.get(user))) {
            return List.of(); // no statement changed since this user's last pass: the groups are the same
        }
        final Map<String, Memory> existing = new HashMap<>();
        final Set<String> deleted = new HashSet<>();
        final Map<String, List<Memory>> statementsByModel = new LinkedHashMap<>();
        for (final Memory m : userMemories) {
            if (m.getStatus() == MemoryStatus.DELETED) {
                deleted.add(m.getMemoryId()); // a DELETE command's marker (it keeps the id only)
            } else if (isObservation(m)) {
                existing.put(m.getMemoryId(), m);
            } else if (isStatement(m) && !m.getEmbedding().isEmpty()) {
                statementsByModel.computeIfAbsent(m.getEmbeddingModel(), k -> new ArrayList<>()).add(m);
            }
        }
        final Map<String, List<Memory>> groups = new LinkedHashMap<>();
        statementsByModel.values().forEach(statements -> group(statements, groups));
        final List<Consolidator.Change> changes = new ArrayList<>();
        final List<String> toWrite = new ArrayList<>();
        for (final Map.Entry<String, List<Memory>> group : groups.entrySet()) {
            if (deleted.contains(group.getKey())) {
                continue; // the user deleted it: not written again while its first statement is the same
            }
            final Memory before = existing.get(group.getKey());
            if (before == null || before.getStatus() != MemoryStatus.ACTIVE
                || !new HashSet<>(before.getSources()).equals(sources(group.getValue()))) {
                toWrite.add(group.getKey());
            }
        }
        for (final Memory before : existing.values()) {
            if (before.getStatus() == MemoryStatus.ACTIVE && !groups.containsKey(before.getMemoryId())) {
                changes.add(removal(before, now, cause));
            }
        }
        if (!toWrite.isEmpty()) {
            changes.addAll(write(toWrite, groups, existing, now, cause));
        }
        // what the store holds once these changes are committed: if the transaction aborts, the next pass sees
        // another state and regroups
        final Map<String, Memory> after = new LinkedHashMap<>();
        userMemories.forEach(m -> after.put(m.getMemoryId(), m));
        for (final Consolidator.Change c : changes) {
            if (c.after().getStatus() == MemoryStatus.DELETED) {
                after.remove(c.after().getMemoryId());
            } else {
                after.put(c.after().getMemoryId(), c.after());
            }
        }
        fingerprints.put(user, fingerprint(after.values(), embedder.current().modelName()));
        return changes;
    }

    /** @return {@code tenant/user} of the memories (all of one user), or null when there are none */
    private static String userKey(final Collection<Memory> userMemories) {
        for (final Memory m : userMemories) {
            return m.getTenantId() + "/" + m.getUserId();
        }
        return null;
    }

    /**
     * What a pass reads and writes, as one order-independent 64-bit hash: each statement's, observation's and DELETE
     * marker's id, status, content, number of sources and model (not access counts: a retrieval hit changes no
     * group), and the model the embedder embeds with now.
     */
    private static long fingerprint(final Collection<Memory> userMemories, final String model) {
        long sum = model.hashCode();
        for (final Memory m : userMemories) {
            if (m.getStatus() == MemoryStatus.DELETED || isStatement(m) || isObservation(m)) {
                long h = m.getMemoryId().hashCode();
                h = h * 31 + m.getStatus().ordinal();
                h = h * 31 + m.getContent().hashCode();
                h = h * 31 + m.getSources().size();
                h = h * 31 + Objects.hashCode(m.getEmbeddingModel());
                sum += mix(h);
            }
        }
        return sum;
    }

    /** SplitMix64's finalizer (Steele et al., OOPSLA 2014): spreads a hash over all 64 bits before summing. */
    private static long mix(final long value) {
        long z = value + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The observations to remove at once because statements they hold changed: those citing a message that one
     * of {@code changed} cites.
     *
     * @param userMemories every memory of ONE user (any status), before the change
     * @param changed the statements that were superseded, archived, corrected or deleted
     * @param now the event time of the change
     * @return DELETED changes (remove from the store), one per ACTIVE observation citing one of their messages
     */
    public static List<Consolidator.Change> citing(final Collection<Memory> userMemories, final Collection<Memory> changed,
                                                   final Instant now) {
        final Set<String> messages = new HashSet<>();
        for (final Memory m : changed) {
            if (!isObservation(m)) {
                messages.addAll(MemoryIds.citedMessages(m));
            }
        }
        if (messages.isEmpty()) {
            return List.of();
        }
        final List<Consolidator.Change> out = new ArrayList<>();
        for (final Memory m : userMemories) {
            if (isObservation(m) && m.getStatus() == MemoryStatus.ACTIVE
                && MemoryIds.citedMessages(m).stream().anyMatch(messages::contains)) {
                out.add(removal(m, now, CAUSE_STATEMENT_CHANGED));
            }
        }
        return out;
    }

    /**
     * The observations to remove at once after {@code changes}: those citing a message of a statement the changes
     * took out of ACTIVE or gave other content.
     *
     * @param userMemories every memory of ONE user (any status), before the changes
     * @param changes changes of that user's memories
     * @param now the event time of the changes
     * @return DELETED changes to apply after {@code changes} (often none)
     */
    public static List<Consolidator.Change> staleAfter(final Collection<Memory> userMemories,
                                                       final List<Consolidator.Change> changes, final Instant now) {
        final List<Memory> changed = new ArrayList<>();
        for (final Consolidator.Change c : changes) {
            final Memory before = c.before();
            if (before != null && isStatement(before) && (c.after().getStatus() != MemoryStatus.ACTIVE
                || !c.after().getContent().equals(before.getContent()))) {
                changed.add(before);
            }
        }
        return changed.isEmpty() ? List.of() : citing(userMemories, changed, now);
    }

    /** Greedy grouping of one model's statements (class comment), keyed by observation id, in order. */
    private void group(final List<Memory> statements, final Map<String, List<Memory>> out) {
        final List<Memory> ordered = new ArrayList<>(statements);
        ordered.sort(Comparator.comparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId));
        final String model = ordered.get(0).getEmbeddingModel();
        final int dimensions = ordered.get(0).getEmbedding().size();
        final List<List<Memory>> members = new ArrayList<>();
        final List<float[]> sums = new ArrayList<>();
        final List<Double> sumNorms = new ArrayList<>();
        for (final Memory m : ordered) {
            if (m.getEmbedding().size() != dimensions) {
                continue;
            }
            final float[] v = Vectors.normalized(Vectors.toArray(m.getEmbedding()));
            int best = -1;
            double bestSimilarity = threshold;
            for (int g = 0; g < members.size(); g++) {
                if (members.get(g).size() >= maxMembers) {
                    continue;
                }
                final double norm = sumNorms.get(g);
                final double cosine = norm == 0 ? 0 : Vectors.dot(v, sums.get(g)) / norm;
                final double similarity = scale.similarity(model, cosine);
                if (similarity >= bestSimilarity) {
                    bestSimilarity = similarity;
                    best = g;
                }
            }
            if (best < 0) {
                members.add(new ArrayList<>(List.of(m)));
                sums.add(v);
                sumNorms.add(Math.sqrt(Vectors.dot(v, v)));
            } else {
                members.get(best).add(m);
                final float[] sum = sums.get(best);
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += v[i];
                }
                sumNorms.set(best, Math.sqrt(Vectors.dot(sum, sum)));
            }
        }
        for (final List<Memory> group : members) {
            if (group.size() >= 2) {
                out.put(idOf(group.get(0)), group);
            }
        }
    }

    /**
     * @param first the first statement of a group
     * @return the id of the group's observation
     */
    public static String idOf(final Memory first) {
        return MemoryIds.uuid("observation", first.getTenantId(), first.getUserId(), first.getMemoryId());
    }

    /** Writes the groups' observations: the statements' content, embedded in one batch. */
    private List<Consolidator.Change> write(final List<String> ids, final Map<String, List<Memory>> groups,
                                            final Map<String, Memory> existing, final Instant now, final String cause) {
        final Embedder batch = embedder.current();
        final List<String> contents = new ArrayList<>(ids.size());
        for (final String id : ids) {
            final List<Memory> group = groups.get(id);
            contents.add(MemoryMerger.CONCATENATE.mergedContent(group.get(0), group.subList(1, group.size())));
        }
        final List<float[]> vectors = batch.embedAll(contents);
        final List<Consolidator.Change> changes = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            final List<Memory> group = groups.get(ids.get(i));
            final String model = group.get(0).getEmbeddingModel();
            if (!model.equals(batch.modelFor(contents.get(i)))) {
                LOG.debug("No observation of {} statements of model {}: the embedder embeds it with {}", group.size(),
                    model, batch.modelFor(contents.get(i)));
                continue;
            }
            final Memory before = existing.get(ids.get(i));
            changes.add(MemoryLifecycle.change(before, observation(ids.get(i), group, contents.get(i), vectors.get(i), before, now),
                UpdateOperation.CREATED, cause, now));
        }
        return changes;
    }

    private static Memory observation(final String id, final List<Memory> group, final String content,
                                      final float[] vector, final Memory before, final Instant now) {
        final Memory first = group.get(0);
        Instant newest = first.getCreatedAt();
        double importance = 0;
        double confidence = 0;
        final Set<String> dates = new TreeSet<>();
        for (final Memory m : group) {
            newest = m.getCreatedAt().isAfter(newest) ? m.getCreatedAt() : newest;
            importance = Math.max(importance, m.getImportance());
            confidence = Math.max(confidence, m.getConfidence());
            dates.addAll(m.getEventDates());
        }
        final Instant lastAccessed = before != null && before.getLastAccessedAt().isAfter(newest)
            ? before.getLastAccessedAt() : newest;
        return Memory.newBuilder(first).setMemoryId(id).setType(MemoryType.SEMANTIC).setCategory(null).setKey(null)
            .setValue(null).setDisplayName(ExtractedMemory.OBSERVATION_DISPLAY_NAME).setContent(content)
            .setImportance(importance).setConfidence(confidence).setSource(MemorySource.INFERRED)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(newest).setUpdatedAt(now)
            .setLastAccessedAt(lastAccessed).setLastConfirmedAt(newest)
            .setAccessCount(before == null ? 0 : before.getAccessCount()).setReinforcementCount(group.size())
            .setExpiresAt(null).setValidFrom(newest).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(new ArrayList<>(sources(group))).setEmbedding(Vectors.toList(vector))
            .setEmbeddingModel(first.getEmbeddingModel()).setEventDates(new ArrayList<>(dates)).build();
    }

    private static Set<SourceRef> sources(final List<Memory> group) {
        final Set<SourceRef> out = new LinkedHashSet<>();
        group.forEach(m -> out.addAll(m.getSources()));
        return out;
    }


    private static Consolidator.Change removal(final Memory observation, final Instant now, final String cause) {
        final Memory deleted = Memory.newBuilder(observation).setStatus(MemoryStatus.DELETED).setUpdatedAt(now).build();
        return MemoryLifecycle.change(observation, deleted, UpdateOperation.DELETED, cause, now);
    }
}
