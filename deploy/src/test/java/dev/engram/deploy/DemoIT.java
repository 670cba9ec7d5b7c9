package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.engram.stack.ConversationSources;
import dev.engram.stack.DemoSummary;
import dev.engram.stack.ProjectPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/engram demo --once} on the shipped sample, run in-process: a real broker, the three
 * apps, the real embedding model. The summary is counted on the topics.
 */
class DemoIT {

    @TempDir
    Path dir;

    @Test
    void shouldCountEveryValidConversationAndDeadLetterTheTwoInvalidOnesWhenRunOnTheSample() throws Exception {
        final Path sample = ProjectPaths.sample().orElseThrow();
        final int valid = ConversationSources.readAll(sample).getValue().valid();
        final Path summaryFile = dir.resolve("summary.json");
        final ByteArrayOutputStream console = new ByteArrayOutputStream();

        final int exit;
        try (PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8)) {
            exit = new CommandLine(new DemoCommand(out)).execute("--once", "--summary", summaryFile.toString(),
                "--port", "0", "--run-dir", dir.resolve("run").toString());
        }
        final String printed = console.toString(StandardCharsets.UTF_8);
        System.out.println(printed);

        assertThat(exit).as(printed).isZero();
        final DemoSummary summary = DemoSummary.read(summaryFile);
        assertThat(summary.conversations()).isEqualTo(valid);
        assertThat(summary.deadLetters()).isEqualTo(2);
        assertThat(summary.candidates()).isPositive();
        assertThat(summary.memoriesCreated()).isPositive();
        assertThat(summary.memoriesCreated()).isLessThanOrEqualTo(summary.candidates());
        assertThat(summary.elapsedSeconds()).isPositive();
        assertThat(printed).contains("Summary (counted on the topics", "Example retrievals", "acme/mira");
    }
}
