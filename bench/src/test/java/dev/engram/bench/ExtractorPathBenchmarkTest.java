package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ExtractorPathBenchmarkTest {

    @TempDir
    Path dir;

    @Test
    void shouldReportCpuPerCandidateAndTheSameDigestOfTheSameOutputWhenRunTwice() throws Exception {
        final Path conversations = Path.of(getClass().getResource("/bench/replay-mini.json").toURI());
        final JsonNode first = run(conversations, "first");
        final JsonNode second = run(conversations, "second");
        assertThat(first.path("conversations").asInt()).isPositive();
        assertThat(first.path("candidates").asInt()).isPositive();
        assertThat(first.path("cpuMsPerCandidateByRound")).hasSize(3);
        assertThat(first.path("cpuMsPerCandidate").asDouble()).isPositive();
        assertThat(first.path("outputSha256").asText()).hasSize(64).isEqualTo(second.path("outputSha256").asText());
        assertThat(Files.readAllLines(dir.resolve("first.txt"))).hasSize(first.path("candidates").asInt())
            .isEqualTo(Files.readAllLines(dir.resolve("second.txt")));
    }

    @Test
    void shouldRefuseAsManyWarmUpRoundsAsRounds() {
        final int code = new CommandLine(new ExtractorPathBenchmark(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8))).execute("--rounds", "2", "--warmup", "2");
        assertThat(code).isEqualTo(2);
    }

    private JsonNode run(final Path conversations, final String name) throws Exception {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final Path json = dir.resolve(name + ".json");
        final int code = new CommandLine(new ExtractorPathBenchmark(new PrintStream(buffer, true, StandardCharsets.UTF_8)))
            .execute(conversations.toString(), "--rounds", "3", "--warmup", "1", "--dump",
                dir.resolve(name + ".txt").toString(), "--json", json.toString());
        assertThat(code).isZero();
        assertThat(buffer.toString(StandardCharsets.UTF_8)).contains("round 3:", "cpuMsPerCandidate");
        return new ObjectMapper().readTree(Files.readString(json));
    }
}
