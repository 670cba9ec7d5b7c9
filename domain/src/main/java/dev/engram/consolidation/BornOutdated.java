package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.ValueAliases;
import dev.engram.port.ExtractedMemory;

/**
 * The marks a memory is born with ({@link #atBirth}): what {@link Outdated} marks when a change comes, applied to a
 * memory that comes after the change (a late arrival, or an assistant's reply naming the old value), so the order in
 * which memories and changes arrive does not show. Stateless; thread-safe.
 */
public final class BornOutdated {

    private BornOutdated() {
    }

    /**
     * A memory born after a change it states the old value of, or arriving after a change dated later than it: marked
     * at its creation as {@link Outdated#mark} marks what the change found, so the order memories and changes arrive in
     * does not show and the one that came late is not served as current. The changes are read from the user's facts
     * that a later statement superseded or a negation took back (ARCHIVED SUPERSEDED or NEGATED: value,
     * {@code validTo}, {@code supersededBy}) and from the values corrections replaced (below). For each whose old value
     * the memory states (not its new value; a stance aside):
     * <ul>
     *   <li>said at or before the change (a late arrival): outdated at the change, by the memory holding the new value,
     *       as the change would have marked it (the change's message itself aside, and a memory naming the old value
     *       only as ended or taken back, {@link Facts#restates}: a negation's message, which no new fact cites);</li>
     *   <li>said after it, where the old value is only in words other than the user's own (an exchange's reply, a
     *       summary: not the turn of an exchange, not an episode of the user's words, which say it again) and the user
     *       did not state the value again since (no fact of the key with that value from after the change): outdated
     *       at its own creation ({@code validTo} = {@code validFrom}), never current. After a move from Lisbon the
     *       assistant's "try Cafe A Brasileira, close to your home in Lisbon" is what was said, not where the user
     *       lives.</li>
     * </ul>
     * A correction through the API rewrites the fact in place but keeps the values it replaced, each with the
     * correction's time ({@link Memory#getFormerValues}): they are changes too, made by the fact itself and by no
     * message, so a late conversation dated before the correction that names the value it had ("Greetings from Graz,
     * where I live" after a PUT from Graz to Vienna) is outdated at the correction, by the fact. A deletion keeps
     * nothing (the marker holds no value), so a late arrival naming a deleted value is not reached by this rule.
     *
     * @param created a memory as a candidate creates it (ACTIVE, not marked)
     * @param userMemories every memory of the user, every status, before it
     * @return the memory, marked when a change reaches it ({@code outdatedValues}: the old values it states, each once,
     *     in the order of {@code userMemories}; {@code validTo}: the earliest such change, or its creation;
     *     {@code supersededBy}: that change's new fact), else {@code created} itself
     */
    public static Memory atBirth(final Memory created, final List<Memory> userMemories) {
        if (created.getKey() != null || created.getStatus() != MemoryStatus.ACTIVE || created.getValidTo() != null
            || ExtractedMemory.isObservation(created.getType(), created.getDisplayName())) {
            return created;
        }
        final Instant said = created.getValidFrom();
        final String ownWords = ownWords(created);
        final List<String> values = new ArrayList<>();
        Instant until = null;
        String by = null;
        for (final Change c : changes(userMemories)) {
            if (Outdated.isPolarity(c.oldValue()) || !Outdated.states(created.getContent(), c.oldValue())
                || values.contains(c.oldValue())) {
                continue;
            }
            if (c.newValue() != null && Outdated.states(created.getContent(), c.newValue())) {
                continue; // the sentence telling the change
            }
            final Instant at;
            if (!said.isAfter(c.at())) {
                if (c.madeBy() != null && c.madeBy().getSources().stream().anyMatch(s -> Outdated.cites(created, s))) {
                    continue; // the message that made the change
                }
                if (!Facts.restates(created.getContent(), c.oldValue())) {
                    // it names the old value only as ended or taken back: the message that made a negation (which
                    // has no new fact to cite it), "My doctor stopped the metformin, I take insulin now"
                    continue;
                }
                at = c.at();
            } else if ((ownWords == null || !Outdated.states(ownWords, c.oldValue()))
                && !restatedSince(c, said, userMemories)) {
                at = said;
            } else {
                continue;
            }
            values.add(c.oldValue());
            if (until == null || at.isBefore(until)) {
                until = at;
                by = c.by();
            }
        }
        if (until == null) {
            return created;
        }
        return Memory.newBuilder(created).setValidTo(until).setSupersededBy(by).setOutdatedValues(values)
            .setUpdatedAt(created.getUpdatedAt().isAfter(until) ? created.getUpdatedAt() : until).build();
    }

    /**
     * One change of a fact's value that a memory born later may state the old value of.
     *
     * @param key the fact's key
     * @param oldValue the value the change ended
     * @param at when it ended (event time)
     * @param by the memory holding the value that replaced it, or null (a negation)
     * @param newValue that value, or null
     * @param madeBy the memory whose statement made the change (its sources are the change's message), or null for a
     *     correction through the API (a command has no message)
     */
    private record Change(String key, String oldValue, Instant at, String by, String newValue, Memory madeBy) {
    }

    /**
     * The changes of the user's facts, in the order of the memories: a fact a later statement superseded or a negation
     * took back (ARCHIVED SUPERSEDED or NEGATED: its value, {@code validTo}, {@code supersededBy}), then each value a
     * correction through the API replaced in place ({@link Memory#getFormerValues}: the value, the correction's time,
     * the fact itself holding the next value).
     */
    private static List<Change> changes(final List<Memory> userMemories) {
        final List<Change> out = new ArrayList<>();
        for (final Memory f : userMemories) {
            if (f.getKey() == null) {
                continue;
            }
            if (f.getStatus() == MemoryStatus.ARCHIVED && f.getValidTo() != null
                && (f.getArchiveReason() == ArchiveReason.SUPERSEDED || f.getArchiveReason() == ArchiveReason.NEGATED)) {
                final Memory newer = f.getSupersededBy() == null ? null : byId(userMemories, f.getSupersededBy());
                out.add(new Change(f.getKey(), f.getValue(), f.getValidTo(), f.getSupersededBy(),
                    newer == null ? null : newer.getValue(), newer));
            }
            final List<FormerValue> former = f.getFormerValues();
            for (int i = 0; i < former.size(); i++) {
                final String next = i + 1 < former.size() ? former.get(i + 1).getValue() : f.getValue();
                out.add(new Change(f.getKey(), former.get(i).getValue(), former.get(i).getCorrectedAt(), f.getMemoryId(),
                    next, null));
            }
        }
        return out;
    }

    /** @return the user's own words in a memory: an exchange's turn, an episode's text; null for a summary (none) */
    private static String ownWords(final Memory m) {
        if (ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
            return null;
        }
        final String turn = dev.engram.text.MemoryText.exchangeTurn(m.getContent());
        return turn != null ? turn : m.getContent();
    }

    /** @return whether a fact of the changed fact's key stated its old value again after the change, by {@code said} */
    private static boolean restatedSince(final Change change, final Instant said, final List<Memory> userMemories) {
        final String was = ValueAliases.fold(change.oldValue());
        return userMemories.stream().anyMatch(f -> change.key().equals(f.getKey()) && f.getValue() != null
            && ValueAliases.fold(f.getValue()).equals(was) && f.getValidFrom().isAfter(change.at())
            && !f.getValidFrom().isAfter(said));
    }

    private static Memory byId(final List<Memory> memories, final String id) {
        for (final Memory m : memories) {
            if (m.getMemoryId().equals(id)) {
                return m;
            }
        }
        return null;
    }
}
