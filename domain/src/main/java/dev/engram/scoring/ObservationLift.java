package dev.engram.scoring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import dev.engram.port.ExtractedMemory;
import dev.engram.text.MemoryText;

/**
 * An observation is as relevant as its best-matching statement: a memory that states up to 16 statements on one topic
 * has one embedding of all of them, an average that matches no single question well, so a question one of its
 * statements answers ranks the statement and leaves the observation (and the other statements' evidence it cites)
 * below the top. Here each observation (and topic list) takes the relevance logit of the best candidate statement it
 * cites (a statement whose first source, the message that first said it, is one of the observation's sources: how
 * {@code Observations} builds an observation's sources), when that is above its own — the max over its members that
 * Hindsight and ColBERT-style late interaction score a multi-part document by, restricted to the members that are
 * candidates already (the best {@code overfetch·k}), so it costs no extra vector comparison.
 *
 * <p><b>Stated or only cited.</b> One message may say several things ("I work at Siemens. I am vegetarian. My cat is
 * called Luna."): an observation about pets cites it, and so does the statement "Works at Siemens", which the
 * observation does not state. The relevance is the observation's own only when it states the statement
 * ({@link #states}: an observation holds the statement's own words; every sentence of the statement names a value a
 * topic list lists); otherwise it is lent ({@link Candidate.Lent}): the derived memory is still a candidate with the
 * lender's logit (it cites the lender's message, which is what LoCoMo's turn-level evidence counts), but the priors
 * rank it right below the lender, never above it, and a list's kind prior does not apply to the lent relevance
 * ({@link Priors}). Its own relevance (or that of the best statement it does state) still ranks it as its own.
 *
 * <p>Only statements lift: not an exchange episode, a conversation summary or another observation. The lifted
 * candidates join the ranking by relevance (ties by id) and the list is cut to its former length again, so the priors
 * then see the same number of candidates. Both ranking paths ({@link HybridScorer}) apply it to their candidates, so
 * they still agree. Stateless.
 */
final class ObservationLift {

    private ObservationLift() {
    }

    /**
     * @param memory a memory
     * @return whether it is an observation or a topic list (a memory that may be lifted)
     */
    static boolean lifts(final Memory memory) {
        return ExtractedMemory.isObservation(memory.getType(), memory.getDisplayName());
    }

    /**
     * @param ranked candidates by relevance, best first (the best {@code fetch})
     * @param observations the ranked memories' observations with their own relevance, candidates or not (logit
     *     below the threshold too)
     * @param fetch candidates kept
     * @return the candidates with lifted observations, best first, at most {@code max(fetch, ranked.size())}
     */
    static List<Candidate> lift(final List<Candidate> ranked, final List<Candidate> observations,
                                final int fetch) {
        if (ranked.isEmpty() || observations.isEmpty()) {
            return ranked;
        }
        // statements by first source, best first (ranked is)
        final Map<SourceRef, List<Candidate>> bySource = new HashMap<>();
        for (final Candidate c : ranked) {
            final Memory m = c.memory();
            if (m.getSources().isEmpty() || lifts(m) || ExtractedMemory.isExchange(m.getDisplayName())
                || ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
                continue;
            }
            bySource.computeIfAbsent(m.getSources().get(0), ref -> new ArrayList<>()).add(c);
        }
        if (bySource.isEmpty()) {
            return ranked;
        }
        final Map<String, Candidate> byId = new HashMap<>();
        for (final Candidate c : ranked) {
            byId.put(c.memory().getMemoryId(), c);
        }
        boolean changed = false;
        for (final Candidate o : observations) {
            final Candidate held = byId.get(o.memory().getMemoryId());
            final Candidate c = held != null ? held : o;
            final Candidate lifted = lifted(c, bySource);
            if (lifted != c) {
                byId.put(c.memory().getMemoryId(), lifted);
                changed = true;
            }
        }
        if (!changed) {
            return ranked;
        }
        final List<Candidate> out = new ArrayList<>(byId.values());
        out.sort(Candidate.BY_RELEVANCE);
        return out.subList(0, Math.min(Math.max(fetch, ranked.size()), out.size()));
    }

    /**
     * @param o an observation or topic list with its own logit
     * @param bySource candidate statements by first source, best first
     * @return o lifted to its best cited statement's logit (its own when it states that statement, else lent), or o
     *     itself when no cited statement is more relevant
     */
    private static Candidate lifted(final Candidate o, final Map<SourceRef, List<Candidate>> bySource) {
        final List<Candidate> cited = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        for (final SourceRef ref : o.memory().getSources()) {
            for (final Candidate s : bySource.getOrDefault(ref, List.of())) {
                if (s.logit() > o.logit() && seen.add(s.memory().getMemoryId())) {
                    cited.add(s);
                }
            }
        }
        if (cited.isEmpty()) {
            return o;
        }
        cited.sort(Candidate.BY_RELEVANCE);
        final LiftText derived = o.text();
        for (int i = 0; i < cited.size(); i++) {
            if (states(derived, cited.get(i).text())) {
                // the best statement it states is its own relevance; a better one it only cites is lent
                return i == 0 ? o.withLogit(cited.get(0).logit()) : o.borrowing(cited.get(0), cited.get(i).logit());
            }
        }
        return o.borrowing(cited.get(0), o.logit());
    }

    /**
     * Whether a derived memory states a statement it cites: an observation holds the statement's own words
     * ({@link MemoryText#ownWords}, as {@code Observations} writes them); a topic list names one of its values in
     * every sentence of the statement that is not small talk or a question (the terms of a value, {@link TextAnalysis},
     * all in the sentence's).
     *
     * @param derived an observation or topic list
     * @param statement a statement whose first source it cites
     * @return whether it states it
     */
    static boolean states(final Memory derived, final Memory statement) {
        return states(LiftText.of(derived), LiftText.of(statement));
    }

    /**
     * {@link #states(Memory, Memory)} over the two memories' texts, which keep what they computed ({@link LiftText}).
     *
     * @param derived an observation's or topic list's text
     * @param statement a cited statement's text
     * @return whether the derived memory states the statement
     */
    static boolean states(final LiftText derived, final LiftText statement) {
        final String own = statement.own();
        if (own.isEmpty()) {
            return false;
        }
        if (!derived.topicList()) {
            return derived.content().contains(own);
        }
        final List<List<String>> values = derived.listedValues();
        boolean any = false;
        for (final Set<String> terms : statement.sentenceTerms()) {
            if (values.stream().noneMatch(terms::containsAll)) {
                return false;
            }
            any = true;
        }
        return any;
    }
}
