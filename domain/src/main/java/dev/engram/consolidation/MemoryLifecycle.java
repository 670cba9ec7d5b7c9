package dev.engram.consolidation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.ConfigValues;
import dev.engram.core.MemoryIds;
import dev.engram.domain.DomainConfig;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryMerger;
import dev.engram.safety.SafetyFacts;
import dev.engram.scoring.AccessCounts;
import dev.engram.scoring.SimilarityScale;

/**
 * The memory lifecycle rules, applied per user at a point of event time: the seeds' daily
 * consolidation, driven by stream time so that a replay of the same topics gives the same result.
 * A plain class: no clock, no Kafka; every time comes from the caller.
 *
 * <p>One {@link #review} pass, in this order, each rule seeing the result of the previous one:
 * <ol>
 *   <li><b>TTL</b>: an ACTIVE fact whose {@link #expiresAt expiry} is at or before {@code now} is
 *       ARCHIVED with reason EXPIRED ({@code validTo} stays: the fact was not contradicted, only no
 *       longer trusted). Explicit ROLE facts (job, employer) live 120 days and CONTEXT facts 30 days
 *       after their last statement; preferences, technical, constraint and personal facts and
 *       episodes are permanent; INFERRED facts get half the explicit TTL (all from the seeds,
 *       configurable). A memory whose tenant's settings gave it a TTL ({@code ttlDays}: its custom category's,
 *       else the tenant's retention; episodes included) lives that many days instead. A restatement moves
 *       {@code lastConfirmedAt}, so it restarts the clock.</li>
 *   <li><b>Staleness</b>: an ACTIVE memory last used (accessed or restated: reinforcement counts as
 *       use) more than 90 days before {@code now}, with importance below 0.4 (the two lowest bands stored:
 *       {@code memory.min.importance} is 0.3) and used fewer than 2 times (accesses plus restatements
 *       after the first statement; the accesses are the memory's own count plus its hits, {@link AccessCounts}),
 *       is ARCHIVED with reason STALE; never a safety fact (an allergy, condition, medication, food avoided, diet or
 *       accessibility need: {@link SafetyFacts});
 *       a later restatement revives it ({@link Consolidator}, rule 6).</li>
 *   <li><b>Merge</b> ({@link MemoryMerges}): ACTIVE memories of one type without a fact key (facts of one key already
 *       share a slot) whose embeddings reach cosine 0.85 with every other member form clusters
 *       (complete link, seeded in memory-id order, so deterministic; never two turns of one
 *       conversation: those are two statements, however alike; never two statements naming different
 *       identifiers, {@link Facts#sameIdentifiers}; never a conversation summary,
 *       {@link ExtractedMemory#isSummary}). Each cluster becomes one
 *       MERGED memory: the embedding and category of the most important member (then the most
 *       recently confirmed, then the smallest id), its content first followed by the other
 *       members' as the {@link MemoryMerger} writes it (by default {@link MemoryMerger#CONCATENATE}),
 *       importance = max, confidence = max, access count = sum (hits included; the survivor's own stay with its
 *       id), last access = the latest,
 *       reinforcement count = sum, sources = union, validFrom/createdAt = the earliest; its id is the
 *       oldest member's (earliest createdAt, then the smallest id), which survives as the MERGED memory, so a
 *       fact restated for weeks keeps one id. The other members are ARCHIVED with reason MERGED and
 *       {@code supersededBy} = the survivor's id. A memory marked as outdated ({@link Outdated}) is never merged:
 *       the merged memory would state its old value as current.</li>
 *   <li><b>Hard delete</b>: an ARCHIVED memory archived ({@code updatedAt}) 365 days or more before
 *       {@code now} is DELETED: the caller removes it from the store (a tombstone on the
 *       changelog) and the vector index, and publishes the DELETED event.</li>
 *   <li><b>Observe</b> (with an embedder and {@code lifecycle.observe.threshold} below 1): the user's statements,
 *       as the rules above left them, grouped by topic into observations that state them together and cite all
 *       their messages ({@link Observations}). Observations are exempt from TTL, staleness and merging: they
 *       are derived, and live as long as their statements do.</li>
 * </ol>
 * Every event's time is {@code now} and its cause {@code consolidation}.
 */
public final class MemoryLifecycle {

    /** Longest content of a merged memory, in characters. */
    public static final int MAX_MERGED_CHARS = MemoryMerger.MAX_CHARS;
    /** Cause of every lifecycle event. */
    public static final String CAUSE = "consolidation";

    private final Settings settings;
    private final MemoryMerges merges;
    private final Observations observations;

    /**
     * The rules' thresholds.
     *
     * @param mergeThreshold similarity ({@code scale}) from which memories of one model merge (default 0.85)
     * @param staleAfter unused time after which a memory can be stale (default 90 days)
     * @param staleMaxImportance importance below which a memory can be stale, 0..1 (default 0.4)
     * @param staleMaxAccessCount uses (accesses plus restatements) below which a memory can be stale (default 2)
     * @param roleTtl TTL of an explicit ROLE fact (default 120 days), zero = permanent
     * @param contextTtl TTL of an explicit CONTEXT fact (default 30 days), zero = permanent
     * @param inferredFactor TTL of an INFERRED fact relative to an explicit one, 0..1 (default 0.5)
     * @param archiveRetention time from archiving to hard delete (default 365 days)
     * @param scale puts each model's cosines on the threshold's scale ({@code embedding.similarity.floors})
     * @param observeThreshold similarity ({@code scale}) from which a statement joins an observation's group
     *     (default 1: none; 0.48, raw cosine 0.75 for bge-small-en, measured best); 1 disables observations
     * @param observeMaxMembers statements per observation at most (default 16)
     */
    public record Settings(double mergeThreshold, Duration staleAfter, double staleMaxImportance,
                           int staleMaxAccessCount, Duration roleTtl, Duration contextTtl, double inferredFactor,
                           Duration archiveRetention, SimilarityScale scale, double observeThreshold,
                           int observeMaxMembers) {

        /** The settings without observations (as before they existed). */
        public Settings(final double mergeThreshold, final Duration staleAfter, final double staleMaxImportance,
                        final int staleMaxAccessCount, final Duration roleTtl, final Duration contextTtl,
                        final double inferredFactor, final Duration archiveRetention, final SimilarityScale scale) {
            this(mergeThreshold, staleAfter, staleMaxImportance, staleMaxAccessCount, roleTtl, contextTtl, inferredFactor,
                archiveRetention, scale, 1.0, 2);
        }

        /**
         * @param config the Engram config ({@code lifecycle.*})
         * @return the settings
         */
        public static Settings from(final ConfigValues config) {
            return new Settings(config.getDouble(DomainConfig.MERGE_THRESHOLD),
                Duration.ofDays(config.getInt(DomainConfig.STALE_DAYS)),
                config.getDouble(DomainConfig.STALE_MAX_IMPORTANCE),
                config.getInt(DomainConfig.STALE_MAX_ACCESS_COUNT),
                Duration.ofDays(config.getInt(DomainConfig.TTL_ROLE_DAYS)),
                Duration.ofDays(config.getInt(DomainConfig.TTL_CONTEXT_DAYS)),
                config.getDouble(DomainConfig.TTL_INFERRED_FACTOR),
                Duration.ofDays(config.getInt(DomainConfig.ARCHIVE_RETENTION_DAYS)),
                SimilarityScale.fromConfig(config),
                config.getDouble(DomainConfig.OBSERVE_THRESHOLD),
                config.getInt(DomainConfig.OBSERVE_MAX_MEMBERS));
        }
    }

    /**
     * @param settings the thresholds
     */
    public MemoryLifecycle(final Settings settings) {
        this(settings, MemoryMerger.CONCATENATE);
    }

    /**
     * @param settings the thresholds
     * @param merger writes a merged memory's content (an answer that is blank or longer than
     *     {@link #MAX_MERGED_CHARS} is replaced by {@link MemoryMerger#CONCATENATE}'s)
     */
    public MemoryLifecycle(final Settings settings, final MemoryMerger merger) {
        this(settings, merger, null);
    }

    /**
     * @param settings the thresholds
     * @param merger writes a merged memory's content (an answer that is blank or longer than
     *     {@link #MAX_MERGED_CHARS} is replaced by {@link MemoryMerger#CONCATENATE}'s)
     * @param embedder embeds observations ({@link Observations}); null = no observations
     */
    public MemoryLifecycle(final Settings settings, final MemoryMerger merger, final Embedder embedder) {
        this.settings = settings;
        this.merges = new MemoryMerges(settings, merger);
        this.observations = new Observations(settings.observeThreshold(), settings.observeMaxMembers(), settings.scale(),
            embedder);
    }

    /** @return the observation rule of the pass (rule 5), also run between passes by the consolidator */
    public Observations observations() {
        return observations;
    }

    /**
     * When a memory expires under the TTL rules, from its last statement: after its own {@code ttlDays} when its
     * tenant's settings gave it one (0: never), else by the deployment's rules for its category.
     *
     * @param memory a memory
     * @return the expiry time, or null when the memory is permanent
     */
    public Instant expiresAt(final Memory memory) {
        if (memory.getTtlDays() != null) {
            // the tenant's settings in force when it was extracted (its category's TTL or the tenant's retention),
            // carried by the candidate: a replay needs no settings table
            return memory.getTtlDays() == 0 ? null : memory.getLastConfirmedAt().plus(Duration.ofDays(memory.getTtlDays()));
        }
        if (memory.getKey() == null || memory.getCategory() == null) {
            return null;
        }
        final Duration explicit = memory.getCategory() == FactCategory.ROLE ? settings.roleTtl()
            : memory.getCategory() == FactCategory.CONTEXT ? settings.contextTtl() : Duration.ZERO;
        if (explicit.isZero()) {
            return null;
        }
        final Duration ttl = memory.getSource() == MemorySource.INFERRED
            ? Duration.ofMillis(Math.round(explicit.toMillis() * settings.inferredFactor())) : explicit;
        return memory.getLastConfirmedAt().plus(ttl);
    }

    /**
     * Runs one consolidation pass over one user's memories.
     *
     * @param userMemories every memory of ONE user, every status
     * @param now the event time of the pass (the stream time of the punctuation)
     * @return the changes in the order to apply them; a DELETED change means "remove it"
     */
    public List<Consolidator.Change> review(final List<Memory> userMemories, final Instant now) {
        return review(userMemories, now, true, AccessCounts.Lookup.NONE);
    }

    /**
     * Runs one consolidation pass over one user's memories, regrouping the observations when asked, and when the
     * pass's own rules took a statement back ({@link Observations#reorders}) without embedding: a regrouping is a
     * function of the statements, so the consolidator may leave the rest to a later one.
     *
     * @param userMemories every memory of ONE user, every status
     * @param now the event time of the pass (its stream time)
     * @param observe whether to regroup the user's observations in any case, embedding what the regrouping rewrites;
     *     false: only when the pass's rules took a statement back, and then only the removals and the rewrites that
     *     keep their text (nothing embedded; the caller regroups the user later: the pass's staleness and merges
     *     take statements back on most days of a LoCoMo backlog, and embedding each rewritten observation there
     *     was about half the consolidator's embedding in {@code bench ingest})
     * @param access the user's retrieval hits, kept apart from the memories ({@link AccessCounts}): staleness counts
     *     them as uses and a merged memory's counters add them up; the changes carry the memories' own counters
     *     otherwise (a read never rewrites a memory)
     * @return the changes in the order to apply them; a DELETED change means "remove it"
     */
    public List<Consolidator.Change> review(final List<Memory> userMemories, final Instant now, final boolean observe,
                                            final AccessCounts.Lookup access) {
        return review(userMemories, now, observe, access, MergeMemo.empty());
    }

    /**
     * {@link #review(List, Instant, boolean, AccessCounts.Lookup)} with the user's previous merge pass: the merge rule
     * compares only the pairs with a memory new or changed since then ({@link MergeMemo}: the changes are those of a
     * full pass, whatever the memo holds; it only saves the quadratic pair loop's work).
     *
     * @param userMemories every memory of ONE user, every status
     * @param now the event time of the pass (its stream time)
     * @param observe see {@link #review(List, Instant, boolean, AccessCounts.Lookup)}
     * @param access the user's retrieval hits ({@link AccessCounts})
     * @param memo the user's memo, kept by the caller beside this lifecycle for the user; updated by the pass
     * @return the changes in the order to apply them; a DELETED change means "remove it"
     */
    public List<Consolidator.Change> review(final List<Memory> userMemories, final Instant now, final boolean observe,
                                            final AccessCounts.Lookup access, final MergeMemo memo) {
        final List<Consolidator.Change> changes = new ArrayList<>();
        final List<Memory> active = new ArrayList<>();
        for (final Memory memory : sorted(userMemories)) {
            if (memory.getStatus() == MemoryStatus.ARCHIVED) {
                if (!memory.getUpdatedAt().plus(settings.archiveRetention()).isAfter(now)) {
                    final Memory deleted = Memory.newBuilder(memory).setStatus(MemoryStatus.DELETED).setUpdatedAt(now).build();
                    changes.add(change(memory, deleted, UpdateOperation.DELETED, CAUSE, now));
                }
                continue;
            }
            if (memory.getStatus() != MemoryStatus.ACTIVE) {
                continue;
            }
            if (Observations.isObservation(memory)) {
                continue; // derived: it lives as long as its statements do (rule 5)
            }
            final Instant expiry = expiresAt(memory);
            if (expiry != null && !expiry.isAfter(now)) {
                changes.add(archive(memory, ArchiveReason.EXPIRED, null, now));
            } else if (isStale(memory, access.of(memory.getMemoryId()), now)) {
                changes.add(archive(memory, ArchiveReason.STALE, null, now));
            } else {
                active.add(memory);
            }
        }
        changes.addAll(merges.merge(active, now, access, memo));
        if (observations.enabled() && (observe || changes.stream().anyMatch(Observations::reorders))) {
            // the observations see the memories as the rules above left them
            final Map<String, Memory> after = new LinkedHashMap<>();
            userMemories.forEach(m -> after.put(m.getMemoryId(), m));
            changes.forEach(c -> after.put(c.after().getMemoryId(), c.after()));
            changes.addAll(observations.review(after.values(), now, CAUSE, observe ? Integer.MAX_VALUE : 0).changes());
        }
        return changes;
    }

    private boolean isStale(final Memory memory, final AccessCounts hits, final Instant now) {
        if (SafetyFacts.DEFAULT.isSafety(memory)) {
            return false; // an allergy unused for a year is still an allergy
        }
        final Instant lastAccessed = hits.lastAccessedOf(memory);
        final Instant lastUse = lastAccessed.isAfter(memory.getLastConfirmedAt()) ? lastAccessed : memory.getLastConfirmedAt();
        return lastUse.plus(settings.staleAfter()).isBefore(now)
            && memory.getImportance() < settings.staleMaxImportance()
            && uses(memory, hits) < settings.staleMaxAccessCount();
    }

    /** Reinforcement counts as use: the accesses plus the restatements after the first statement. */
    private static int uses(final Memory memory, final AccessCounts hits) {
        return hits.countOf(memory) + Math.max(0, memory.getReinforcementCount() - 1);
    }

    static Consolidator.Change archive(final Memory memory, final ArchiveReason reason, final String by,
                                               final Instant now) {
        final Memory after = Memory.newBuilder(memory).setStatus(MemoryStatus.ARCHIVED).setArchiveReason(reason)
            .setSupersededBy(by).setUpdatedAt(now).build();
        return change(memory, after, UpdateOperation.ARCHIVED, CAUSE, now);
    }

    /** One change as an event of {@code memory-updated}: its id from the memory, operation, cause and time. */
    static Consolidator.Change change(final Memory before, final Memory after, final UpdateOperation operation,
                                      final String cause, final Instant at) {
        return new Consolidator.Change(before, MemoryUpdated.newBuilder()
            .setEventId(MemoryIds.eventId(after.getMemoryId(), operation.name(), cause + "@" + at.toEpochMilli()))
            .setTenantId(after.getTenantId()).setUserId(after.getUserId()).setMemoryId(after.getMemoryId())
            .setOperation(operation).setMemory(after)
            .setPreviousValue(before == null ? null : before.getValue())
            .setCause(cause).setEventTime(at).build());
    }

    private static List<Memory> sorted(final List<Memory> memories) {
        final List<Memory> out = new ArrayList<>(memories);
        out.sort(Comparator.comparing(Memory::getMemoryId));
        return out;
    }
}
