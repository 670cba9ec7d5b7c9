package dev.engram.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * What one demo run did, counted on the topics by {@link PipelineMonitor}. Written by {@code --summary
 * FILE} as a JSON object with exactly these keys.
 *
 * @param conversations conversations accepted: records on {@code conversations-completed} minus those the
 *     extractor sent to its dead-letter topic
 * @param candidates records on {@code memory-candidates}
 * @param memoriesCreated {@code memory-updated} records with operation CREATED
 * @param memoriesReinforced ... REINFORCED
 * @param memoriesSuperseded ... SUPERSEDED
 * @param memoriesMerged ... MERGED (memories made by merging a cluster of similar ones)
 * @param memoriesArchived ... ARCHIVED by the lifecycle (stale, expired, merged into another, negated)
 * @param memoriesExpired ... ARCHIVED with reason EXPIRED (end of a fact's TTL)
 * @param contradictions records on {@code memory-contradictions}
 * @param deadLetters records on all {@code engram-<app>-dlq} topics
 * @param elapsedSeconds seconds from the start of the ingest until every app had processed everything
 * @param conversationOutcomes what became of every conversation the extractor consumed, or null when not known
 * @param memoriesArchivedByReason the lifecycle's ARCHIVED records by archive reason ({@code STALE}, {@code EXPIRED},
 *     {@code MERGED}, {@code NEGATED}, each present, 0 when none), or null when not counted (a summary file written
 *     before they were)
 */
public record DemoSummary(long conversations, long candidates, long memoriesCreated, long memoriesReinforced,
                          long memoriesSuperseded, long memoriesMerged, long memoriesArchived, long memoriesExpired,
                          long contradictions, long deadLetters, double elapsedSeconds, Outcomes conversationOutcomes,
                          Map<String, Long> memoriesArchivedByReason) {

    /** The lifecycle's archive reasons, in the order the summary names them. */
    static final java.util.List<String> LIFECYCLE_REASONS = java.util.List.of("STALE", "EXPIRED", "MERGED", "NEGATED");

    /**
     * What became of every conversation on {@code conversations-completed}: nothing silent, in = the sum of the three.
     *
     * @param in records on {@code conversations-completed}
     * @param remembered conversations that gave at least one memory candidate
     * @param nothingToRemember valid conversations with nothing to keep
     * @param deadLettered conversations on the extractor's dead-letter topic
     * @param nothingToRememberReasons the nothing-to-remember count by reason (e.g. {@code no_words} for a message of
     *     emoji only, {@code nothing_extracted}, {@code memory_off})
     */
    public record Outcomes(long in, long remembered, long nothingToRemember, long deadLettered,
                           Map<String, Long> nothingToRememberReasons) {

        /**
         * @param in records on {@code conversations-completed}
         * @param byOutcome the extractor's counts ({@code remembered}, {@code nothing_to_remember:<reason>},
         *     {@code dead_lettered:<stage>})
         * @return the outcomes
         */
        public static Outcomes of(final long in, final Map<String, Long> byOutcome) {
            final Map<String, Long> reasons = new java.util.TreeMap<>();
            long remembered = 0;
            long deadLettered = 0;
            for (final Map.Entry<String, Long> e : byOutcome.entrySet()) {
                if (e.getKey().equals("remembered")) {
                    remembered += e.getValue();
                } else if (e.getKey().startsWith("dead_lettered")) {
                    deadLettered += e.getValue();
                } else if (e.getKey().startsWith("nothing_to_remember")) {
                    reasons.merge(e.getKey().substring(e.getKey().indexOf(':') + 1), e.getValue(), Long::sum);
                }
            }
            return new Outcomes(in, remembered, reasons.values().stream().mapToLong(Long::longValue).sum(), deadLettered,
                java.util.Collections.unmodifiableMap(reasons));
        }

        /** @return conversations consumed but not (yet) counted under an outcome: 0 once the extractor is done */
        public long unaccounted() {
            return in - remembered - nothingToRemember - deadLettered;
        }
    }

    /**
     * The summary without conversation outcomes (as before they were counted).
     *
     * @param conversations as above
     * @param candidates as above
     * @param memoriesCreated as above
     * @param memoriesReinforced as above
     * @param memoriesSuperseded as above
     * @param memoriesMerged as above
     * @param memoriesArchived as above
     * @param memoriesExpired as above
     * @param contradictions as above
     * @param deadLetters as above
     * @param elapsedSeconds as above
     */
    public DemoSummary(final long conversations, final long candidates, final long memoriesCreated,
                       final long memoriesReinforced, final long memoriesSuperseded, final long memoriesMerged,
                       final long memoriesArchived, final long memoriesExpired, final long contradictions,
                       final long deadLetters, final double elapsedSeconds) {
        this(conversations, candidates, memoriesCreated, memoriesReinforced, memoriesSuperseded, memoriesMerged,
            memoriesArchived, memoriesExpired, contradictions, deadLetters, elapsedSeconds, null, null);
    }

    /**
     * @param outcomes what became of every conversation
     * @return this summary with them
     */
    public DemoSummary with(final Outcomes outcomes) {
        return new DemoSummary(conversations, candidates, memoriesCreated, memoriesReinforced, memoriesSuperseded,
            memoriesMerged, memoriesArchived, memoriesExpired, contradictions, deadLetters, elapsedSeconds, outcomes,
            memoriesArchivedByReason);
    }

    /**
     * @param byReason the lifecycle's ARCHIVED records by archive reason (a reason not given counts 0)
     * @return this summary with them
     */
    public DemoSummary withArchiveReasons(final Map<String, Long> byReason) {
        final Map<String, Long> all = new LinkedHashMap<>();
        LIFECYCLE_REASONS.forEach(reason -> all.put(reason, byReason.getOrDefault(reason, 0L)));
        return new DemoSummary(conversations, candidates, memoriesCreated, memoriesReinforced, memoriesSuperseded,
            memoriesMerged, memoriesArchived, memoriesExpired, contradictions, deadLetters, elapsedSeconds,
            conversationOutcomes, java.util.Collections.unmodifiableMap(all));
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** @return the summary as an ordered map, the JSON shape of {@code --summary} */
    public Map<String, Object> toMap() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("conversations", conversations);
        map.put("candidates", candidates);
        map.put("memoriesCreated", memoriesCreated);
        map.put("memoriesReinforced", memoriesReinforced);
        map.put("memoriesSuperseded", memoriesSuperseded);
        map.put("memoriesMerged", memoriesMerged);
        map.put("memoriesArchived", memoriesArchived);
        map.put("memoriesExpired", memoriesExpired);
        map.put("contradictions", contradictions);
        map.put("deadLetters", deadLetters);
        map.put("elapsedSeconds", elapsedSeconds);
        if (conversationOutcomes != null) {
            map.put("conversationOutcomes", conversationOutcomes);
        }
        if (memoriesArchivedByReason != null) {
            map.put("memoriesArchivedByReason", memoriesArchivedByReason);
        }
        return map;
    }

    /**
     * @param file where to write the JSON (parent directories are created)
     * @throws IOException if it cannot be written
     */
    public void write(final Path file) throws IOException {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, JSON.writeValueAsString(toMap()) + System.lineSeparator());
    }

    /**
     * @param file a file written by {@link #write(Path)}
     * @return the summary
     * @throws IOException if it cannot be read
     */
    public static DemoSummary read(final Path file) throws IOException {
        return JSON.readValue(file.toFile(), DemoSummary.class);
    }

    /** @return the human-readable block the demo prints */
    public String toText() {
        return counts() + (conversationOutcomes == null ? "" : String.format(Locale.ROOT,
            "%n  conversations in     %,d = remembered %,d + nothing to remember %,d%s + dead-lettered %,d%s",
            conversationOutcomes.in(), conversationOutcomes.remembered(), conversationOutcomes.nothingToRemember(),
            conversationOutcomes.nothingToRememberReasons() == null
                || conversationOutcomes.nothingToRememberReasons().isEmpty() ? ""
                : " " + conversationOutcomes.nothingToRememberReasons(), conversationOutcomes.deadLettered(),
            conversationOutcomes.unaccounted() == 0 ? "" : " (" + conversationOutcomes.unaccounted() + " not accounted for)"));
    }

    private String counts() {
        return String.format(Locale.ROOT, """
              conversations        %,d
              memory candidates    %,d
              memories created     %,d
              memories reinforced  %,d
              memories superseded  %,d (ARCHIVED: a newer value replaced them)
              memories merged      %,d
              memories archived    %,d = superseded %,d + by the lifecycle %,d (%s)
              contradictions       %,d
              dead letters         %,d
              elapsed              %.1f s""".indent(2).stripTrailing(), conversations, candidates, memoriesCreated, memoriesReinforced,
            memoriesSuperseded, memoriesMerged, memoriesSuperseded + memoriesArchived, memoriesSuperseded, memoriesArchived,
            lifecycleReasons(), contradictions, deadLetters, elapsedSeconds);
    }

    /**
     * @return each lifecycle reason with its count ({@code stale 500, expired 2, merged 40, negated 3}); without the
     *     counts by reason (an older summary file), the expired count alone, as such a file has it
     */
    private String lifecycleReasons() {
        if (memoriesArchivedByReason == null) {
            return String.format(Locale.ROOT, "stale, expired %,d, merged, negated", memoriesExpired);
        }
        return String.join(", ", LIFECYCLE_REASONS.stream().map(reason -> String.format(Locale.ROOT, "%s %,d",
            reason.toLowerCase(Locale.ROOT), memoriesArchivedByReason.getOrDefault(reason, 0L))).toList());
    }
}
