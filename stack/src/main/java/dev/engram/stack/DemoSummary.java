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
 */
public record DemoSummary(long conversations, long candidates, long memoriesCreated, long memoriesReinforced,
                          long memoriesSuperseded, long memoriesMerged, long memoriesArchived, long memoriesExpired,
                          long contradictions, long deadLetters, double elapsedSeconds) {

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
        return String.format(Locale.ROOT, """
              conversations        %,d
              memory candidates    %,d
              memories created     %,d
              memories reinforced  %,d
              memories superseded  %,d
              memories merged      %,d
              memories archived    %,d (of which expired: %,d)
              contradictions       %,d
              dead letters         %,d
              elapsed              %.1f s""".indent(2).stripTrailing(), conversations, candidates, memoriesCreated, memoriesReinforced,
            memoriesSuperseded, memoriesMerged, memoriesArchived, memoriesExpired, contradictions, deadLetters,
            elapsedSeconds);
    }
}
