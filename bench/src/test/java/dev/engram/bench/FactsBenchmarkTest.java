package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FactsBenchmarkTest {

    @TempDir
    Path dir;

    @Test
    void shouldReportPrecisionAndRecallOfBothPathsWhenRunOnTheShippedSet() throws Exception {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final Path json = dir.resolve("facts.json");
        final int code = new CommandLine(new FactsBenchmark(new PrintStream(buffer, true, StandardCharsets.UTF_8)))
            .execute("--json", json.toString(), "--misses", "400");
        assertThat(code).isZero();
        assertThat(buffer.toString(StandardCharsets.UTF_8)).contains("offline", "llm", "split:held-out");
        final JsonNode figures = new ObjectMapper().readTree(Files.readString(json));
        assertThat(figures.path("set").path("turns").asInt()).isGreaterThanOrEqualTo(300);
        assertThat(figures.path("offline").path("groups").has("lang:zh")).isTrue();
        // issue 27's goal for the offline extractor, on the whole set and on the sentences the rules were not written on
        for (final JsonNode offline : List.of(figures.path("offline"), figures.path("offline").path("groups").path("split:held-out"))) {
            assertThat(offline.path("precision").asDouble()).isGreaterThanOrEqualTo(0.95);
            assertThat(offline.path("recall").asDouble()).isGreaterThanOrEqualTo(0.90);
        }
        assertThat(figures.path("offline").path("otherPeople").asInt()).as("no one else's fact read as the user's").isZero();
        // the LLM path loses nothing between the model's answer and the candidate
        assertThat(figures.path("llm").path("recall").asDouble()).isEqualTo(1.0);
        assertThat(figures.path("llm").path("precision").asDouble()).isEqualTo(1.0);
    }
}
