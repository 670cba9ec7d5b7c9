package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bench extraction} end to end (in-process broker, the real extractor app and embedding model, the stub LLM over
 * HTTP) on the invented LoCoMo-format file {@code bench/replay-mini.json}: two runs of the same input write the same
 * candidates (equal {@code candidatesSha256}), every text embedded is one a candidate holds, and the clock covers the
 * conversations after the warm-up.
 */
class ExtractionBenchmarkIT {

    @TempDir
    Path dir;

    @Test
    void shouldWriteTheSameCandidatesWhenTheSameConversationsAreExtractedTwice() throws Exception {
        final Map<?, ?> first = run("first.json");
        final Map<?, ?> second = run("second.json");

        assertThat(first.get("candidatesSha256")).isEqualTo(second.get("candidatesSha256"));
        assertThat(first.get("candidatesWritten")).isEqualTo(second.get("candidatesWritten"));
        assertThat((Integer) first.get("candidatesWritten")).isPositive();
        // each distinct text of a conversation embedded once, and none that no candidate holds
        assertThat(((Number) first.get("textsEmbedded")).longValue())
            .isEqualTo(((Number) first.get("candidateTextsDistinct")).longValue());
        // the clock starts once one conversation is finished (others may have finished with it) and covers the rest
        assertThat(((Number) first.get("warmupConversations")).intValue()).isBetween(1, 3);
        assertThat(((Number) first.get("conversations")).intValue()
            + ((Number) first.get("warmupConversations")).intValue()).isEqualTo(4);
        assertThat(first.get("deadLetters")).isEqualTo(0);
    }

    private Map<?, ?> run(final String name) throws Exception {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final Path json = dir.resolve(name);
        final int exit = new CommandLine(new ExtractionBenchmark(new PrintStream(printed, true, StandardCharsets.UTF_8)))
            .execute("--input", LoCoMoReplayTest.fixture().toString(), "--llm-latency-ms", "20", "--concurrency", "1",
                "--warmup", "1",
                "--json", json.toString());
        assertThat(exit).as(printed.toString(StandardCharsets.UTF_8)).isZero();
        return new ObjectMapper().readValue(json.toFile(), Map.class);
    }
}
