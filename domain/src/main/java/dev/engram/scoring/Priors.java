package dev.engram.scoring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.config.ConfigValues;
import dev.engram.config.InvalidSettingException;
import dev.engram.core.MemoryIds;
import dev.engram.domain.DomainConfig;
import dev.engram.port.KindPrior;
import dev.engram.port.MemoryKind;

/**
 * The second stage of {@link HybridScorer}: the priors re-rank the relevant candidates.
 * recency = exp(−days(reference − lastAccessedAt) / decay); importance clamped to 0..1;
 * access = min(accessCount / saturation, 1); total = (w_s·semantic + w_r·recency + w_i·importance +
 * w_a·access) / (w_s + w_r + w_i + w_a), the weighted mean (Park et al., "Generative Agents", UIST 2023,
 * sum relevance, recency and importance; dividing by the weights' sum keeps it in 0..1 for any weights).
 * With {@code retrieval.skip.covered.episodes} an EPISODIC hit whose every source message is cited by the
 * EPISODIC hits above it is left out (it repeats what they hold: a turn's episode under the exchange
 * episode of that turn and its reply), so the k hits cover as many messages as they can.
 * For a list, {@link #withKindPrior} re-scores the hits with semantic′ = σ(logit(semantic) + b_kind)
 * ({@link KindPrior}, {@code retrieval.relevance.kind.prior}).
 *
 * <p>A candidate whose relevance a statement lends it ({@link Candidate.Lent}: an observation or topic list that cites
 * the statement's message without stating it, {@link ObservationLift}) scores the better of its own relevance and the
 * lent one, the lent one without a kind prior and at most just below the lender's total (the next lower double): it
 * ranks right below the statement it borrows from, never above it, unless what it states itself ranks it higher.
 */
final class Priors {

    private static final double MILLIS_PER_DAY = Duration.ofDays(1).toMillis();
    private static final Comparator<ScoredMemory> BY_SCORE = Comparator.comparingDouble((ScoredMemory h) -> -h.score())
        .thenComparing(h -> h.memory().getMemoryId());

    private final double weightSemantic;
    private final double weightRecency;
    private final double weightImportance;
    private final double weightAccess;
    private final double weightSum;
    private final double decayDays;
    private final int accessSaturation;
    private final double minTopLogit;
    private final boolean skipCoveredEpisodes;
    private final KindPrior kindPrior;
    private final boolean anyKindPrior;

    /**
     * @param config the four weights, decay days, access saturation, {@code retrieval.min.top.relevance} and the
     *     kind prior ({@code retrieval.relevance.kind.prior})
     * @throws InvalidSettingException when every weight is 0
     */
    Priors(final ConfigValues config) {
        this.weightSemantic = config.getDouble(DomainConfig.WEIGHT_SEMANTIC);
        this.weightRecency = config.getDouble(DomainConfig.WEIGHT_RECENCY);
        this.weightImportance = config.getDouble(DomainConfig.WEIGHT_IMPORTANCE);
        this.weightAccess = config.getDouble(DomainConfig.WEIGHT_ACCESS);
        this.weightSum = weightSemantic + weightRecency + weightImportance + weightAccess;
        if (!(weightSum > 0)) {
            throw new InvalidSettingException(DomainConfig.WEIGHT_SEMANTIC, weightSemantic,
                "the four retrieval.weight.* are all 0: the total would be undefined; give at least one a positive weight");
        }
        this.decayDays = config.getDouble(DomainConfig.RECENCY_DECAY_DAYS);
        this.accessSaturation = config.getInt(DomainConfig.ACCESS_SATURATION);
        this.minTopLogit = RelevanceModel.logitOf(config.getDouble(DomainConfig.MIN_TOP_RELEVANCE));
        this.skipCoveredEpisodes = config.getBoolean(DomainConfig.SKIP_COVERED_EPISODES);
        // checked when the config was built (a ConfigDef validator), so this parse cannot fail
        this.kindPrior = KindPrior.parse(config.getString(DomainConfig.KIND_PRIOR));
        this.anyKindPrior = kindPrior.offsets().values().stream().anyMatch(b -> b != 0);
    }

    /**
     * @param candidates the relevant candidates, best relevance first
     * @param reference the recency reference (event time)
     * @param k hits at most
     * @param minScore hits with a total below this are dropped
     * @return the top k by total (ties by id), covered episodes left out; none when the best candidate is below
     *     the top-relevance floor
     */
    List<ScoredMemory> finish(final List<Candidate> candidates, final Instant reference, final int k,
                              final double minScore) {
        if (candidates.isEmpty() || candidates.get(0).logit() < minTopLogit) {
            return List.of();
        }
        final List<Hit> hits = new ArrayList<>(candidates.size());
        final Map<String, Double> ownTotals = new HashMap<>();
        final List<Candidate> lent = new ArrayList<>();
        for (final Candidate c : candidates) {
            if (c.lent() != null) {
                lent.add(c);
                continue;
            }
            final ScoredMemory scored = scored(c, RelevanceModel.probability(c.logit()), reference);
            ownTotals.put(c.memory().getMemoryId(), scored.score());
            if (scored.score() >= minScore) {
                hits.add(new Hit(scored, c.cited()));
            }
        }
        for (final Candidate c : lent) {
            // ranked by what it states, or right below the statement it borrows from, whichever is higher
            final ScoredMemory own = scored(c, RelevanceModel.probability(c.lent().own()), reference);
            final ScoredMemory borrowed = below(scored(c, RelevanceModel.probability(c.logit()), reference),
                ownTotals.get(c.lent().lender()));
            final ScoredMemory better = own.score() >= borrowed.score() ? own : borrowed;
            final ScoredMemory scored = new ScoredMemory(c.memory(), better.score(), better.semantic(), better.recency(),
                better.importance(), better.access(), new ScoredMemory.Borrowed(c.lent().lender(), own.semantic(),
                    borrowed.semantic()));
            if (scored.score() >= minScore) {
                hits.add(new Hit(scored, c.cited()));
            }
        }
        hits.sort(Hit.BY_SCORE);
        final List<ScoredMemory> out = new ArrayList<>(Math.min(k, hits.size()));
        final Set<String> cited = skipCoveredEpisodes ? new HashSet<>() : null;
        for (int i = 0; i < hits.size() && out.size() < k; i++) {
            final ScoredMemory hit = hits.get(i).scored();
            final Memory m = hit.memory();
            if (cited != null && m.getType() == MemoryType.EPISODIC) {
                // the cited messages the kept index holds, instead of building each hit's set again per request
                final Set<String> held = hits.get(i).cited();
                final Set<String> sources = held != null ? held : MemoryIds.citedMessages(m);
                if (!sources.isEmpty() && cited.containsAll(sources)) {
                    continue;
                }
                cited.addAll(sources);
            }
            out.add(hit);
        }
        return List.copyOf(out);
    }

    /** A scored candidate with the cited messages its {@link Candidate} carried (null when not held). */
    private record Hit(ScoredMemory scored, Set<String> cited) {
        /** Total first, ties by memory id: the order of the answer. */
        static final Comparator<Hit> BY_SCORE = Comparator.comparing(Hit::scored, Priors.BY_SCORE);
    }


    /** @return the candidate scored with a relevance (its semantic component) */
    private ScoredMemory scored(final Candidate c, final double semantic, final Instant reference) {
        final double recency = recency(reference, c.lastAccessed());
        final double importance = clamp(c.importance());
        final double access = Math.min(1.0, (double) Math.max(0, c.accessCount()) / accessSaturation);
        return new ScoredMemory(c.memory(), total(semantic, recency, importance, access), semantic, recency, importance,
            access);
    }

    /** @return the weighted mean of the four components */
    private double total(final double semantic, final double recency, final double importance, final double access) {
        return (weightSemantic * semantic + weightRecency * recency + weightImportance * importance
            + weightAccess * access) / weightSum;
    }

    /**
     * @param hit a hit ranked by a relevance it borrows
     * @param lender the lender's total, or null when it is not a candidate
     * @return the hit with a total just below the lender's when it would reach it
     */
    private static ScoredMemory below(final ScoredMemory hit, final Double lender) {
        if (lender == null || hit.score() < lender) {
            return hit;
        }
        return new ScoredMemory(hit.memory(), Math.nextDown(lender.doubleValue()), hit.semantic(), hit.recency(),
            hit.importance(), hit.access());
    }

    /** @return whether a kind prior is configured (some b_kind ≠ 0) */
    boolean hasKindPrior() {
        return anyKindPrior;
    }

    /**
     * The hits of a list, re-scored with their kind's prior log-odds ({@link KindPrior}): semantic′ =
     * σ(logit(semantic) + b_kind), total′ the same weighted mean with semantic′; a {@link ScoredMemory.Borrowed} hit the
     * better of its own relevance so re-scored and the lent one without a prior, at most just below its lender's total′;
     * sorted by total′, ties by id.
     *
     * @param ranked hits of {@link #finish}, best first
     * @return the same hits re-scored and re-sorted
     */
    List<ScoredMemory> withKindPrior(final List<ScoredMemory> ranked) {
        final List<ScoredMemory> out = new ArrayList<>(ranked.size());
        final Map<String, Double> ownTotals = new HashMap<>();
        final List<ScoredMemory> lent = new ArrayList<>();
        for (final ScoredMemory h : ranked) {
            if (h.borrowed() != null) {
                lent.add(h);
                continue;
            }
            final ScoredMemory scored = withPrior(h, h.semantic());
            ownTotals.put(h.memory().getMemoryId(), scored.score());
            out.add(scored);
        }
        for (final ScoredMemory h : lent) {
            // the prior is the derived memory's on its own relevance, not on the relevance a statement lends it
            final ScoredMemory.Borrowed b = h.borrowed();
            final ScoredMemory own = withPrior(h, b.own());
            final ScoredMemory borrowed = below(new ScoredMemory(h.memory(),
                total(b.lent(), h.recency(), h.importance(), h.access()), b.lent(), h.recency(), h.importance(),
                h.access()), ownTotals.get(b.lender()));
            final ScoredMemory better = own.score() >= borrowed.score() ? own : borrowed;
            out.add(new ScoredMemory(h.memory(), better.score(), better.semantic(), h.recency(), h.importance(),
                h.access(), b));
        }
        out.sort(BY_SCORE);
        return out;
    }

    /** @return the hit re-scored with a relevance and its kind's prior log-odds added to it */
    private ScoredMemory withPrior(final ScoredMemory h, final double relevance) {
        final Memory m = h.memory();
        final double semantic = RelevanceModel.probability(RelevanceModel.logitOf(relevance)
            + kindPrior.offset(MemoryKind.of(m.getType(), m.getDisplayName())));
        return new ScoredMemory(m, total(semantic, h.recency(), h.importance(), h.access()), semantic, h.recency(),
            h.importance(), h.access());
    }

    private double recency(final Instant reference, final long lastAccessedMillis) {
        if (lastAccessedMillis == Long.MIN_VALUE) {
            return 0;
        }
        final double days = Math.max(0, reference.toEpochMilli() - lastAccessedMillis) / MILLIS_PER_DAY;
        return Math.exp(-days / decayDays);
    }

    private static double clamp(final double v) {
        return Math.max(0, Math.min(1, v));
    }
}
