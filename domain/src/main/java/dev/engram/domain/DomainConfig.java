package dev.engram.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigGroup;
import dev.engram.config.ConfigValues;
import dev.engram.config.CoreConfig;
import dev.engram.config.InvalidSettingException;
import dev.engram.port.KindPrior;

/**
 * The settings the memory domain owns ({@link ConfigGroup} {@code domain}): what the domain decides with: the storage
 * floors ({@code memory.*}), dedup and contradiction thresholds ({@code dedup.*}), ranking ({@code retrieval.*}), the
 * input limits ({@code input.max.messages}, {@code input.max.message.chars}, {@code input.max.future.ms}), the lifecycle pass ({@code lifecycle.*}),
 * the similarity scale ({@code embedding.similarity.floors}) and PII handling ({@code privacy.pii.action}). Registered
 * as a service, composed onto the core definition; the keys are this class's constants.
 */
public final class DomainConfig implements ConfigGroup {

    public static final String MIN_IMPORTANCE = "memory.min.importance";
    public static final String MIN_CONFIDENCE = "memory.min.confidence";
    public static final String REINFORCE_THRESHOLD = "dedup.reinforce.threshold";
    public static final String JUDGE_THRESHOLD = "dedup.judge.threshold";
    public static final String WEIGHT_SEMANTIC = "retrieval.weight.semantic";
    public static final String WEIGHT_RECENCY = "retrieval.weight.recency";
    public static final String WEIGHT_IMPORTANCE = "retrieval.weight.importance";
    public static final String WEIGHT_ACCESS = "retrieval.weight.access";
    public static final String RECENCY_DECAY_DAYS = "retrieval.recency.decay.days";
    public static final String ACCESS_SATURATION = "retrieval.access.saturation";
    public static final String OVERFETCH_FACTOR = "retrieval.overfetch.factor";
    public static final String DEFAULT_K = "retrieval.default.k";
    public static final String MAX_K = "retrieval.max.k";
    public static final String CONTEXT_BUDGET_TOKENS = "retrieval.context.budget.tokens";
    public static final String MAX_MESSAGES = "input.max.messages";
    public static final String MAX_MESSAGE_CHARS = "input.max.message.chars";
    /** How far after the receiver's wall clock an event time may lie, ms ({@link #DEFAULT_MAX_FUTURE_MS}). */
    public static final String MAX_FUTURE_MS = "input.max.future.ms";
    /**
     * The default of {@link #MAX_FUTURE_MS}: 1 h, the tolerance Kafka 4 gives a record's timestamp by default: the
     * topic setting {@code message.timestamp.after.max.ms}, whose broker default is
     * {@code ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT} = 3,600,000 ms (kafka-server-common 4.3.1;
     * {@code Long.MAX_VALUE} before Kafka 4.0). Engram's topics lift the broker's limit ({@code TopicSetup}), so old data
     * replays; this setting is where the pipeline applies Kafka's tolerance instead.
     */
    public static final long DEFAULT_MAX_FUTURE_MS = 3_600_000L;
    public static final String MIN_RELEVANCE = "retrieval.min.relevance";
    public static final String MIN_TOP_RELEVANCE = "retrieval.min.top.relevance";
    public static final String SKIP_COVERED_EPISODES = "retrieval.skip.covered.episodes";
    public static final String SKIP_OBSERVED = "retrieval.skip.observed";
    public static final String OBSERVATION_LIFT = "retrieval.observation.lift";
    public static final String RELEVANCE_CALIBRATION = "retrieval.relevance.calibration";
    public static final String KIND_PRIOR = "retrieval.relevance.kind.prior";
    public static final String QUERY_CACHE_SIZE = "retrieval.query.cache.size";
    public static final String EMBEDDING_SIMILARITY_FLOORS = "embedding.similarity.floors";
    public static final String LIFECYCLE_INTERVAL_MS = "lifecycle.interval.ms";
    public static final String MERGE_THRESHOLD = "lifecycle.merge.threshold";
    public static final String OBSERVE_THRESHOLD = "lifecycle.observe.threshold";
    public static final String OBSERVE_INTERVAL_MS = "lifecycle.observe.interval.ms";
    public static final String OBSERVE_QUIET_MS = "lifecycle.observe.quiet.ms";
    public static final String OBSERVE_MAX_MEMBERS = "lifecycle.observe.max.members";
    public static final String STALE_DAYS = "lifecycle.stale.days";
    public static final String STALE_MAX_IMPORTANCE = "lifecycle.stale.max.importance";
    public static final String STALE_MAX_ACCESS_COUNT = "lifecycle.stale.max.access.count";
    public static final String TTL_ROLE_DAYS = "lifecycle.ttl.role.days";
    public static final String TTL_CONTEXT_DAYS = "lifecycle.ttl.context.days";
    public static final String TTL_INFERRED_FACTOR = "lifecycle.ttl.inferred.factor";
    public static final String ARCHIVE_RETENTION_DAYS = "lifecycle.archive.retention.days";
    public static final String PII_ACTION = "privacy.pii.action";

    private static final long DAY_MS = 86_400_000L;

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public DomainConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "domain";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(MIN_IMPORTANCE, Type.DOUBLE, 0.3, Range.between(0.0, 1.0), Importance.MEDIUM,
                "Candidates below this importance (0..1) are not stored.")
            .define(MIN_CONFIDENCE, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.MEDIUM,
                "Candidates below this confidence (0..1) are not stored.")
            .define(REINFORCE_THRESHOLD, Type.DOUBLE, 0.9, Range.between(-1.0, 1.0), Importance.MEDIUM,
                "Similarity (cosine on the embedding.similarity.floors scale) above which a candidate reinforces an active memory of the same user (unless a fact's value differs).")
            .define(JUDGE_THRESHOLD, Type.DOUBLE, 0.7, Range.between(-1.0, 1.0), Importance.MEDIUM,
                "Similarity (embedding.similarity.floors scale) from which (up to the reinforce threshold) the ContradictionJudge is asked.")
            .define(WEIGHT_SEMANTIC, Type.DOUBLE, 0.85, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of semantic relevance. The total is the weighted mean of the four components "
                    + "(divided by the sum of the weights), so it stays in 0..1 for any weights; all four 0 is refused at start.")
            .define(WEIGHT_RECENCY, Type.DOUBLE, 0.0, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of recency = exp(-days since last access / decay days). 0 by default: what is "
                    + "out of date is superseded or archived by the consolidator, and what the user relies on lately "
                    + "is counted by the access weight; a recency prior on top pulled older but relevant episodes out "
                    + "of the top 10 (LoCoMo dev, BENCHMARKS.md). Raise it where users mostly ask about recent events.")
            .define(WEIGHT_IMPORTANCE, Type.DOUBLE, 0.02, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of importance (the extractor's estimate, not a relevance; a tie-breaker: every "
                    + "extractor has its own scale, and at 0.05 the LLM path's uniformly important facts outranked the "
                    + "more relevant episodes of the same turns, at 0.1 barely relevant important memories outranked "
                    + "relevant ones).")
            .define(WEIGHT_ACCESS, Type.DOUBLE, 0.03, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of access = min(accessCount / saturation, 1).")
            .define(RECENCY_DECAY_DAYS, Type.DOUBLE, 30.0, Range.atLeast(0.001), Importance.LOW,
                "Days in the recency decay exp(-days / decay).")
            .define(ACCESS_SATURATION, Type.INT, 10, Range.atLeast(1), Importance.LOW,
                "Access count at which the access component reaches 1.")
            .define(OVERFETCH_FACTOR, Type.INT, 3, Range.atLeast(1), Importance.LOW,
                "Retrieval fetches k × this many candidates before re-ranking.")
            .define(DEFAULT_K, Type.INT, 5, Range.between(1, 100), Importance.LOW,
                "k when a retrieval request gives none.")
            .define(MAX_K, Type.INT, 100, Range.between(1, 1000), Importance.LOW,
                "Largest k a retrieval request may ask for; larger is a 400.")
            .define(CONTEXT_BUDGET_TOKENS, Type.INT, 512, Range.atLeast(16), Importance.LOW,
                "Token budget of the context block when the request gives none.")
            .define(MAX_MESSAGES, Type.INT, 2000, Range.atLeast(1), Importance.LOW,
                "Conversations with more messages are sent to the dead-letter topic.")
            .define(MAX_MESSAGE_CHARS, Type.INT, 100_000, Range.atLeast(1), Importance.LOW,
                "Messages longer than this many characters send the conversation to the dead-letter topic.")
            .define(MAX_FUTURE_MS, Type.LONG, DEFAULT_MAX_FUTURE_MS, Range.between(0, 100L * 365 * DAY_MS), Importance.LOW,
                "How far after the receiver's wall clock an event time may lie, ms (default 1 h, the tolerance Kafka 4 "
                    + "gives a record's timestamp by default, message.timestamp.after.max.ms). A conversation whose "
                    + "completedAt or a message's timestamp lies later is refused: POST .../conversations answers 400, the "
                    + "MCP tool save_conversation an error, bin/engram ingest refuses the line, and the extractor "
                    + "dead-letters one written to conversations-completed directly (a replay runs later, so it accepts "
                    + "what the live run accepted). The consolidator's lifecycle time (when its daily pass runs and the "
                    + "time it ages memories to) ignores a record dated more than this after its own clock, so one bad "
                    + "date (9999, a typo, a client's wrong clock) never ages the other users of its partition.")
            .define(MIN_RELEVANCE, Type.DOUBLE, 0.002, Range.between(0.0, 1.0), Importance.LOW,
                "A memory is a retrieval candidate only if its calibrated relevance (the semantic component, 0..1: "
                    + "the estimated probability that it answers the query) is at least this; below it is never "
                    + "returned, however few hits remain, so an unrelated question gets nothing.")
            .define(MIN_TOP_RELEVANCE, Type.DOUBLE, 0.0, Range.between(0.0, 1.0), Importance.LOW,
                "A query is answered only if its most relevant memory reaches this calibrated relevance; else nothing is "
                    + "returned, however many memories pass retrieval.min.relevance. 0 = off: with MiniLM a weakly related "
                    + "but wanted fact (a diet for a cooking question, ~0.003) scores like chit-chat for an unrelated question.")
            .define(SKIP_COVERED_EPISODES, Type.BOOLEAN, true, Importance.LOW,
                "An episodic hit whose source messages are all cited by episodic hits ranked above it is left out and "
                    + "the next one takes its place (a turn's own episode after the exchange episode that holds the turn "
                    + "and its reply): the k hits then cite k different exchanges. Facts are never left out.")
            .define(SKIP_OBSERVED, Type.BOOLEAN, true, Importance.LOW,
                "In GET .../memories?query=: a hit that an observation ranked above it states word for word (an "
                    + "observation holds its statements' own words, without the (re: \"...\") question an answer carries) "
                    + "is left out and the next one takes its place; an exchange episode whose user turn a statement above "
                    + "it is word for word takes that statement's place (it says the same and the reply). The context "
                    + "block leaves out text already in it anyway.")
            .define(OBSERVATION_LIFT, Type.BOOLEAN, true, Importance.LOW,
                "An observation (or topic list) takes the relevance of the best candidate statement it cites when that is "
                    + "above its own: its one embedding averages up to lifecycle.observe.max.members statements, so it matches "
                    + "a question one of them answers less well than that statement does.")
            .define(RELEVANCE_CALIBRATION, Type.STRING, "", Importance.LOW,
                "Coefficients b0,b_dense,b_lexical[,b_period] of semantic = sigmoid(b0 + b_dense*cosine + b_lexical*BM25/idf mass "
                    + "+ b_period*[the memory lies in the period the question names]) for embedding.model; empty = the fit for the "
                    + "model (all-minilm-l6-v2-q, bge-small-en-v15-q, bge-small-zh-v15-q; bench quality --calibrate fits one). "
                    + "Other models (embedding.model.han) keep their fit unless named: entries "
                    + "<model>:b0,b_dense,b_lexical[,b_period] separated by ';' (e.g. bge-small-zh-v15-q:-8,7,9,2.6).")
            .define(KIND_PRIOR, Type.STRING, "observation:2.3,summary:1.4,fact:0.3", new KindPriorValidator(), Importance.LOW,
                "Prior log-odds that a memory of each kind holds the answer at equal relevance, added to a hit's calibrated "
                    + "relevance logit when GET .../memories?query= orders its list (not in a context block, which is judged per "
                    + "token): entries kind:b separated by ',' for the kinds statement, reply, recommendation, summary, fact, "
                    + "observation (a kind left out: 0). The default is fitted on LoCoMo dev (bench quality --calibrate); "
                    + "empty = no kind weighs more than another.")
            .define(QUERY_CACHE_SIZE, Type.INT, 256, Range.atLeast(0), Importance.LOW,
                "Query vectors the retriever keeps (least recently used dropped first); 0 = embed every query.")
            .define(EMBEDDING_SIMILARITY_FLOORS, Type.LIST,
                "all-minilm-l6-v2-q=0,bge-small-en-v15-q=0.52,bge-small-zh-v15-q=0.40", Importance.LOW,
                "MODEL=FLOOR per embedding model: the similarity thresholds between two memories (dedup.*, "
                    + "lifecycle.merge.threshold) apply to (cosine - floor) / (1 - floor), so they mean the same for every model "
                    + "(bge puts unrelated sentences near cosine 0.5; floors measured by matching cosine quantiles to MiniLM's, "
                    + "whose floor is 0). A model not listed uses raw cosine.")
            .define(LIFECYCLE_INTERVAL_MS, Type.LONG, 86_400_000L, Range.atLeast(1), Importance.LOW,
                "Stream time (event time, ms) between two consolidation passes of the consolidator (merge, stale, TTL, "
                    + "hard delete); one day by default, as the seeds' daily consolidation.")
            .define(MERGE_THRESHOLD, Type.DOUBLE, 0.85, Range.between(-1.0, 1.0), Importance.LOW,
                "Similarity (embedding.similarity.floors scale) from which active memories of one type (without a fact key) are merged into one; 1 disables merging.")
            .define(OBSERVE_THRESHOLD, Type.DOUBLE, 0.48, Range.between(-1.0, 1.0), Importance.LOW,
                "Similarity (embedding.similarity.floors scale) between a user's statement and a topic group's centroid "
                    + "from which the consolidator states them together in one observation citing all their messages "
                    + "(what a question spread over many conversations finds in one hit); the consolidator then embeds each "
                    + "observation with the deployment's model. 0.48 (raw cosine 0.75 for bge-small-en) measured best on "
                    + "LoCoMo dev; 1 disables observations.")
            .define(OBSERVE_INTERVAL_MS, Type.LONG, 5_000L, Range.atLeast(100), Importance.LOW,
                "Wall-clock time (ms) between two regroupings of the observations of the users whose statements changed "
                    + "since their last one (at most 64 users and about 2 s each time), so observations follow within seconds without "
                    + "stream time advancing; the result depends on the statements only, not on when it runs.")
            .define(OBSERVE_QUIET_MS, Type.LONG, 0L, Range.atLeast(0), Importance.LOW,
                "Also regroup those users' observations once no record of any task of the app instance has come for this long "
                    + "and since the look before (looks every quarter of this, wall clock), not only every "
                    + "lifecycle.observe.interval.ms; 0 (the default) = off: a live stream arriving in bursts would regroup "
                    + "after every burst. A quiet regrouping rewrites each user's observations completely at once (an interval's "
                    + "at most 8 per user). bin/engram rebuild sets it (with a longer interval), so the replay regroups once, "
                    + "when its input ends; the result is the same on any schedule.")
            .define(OBSERVE_MAX_MEMBERS, Type.INT, 16, Range.between(2, 64), Importance.LOW,
                "Statements one observation states at most (its content is also capped at 2,000 characters).")
            .define(STALE_DAYS, Type.INT, 90, Range.atLeast(1), Importance.LOW,
                "A memory unused (not accessed, not restated) for more days than this can be archived as STALE.")
            .define(STALE_MAX_IMPORTANCE, Type.DOUBLE, 0.4, Range.between(0.0, 1.0), Importance.LOW,
                "Only memories below this importance become STALE; above memory.min.importance, or nothing stored is "
                    + "ever stale (the default 0.4 takes the two lowest bands the rule-based extractor stores: 0.3, a long turn "
                    + "with no signal, and 0.35, a short remark with one).")
            .define(STALE_MAX_ACCESS_COUNT, Type.INT, 2, Range.atLeast(0), Importance.LOW,
                "Only memories used fewer times than this become STALE: accesses plus restatements after the first "
                    + "statement (reinforcement counts as use).")
            .define(TTL_ROLE_DAYS, Type.INT, 120, Range.atLeast(0), Importance.LOW,
                "Days an explicit ROLE fact (job title, employer) lives after its last statement; 0 = permanent.")
            .define(TTL_CONTEXT_DAYS, Type.INT, 30, Range.atLeast(0), Importance.LOW,
                "Days an explicit CONTEXT fact (current project, situation) lives after its last statement; 0 = permanent. "
                    + "Preferences, technical, constraint and personal facts and episodes are permanent.")
            .define(TTL_INFERRED_FACTOR, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.LOW,
                "TTL of an INFERRED fact as a fraction of the explicit one's.")
            .define(ARCHIVE_RETENTION_DAYS, Type.INT, 365, Range.atLeast(1), Importance.LOW,
                "Archived memories are hard-deleted (tombstones, vector deleted, a DELETED event) this many days after archiving.")
            .define(PII_ACTION, Type.STRING, "redact", ValidString.in("redact", "drop"), Importance.MEDIUM,
                "What the extractor (and a correction through the API) does with a memory containing a card number "
                    + "(Luhn), an IBAN (mod-97) or a national id / SSN: redact the identifier, or drop the memory.");
    }

    /**
     * Refused: {@code retrieval.default.k} above {@code retrieval.max.k} (every request without {@code k} would be a
     * 400). Warned: {@code lifecycle.stale.max.importance} at or below {@code memory.min.importance} (and above 0,
     * which turns staleness off) or {@code lifecycle.stale.max.access.count} 0 (STALE never fires);
     * {@code dedup.judge.threshold} above {@code dedup.reinforce.threshold} (an empty judge band);
     * {@code lifecycle.interval.ms} longer than the shortest period the pass enforces (a non-zero TTL,
     * {@code lifecycle.ttl.inferred.factor} of it for INFERRED facts, the stale period, the hard-delete age: that rule
     * fires up to one interval late); {@code lifecycle.ttl.inferred.factor} 0 with a non-zero TTL (INFERRED ROLE and
     * CONTEXT facts expire at the first pass); {@code input.max.message.chars} above {@code input.max.record.bytes}
     * (a message at the character limit, at least one byte per character in UTF-8, can never fit a record, so ingest
     * refuses it by size first). The retrieval weights are checked where they are used (the scorer), not here.
     */
    @Override
    public List<ConfigFinding> check(final ConfigValues config) {
        final List<ConfigFinding> findings = new ArrayList<>();
        if (config.getInt(DEFAULT_K) > config.getInt(MAX_K)) {
            findings.add(ConfigFinding.refuse("the default k (" + config.getInt(DEFAULT_K) + ") is above the largest a "
                + "request may ask (" + config.getInt(MAX_K) + "): every request without k would be refused",
                DEFAULT_K, MAX_K));
        }
        staleness(config, findings);
        final double judge = config.getDouble(JUDGE_THRESHOLD);
        final double reinforce = config.getDouble(REINFORCE_THRESHOLD);
        if (judge > reinforce) {
            findings.add(ConfigFinding.warn("the judge is asked from " + judge + " up to " + reinforce + ": an empty band, the "
                + "ContradictionJudge is never asked about similar memories", JUDGE_THRESHOLD,
                REINFORCE_THRESHOLD));
        }
        interval(config, findings);
        final double inferred = config.getDouble(TTL_INFERRED_FACTOR);
        if (inferred == 0 && (config.getInt(TTL_ROLE_DAYS) > 0 || config.getInt(TTL_CONTEXT_DAYS) > 0)) {
            findings.add(ConfigFinding.warn("a TTL factor of 0 makes INFERRED role and context facts expire at the first pass after "
                + "they are stored", TTL_INFERRED_FACTOR, TTL_ROLE_DAYS, TTL_CONTEXT_DAYS));
        }
        if (config.getInt(MAX_MESSAGE_CHARS) > config.getInt(CoreConfig.MAX_RECORD_BYTES)) {
            findings.add(ConfigFinding.warn("a message at the character limit (" + config.getInt(MAX_MESSAGE_CHARS)
                + ", at least one byte each) can never fit a record of " + config.getInt(CoreConfig.MAX_RECORD_BYTES)
                + " bytes: ingest refuses it by size", MAX_MESSAGE_CHARS, CoreConfig.MAX_RECORD_BYTES));
        }
        return findings;
    }

    private static void staleness(final ConfigValues config, final List<ConfigFinding> findings) {
        final double staleBelow = config.getDouble(STALE_MAX_IMPORTANCE);
        final double floor = config.getDouble(MIN_IMPORTANCE);
        if (staleBelow > 0 && staleBelow <= floor) {
            findings.add(ConfigFinding.warn("only memories below importance " + staleBelow + " become STALE, and none below " + floor
                + " is stored: STALE never fires (set the stale threshold above the floor, or 0 to turn staleness off)",
                STALE_MAX_IMPORTANCE, MIN_IMPORTANCE));
        }
        if (staleBelow > 0 && config.getInt(STALE_MAX_ACCESS_COUNT) == 0) {
            findings.add(ConfigFinding.warn("no memory is used fewer than 0 times: STALE never fires",
                STALE_MAX_ACCESS_COUNT));
        }
    }

    /** The pass runs every interval: a shorter period than that is enforced up to one interval late. */
    private static void interval(final ConfigValues config, final List<ConfigFinding> findings) {
        final long interval = config.getLong(LIFECYCLE_INTERVAL_MS);
        final double inferred = config.getDouble(TTL_INFERRED_FACTOR);
        final Map<String, Long> periods = new java.util.LinkedHashMap<>();
        periods.put(STALE_DAYS, config.getInt(STALE_DAYS) * DAY_MS);
        periods.put(ARCHIVE_RETENTION_DAYS, config.getInt(ARCHIVE_RETENTION_DAYS) * DAY_MS);
        for (final String ttl : List.of(TTL_ROLE_DAYS, TTL_CONTEXT_DAYS)) {
            final long explicit = config.getInt(ttl) * DAY_MS;
            if (explicit > 0) {
                periods.put(ttl, inferred > 0 ? Math.round(explicit * inferred) : explicit);
            }
        }
        final List<String> late = periods.entrySet().stream().filter(e -> e.getValue() < interval)
            .map(Map.Entry::getKey).toList();
        if (!late.isEmpty()) {
            final List<String> keys = new ArrayList<>(List.of(LIFECYCLE_INTERVAL_MS));
            keys.addAll(late);
            if (late.stream().anyMatch(k -> k.startsWith("lifecycle.ttl.")) && inferred < 1) {
                keys.add(TTL_INFERRED_FACTOR);
            }
            findings.add(ConfigFinding.warn("the lifecycle pass runs every " + interval + " ms of event time, longer than "
                + String.join(", ", late) + " (the shortest, INFERRED facts' TTLs included): those rules fire up to "
                + "one interval late", keys.toArray(String[]::new)));
        }
    }


    /** Refuses a {@code retrieval.relevance.kind.prior} that {@link KindPrior#parse} refuses. */
    private static final class KindPriorValidator implements ConfigFields.Validator {
        @Override
        public void ensureValid(final String name, final Object value) {
            try {
                KindPrior.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "kind:log-odds,… (statement, reply, recommendation, summary, fact, observation)";
        }
    }
}
