package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.MemoryIds;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryMerger;
import dev.engram.scoring.SimilarityScale;
import dev.engram.scoring.TextAnalysis;
import dev.engram.text.MemoryText;
import dev.engram.text.TextMemo;
import dev.engram.text.TurnHeuristics;

/**
 * Observations: memories that state a user's statements on one topic together ("Melanie camped at the beach.
 * Melanie went camping in the mountains with her family. …"), citing the messages that first said each statement,
 * so a question whose answer is spread over many conversations ("Where has Melanie camped?") finds it in one
 * hit. They are the consolidation step of a memory system that Park et al. ("Generative Agents", UIST 2023)
 * call reflection, Hindsight calls observations and Zep keeps as entity summaries; here the grouping is by
 * embedding and the text is the statements themselves (see "Text" below), so it needs no model
 * call: no cost per pass, the same text on every replay, and the statements' own words stay findable by lexical
 * retrieval.
 *
 * <p><b>Which statements.</b> The user's ACTIVE memories that are statements of the user: not a conversation
 * summary ({@link ExtractedMemory#isSummary}), not an exchange episode (the user's turn and the assistant's
 * reply, verbatim: {@link ExtractedMemory#isExchange}), not an observation; of one that states a value that stopped
 * being true ({@link Outdated#isOutdated}), only the clauses still current ({@link #statementOf}).
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
 * statements in order as sentences, each once, up to {@link MemoryMerger#MAX_CHARS}; its vector = the normalised sum
 * of the normalised vectors of the statements its text voices (their centroid direction, the vector the grouping
 * compares with; no model call: the consolidator embeds nothing, and the vector is a function of the statements'
 * vectors, so a replay gives the same floats), of their model; importance and confidence = the statements' maximum;
 * sources = each statement's first source (the conversation that first said it: a restatement elsewhere stays the
 * statement's evidence, not the observation's, so it does not rewrite the observation); event dates = the union of
 * theirs; created and valid from = the newest statement's {@code createdAt}. An observation its group still gives is left as it is; one whose group changed
 * is rewritten (CREATED with the same id, access counts kept); one whose group is gone is removed (DELETED, and out
 * of the store); one the user deleted (a DELETED marker under its id) is not written again.
 *
 * <p><b>A function of the statements, whenever it runs.</b> Every field of an observation but its access counters
 * is derived from its group: content, sources, event dates, importance, confidence, {@code createdAt} (the newest
 * statement's), {@code updatedAt} (the same: the observation changes when its group does, not when a statement is
 * restated; never the time of the regrouping), and the vector of its statements; the access counters are those of
 * the observation of the same id already stored (its base counters: hits are kept apart, {@code AccessCounts}). So a regrouping at any point after the last change of the statements gives the same
 * observations, and the consolidator can run it late (marked pending, regrouped within seconds) without a replay
 * differing from the live run: see {@code ObservationRegroups} in the topology. An observation is rewritten only
 * when what its group gives differs from what is stored (one the user corrected only when its sources changed).
 *
 * <p><b>Text</b> ({@link ObservationText}). Each statement's own words, as a sentence (a period added when it ends without terminal
 * punctuation), in order, each said once: a sentence already in the text is not repeated, nor a fact that a
 * statement of the group says in the user's words (the rule extractor keeps the turn that names someone as an episode
 * beside its fact, so "Has a dog named Max" and "I have a dog named Max" would both be told); without the
 * {@code (re: "…")} context the offline extractor appends to an answer (the question someone else asked; the
 * observation cites the message), with LoCoMo's {@code [image: …]} captions
 * (they describe what the user shared, evidence questions rely on). A statement that says nothing beyond small talk
 * and questions ({@link RuleBasedExtractor#substance}) or fewer than {@value #MIN_CONTENT_TERMS} distinct content
 * terms ({@link TextAnalysis}) joins no group: a greeting is no topic.
 *
 * <p><b>Topic lists</b> ({@link TopicLists}) are observations of another shape, written by the same pass from the
 * same statements: per topic (pets, activities, places visited, …) the values the statements name, citing exactly the
 * statements that name a listed value; display name {@link ExtractedMemory#TOPIC_LIST_DISPLAY_NAME}, no event dates.
 *
 * <p><b>When a statement is taken back</b> (superseded, archived, corrected, deleted, merged, or revived: anything
 * but a new statement or a restatement of one) the consolidator regroups the user at once ({@link #reorders}), so
 * what the user took back is not served from an observation. Thread-safe if the embedder is.
 */
public final class Observations {

    /** The cause of the changes of a regrouping outside the daily pass (pending users, statements taken back). */
    public static final String CAUSE_REGROUP = "observation";
    /** Distinct content terms ({@link TextAnalysis}) a statement's substance needs to join a group. */
    public static final int MIN_CONTENT_TERMS = 2;

    /** Distinct statement contents whose derived values a pass keeps ({@link TextMemo}): a few hundred per user. */
    static final int MEMO_CAPACITY = 16_384;

    private final double threshold;
    private final Embedder embedder;
    private final ObservationGrouping grouping;
    /**
     * Per content, what a regrouping reads of each statement: whether it says something ({@link #hasSubstance}) and
     * the topic values its content names ({@link TopicValues#ofContent}). Every regrouping reads all of a user's
     * statements again; these patterns over each were over half of the consolidator stream thread's CPU in
     * {@code bench ingest} (JFR). Kept per instance (one per topology), so a second pipeline in the same JVM (the
     * benchmark's timed one after its warm-up) reads its statements itself.
     */
    private final TextMemo<Boolean> substance = new TextMemo<>(MEMO_CAPACITY, Observations::hasSubstance);
    private final TextMemo<Map<TopicLists.Topic, List<String>>> contentValues = new TextMemo<>(MEMO_CAPACITY,
        TopicValues::ofContent);

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
        this.embedder = embedder;
        this.grouping = new ObservationGrouping(threshold, maxMembers, Objects.requireNonNull(scale, "scale"));
    }

    /** @return whether this pass writes observations (an embedder, a threshold below 1) */
    public boolean enabled() {
        return embedder != null && threshold < 1.0;
    }

    /**
     * @param memory a memory
     * @return whether it is a statement an observation may hold, whole or in part ({@link #statementOf})
     */
    public static boolean isStatement(final Memory memory) {
        return statementOf(memory) != null;
    }

    /**
     * What observations and topic lists may state of a memory (see the class comment): a statement of the user (ACTIVE,
     * not a summary, an exchange or an observation) as it is while it is current; while it is outdated ({@link
     * Outdated#isOutdated}: a fact it names changed since) only the part that is still current ({@link
     * OutdatedPart#currentPart}: "I love jazz." of "I live in Porto, I love jazz." after a move from Porto), so a
     * regrouped observation never restates the old value as current, and what the user still holds stays grouped. Its
     * vector stays the whole memory's (the consolidator embeds nothing), and so do its sources and event dates.
     *
     * @param memory a memory
     * @return the memory itself, a copy of an outdated one with the part still current as its content, or null when
     *     an observation states nothing of it (not a statement, or outdated whole)
     */
    public static Memory statementOf(final Memory memory) {
        if (memory.getStatus() != MemoryStatus.ACTIVE
            || ExtractedMemory.isSummary(memory.getType(), memory.getDisplayName())
            || ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName())
            || ExtractedMemory.isExchange(memory.getDisplayName())) {
            return null;
        }
        if (memory.getValidTo() == null) {
            return memory;
        }
        final String current = OutdatedPart.currentPart(memory);
        return current == null ? null : Memory.newBuilder(memory).setContent(current).build();
    }

    /**
     * @param memory a memory
     * @return whether it is an observation (any status)
     */
    public static boolean isObservation(final Memory memory) {
        return ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName());
    }

    /**
     * What {@code bin/engram reembed} leaves to the regrouping: a memory whose vector is the centroid of its
     * statements' vectors, of their model (no model call), so it moves to another model with them, when the
     * regrouping that their {@code REEMBED} commands start writes it again from them. That is every observation and
     * topic list but an observation the user corrected, whose text and vector are the correction's (the retriever
     * embedded the new text) and which the regrouping keeps while its statements are the same: it is re-embedded
     * like a statement. A topic list's id names its model, so the regrouping replaces it, corrected or not.
     *
     * @param memory a memory
     * @return whether it is re-written from its statements rather than re-embedded
     */
    public static boolean rebuiltByRegrouping(final Memory memory) {
        return isObservation(memory) && (memory.getSource() != MemorySource.CORRECTED
            || ExtractedMemory.isTopicList(memory.getType(), memory.getDisplayName()));
    }

    /**
     * The observations of one user's statements as they are now: a function of the statements (see the class
     * comment), so calling it again, or later, gives the same result.
     *
     * @param userMemories every memory of ONE user (any status), after the pass's other rules
     * @param now the event time of the changes
     * @param cause the cause of the events
     * @return CREATED changes for new and rewritten observations, DELETED changes (remove from the store) for
     *     observations whose group is gone; empty when disabled or when nothing differs
     */
    public List<Consolidator.Change> review(final Collection<Memory> userMemories, final Instant now, final String cause) {
        return review(userMemories, now, cause, Integer.MAX_VALUE).changes();
    }

    /**
     * What one regrouping writes, and whether it is all of it.
     *
     * @param changes the changes to apply
     * @param complete false when observations whose text is new were left for a next call
     */
    public record Review(List<Consolidator.Change> changes, boolean complete) {
    }

    /**
     * As {@link #review(Collection, Instant, String)}, writing at most {@code maxRetexted} observations whose text
     * is new (the first by id); the others stay as they are until a next call, which continues (the result of the
     * calls together is the same). Removals and rewrites that keep their text are all in the first call. Nothing is
     * embedded either way (the vectors are the statements', see the class comment): the bound spreads the rewrites
     * of a growing group, which the daily pass leaves to the wall-clock regrouping (0) so a backlog that crosses a
     * day of stream time every few records does not rewrite each observation again and again.
     *
     * @param userMemories every memory of ONE user (any status)
     * @param now the event time of the changes
     * @param cause the cause of the events
     * @param maxRetexted observations whose text is new (or whose model changed) written at most
     * @return the changes, and whether nothing was left
     */
    public Review review(final Collection<Memory> userMemories, final Instant now, final String cause,
                         final int maxRetexted) {
        if (!enabled() || userMemories.isEmpty()) {
            return new Review(List.of(), true);
        }
        final Map<String, Memory> existing = new HashMap<>();
        final Set<String> deleted = new HashSet<>();
        final Map<String, List<Memory>> statementsByModel = new LinkedHashMap<>();
        for (final Memory m : userMemories) {
            if (m.getStatus() == MemoryStatus.DELETED) {
                deleted.add(m.getMemoryId()); // a DELETE command's marker (it keeps the id only)
            } else if (isObservation(m)) {
                existing.put(m.getMemoryId(), m);
            } else {
                final Memory statement = statementOf(m);
                if (statement != null && !m.getEmbedding().isEmpty() && substance.get(statement.getContent())) {
                    statementsByModel.computeIfAbsent(m.getEmbeddingModel(), k -> new ArrayList<>()).add(statement);
                }
            }
        }
        final Map<String, List<Memory>> groups = new LinkedHashMap<>();
        statementsByModel.values().forEach(statements -> grouping.group(statements, groups));
        final Map<String, TopicLists.TopicList> lists = new HashMap<>();
        statementsByModel.forEach((model, statements) -> {
            for (final TopicLists.TopicList list : TopicLists.lists(statements,
                    statement -> TopicValues.of(statement, contentValues::get))) {
                if (!TopicLists.sameScriptSide(embedder, model, list.content())) {
                    continue; // its content would be embedded by another model (Han values under an English heading)
                }
                final String id = TopicLists.idOf(statements.get(0), model, list.topic());
                lists.put(id, list);
                groups.put(id, list.statements());
            }
        });
        final List<Consolidator.Change> changes = new ArrayList<>();
        for (final Memory before : existing.values()) {
            if (before.getStatus() == MemoryStatus.ACTIVE && !groups.containsKey(before.getMemoryId())) {
                changes.add(removal(before, now, cause));
            }
        }
        final List<Memory> retexted = new ArrayList<>();
        final List<Memory> written = new ArrayList<>();
        for (final Map.Entry<String, List<Memory>> group : groups.entrySet()) {
            if (deleted.contains(group.getKey())) {
                continue; // the user deleted it: not written again while its first statement is the same
            }
            final Memory before = existing.get(group.getKey());
            final TopicLists.TopicList list = lists.get(group.getKey());
            final Memory derived = list == null ? ObservationGrouping.observation(group.getKey(), group.getValue(), before)
                : ObservationGrouping.topicList(group.getKey(), list, before);
            if (before != null && before.getStatus() == MemoryStatus.ACTIVE && (derived.equals(before)
                || before.getSource() == MemorySource.CORRECTED && before.getSources().equals(derived.getSources()))) {
                continue; // as its group gives it, or as the user corrected it
            }
            final boolean sameText = before != null && derived.getContent().equals(before.getContent())
                && Objects.equals(derived.getEmbeddingModel(), before.getEmbeddingModel());
            (sameText ? written : retexted).add(derived);
        }
        retexted.sort(Comparator.comparing(Memory::getMemoryId));
        written.addAll(retexted.subList(0, Math.min(maxRetexted, retexted.size())));
        written.sort(Comparator.comparing(Memory::getMemoryId));
        for (final Memory after : written) {
            changes.add(change(existing.get(after.getMemoryId()), after, UpdateOperation.CREATED, cause, now));
        }
        return new Review(changes, retexted.size() <= maxRetexted);
    }

    /**
     * @param change a change of one of a user's memories
     * @return whether it changes the user's statements, so the user's observations may differ (anything but an
     *     access and a change of an observation itself)
     */
    public static boolean changesStatements(final Consolidator.Change change) {
        final Memory before = change.before();
        final Memory after = change.after();
        return change.event().getOperation() != UpdateOperation.ACCESSED && !isObservation(after)
            && (before == null || !isObservation(before));
    }

    /**
     * Whether a change takes a statement back or moves it in the grouping order: anything that changes the
     * statements but a new statement or a restatement (the same statement still ACTIVE, same content, time and
     * model; the content as an observation states it, {@link #statementOf}, so a mark that outdates a clause of it
     * takes that clause back). Such a change regroups the user at once: the observations do not serve what was taken
     * back, and a regrouping before and after it give the same observations whenever they run.
     *
     * @param change a change of one of a user's memories
     * @return whether the user is to be regrouped at once
     */
    public static boolean reorders(final Consolidator.Change change) {
        if (!changesStatements(change)) {
            return false;
        }
        final Memory was = change.before() == null ? null : statementOf(change.before());
        final Memory is = statementOf(change.after());
        if (was == null) {
            return change.before() != null && is != null; // revived; a new statement waits
        }
        return is == null || !is.getContent().equals(was.getContent())
            || !is.getCreatedAt().equals(was.getCreatedAt())
            || !Objects.equals(is.getEmbeddingModel(), was.getEmbeddingModel());
    }

    /**
     * @param statement a statement
     * @return whether it says something an observation may state: beyond small talk and questions, at least
     *     {@value #MIN_CONTENT_TERMS} distinct content terms in its own words
     */
    public static boolean saysSomething(final Memory statement) {
        return hasSubstance(statement.getContent());
    }

    private static boolean hasSubstance(final String content) {
        final String substance = TurnHeuristics.substance(MemoryText.ownWords(content));
        return new HashSet<>(TextAnalysis.terms(substance)).size() >= MIN_CONTENT_TERMS;
    }

    /**
     * @param statements the statements of a group, in order
     * @return the observation's text: each statement's own words as a sentence, each once, up to
     *     {@link MemoryMerger#MAX_CHARS}
     */
    public static String text(final List<Memory> statements) {
        return ObservationText.voiced(statements).text();
    }

    /**
     * @param first the first statement of a group
     * @return the id of the group's observation
     */
    public static String idOf(final Memory first) {
        return MemoryIds.uuid("observation", first.getTenantId(), first.getUserId(), first.getMemoryId());
    }

    private static Consolidator.Change removal(final Memory observation, final Instant now, final String cause) {
        final Memory deleted = Memory.newBuilder(observation).setStatus(MemoryStatus.DELETED).setUpdatedAt(now).build();
        return change(observation, deleted, UpdateOperation.DELETED, cause, now);
    }

    /**
     * One change of an observation; its event id names the version too (content and sources), since two
     * regroupings at one point of stream time may write two versions of one observation.
     */
    private static Consolidator.Change change(final Memory before, final Memory after, final UpdateOperation operation,
                                              final String cause, final Instant now) {
        final Consolidator.Change change = MemoryLifecycle.change(before, after, operation, cause, now);
        change.event().setEventId(MemoryIds.eventId(after.getMemoryId(), operation.name(), cause + "@"
            + now.toEpochMilli() + "/" + MemoryIds.uuid(after.getContent(), after.getSources().toString())));
        return change;
    }
}
