package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoSummaryTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteExactlyTheAgreedKeysWhenWritingTheSummaryFile() throws Exception {
        final DemoSummary summary = new DemoSummary(374, 3916, 3612, 4, 1, 12, 30, 5, 1, 0, 25.3);
        final Path file = dir.resolve("nested/s.json");

        summary.write(file);

        final JsonNode json = new ObjectMapper().readTree(Files.readString(file));
        assertThat(json.fieldNames()).toIterable().containsExactly("conversations", "candidates", "memoriesCreated",
            "memoriesReinforced", "memoriesSuperseded", "memoriesMerged", "memoriesArchived", "memoriesExpired",
            "contradictions", "deadLetters", "elapsedSeconds");
        assertThat(json.get("conversations").asLong()).isEqualTo(374);
        assertThat(json.get("elapsedSeconds").asDouble()).isEqualTo(25.3);
        assertThat(DemoSummary.read(file)).isEqualTo(summary);
    }
}
