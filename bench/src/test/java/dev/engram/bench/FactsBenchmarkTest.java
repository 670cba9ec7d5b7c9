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
        final String printed = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        assertThat(code).isZero();
        final JsonNode figures = new ObjectMapper().readTree(Files.readString(json));
        assertThat(figures.path("set").path("turns").asInt()).isGreaterThanOrEqualTo(300);
        assertThat(figures.path("offline").path("groups").has("lang:zh")).isTrue();
        assertThat(figures.path("llm").path("recall").asDouble()).isGreaterThan(0.0);
    }
}
