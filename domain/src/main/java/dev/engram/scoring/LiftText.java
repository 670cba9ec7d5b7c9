package dev.engram.scoring;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.port.ExtractedMemory;
import dev.engram.text.MemoryText;
import dev.engram.text.TurnHeuristics;

/**
 * What {@link ObservationLift#states} reads of one memory's text, each part computed on first use and then kept: a
 * statement's own words ({@link MemoryText#ownWords}) and the terms of each of their sentences that is neither small
 * talk nor a question; a topic list's listed values' terms. They depend on the memory's type, display name and content
 * only, so the kept index ({@link UserMemoryIndex}) holds one per slot, replaced when the slot's memory is put again:
 * a request no longer analyses the text of every observation and cited statement it compares (JFR of
 * {@code bench retrieval}: {@code ObservationLift} was about a quarter of the request threads' Java samples, the Lucene
 * analysis and the small-talk patterns most of it). The exhaustive path makes one per candidate per request, as
 * before.
 *
 * <p>Thread-safe: request threads share an instance under the index's read lock; a part two of them compute at once is
 * computed twice, to the same value, and published through a volatile field.
 */
final class LiftText {

    private final boolean topicList;
    private final String content;
    private volatile String own;
    private volatile List<Set<String>> sentences;
    private volatile List<List<String>> values;

    private LiftText(final Memory memory) {
        this.topicList = ExtractedMemory.isTopicList(memory.getType(), memory.getDisplayName());
        this.content = memory.getContent();
    }

    /**
     * @param memory a memory
     * @return its text for {@link ObservationLift#states}, nothing computed yet
     */
    static LiftText of(final Memory memory) {
        return new LiftText(memory);
    }

    /** @return whether the memory is a topic list ({@link ExtractedMemory#isTopicList}) */
    boolean topicList() {
        return topicList;
    }

    /** @return the memory's content */
    String content() {
        return content;
    }

    /** @return the statement's own words ({@link MemoryText#ownWords}) */
    String own() {
        String local = own;
        if (local == null) {
            local = MemoryText.ownWords(content);
            own = local;
        }
        return local;
    }

    /**
     * @return the terms ({@link TextAnalysis#terms}) of each sentence of the own words ({@link TurnHeuristics#sentences})
     *     that is neither small talk nor a question, in order
     */
    List<Set<String>> sentenceTerms() {
        List<Set<String>> local = sentences;
        if (local == null) {
            final List<Set<String>> out = new ArrayList<>();
            for (final String sentence : TurnHeuristics.sentences(own())) {
                if (!TurnHeuristics.isSmallTalk(sentence) && !TurnHeuristics.isQuestion(sentence)) {
                    out.add(Set.copyOf(TextAnalysis.terms(sentence)));
                }
            }
            local = List.copyOf(out);
            sentences = local;
        }
        return local;
    }

    /**
     * @return the terms of each value a topic list lists ({@code Heading: value, value.}), values without terms left
     *     out
     */
    List<List<String>> listedValues() {
        List<List<String>> local = values;
        if (local == null) {
            final int colon = content.indexOf(':');
            String listed = content.substring(colon + 1).strip();
            if (listed.endsWith(".")) {
                listed = listed.substring(0, listed.length() - 1);
            }
            final List<List<String>> out = new ArrayList<>();
            for (final String value : listed.split(",\\s*")) {
                final List<String> terms = TextAnalysis.terms(value);
                if (!terms.isEmpty()) {
                    out.add(List.copyOf(terms));
                }
            }
            local = List.copyOf(out);
            values = local;
        }
        return local;
    }
}
