package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.engram.config.EngramConfig;
import dev.engram.stack.ProjectPaths;
import org.junit.jupiter.api.Test;

/**
 * Keeps the configuration reference's table ({@code docs/configuration.md}, linked from the README) equal to
 * {@link EngramConfig#toMarkdownTable()}. Run with {@code -Dengram.readme.update=true} to rewrite the table between
 * the markers instead of checking it. (The class keeps its name so that the command the documents give still runs it.)
 */
class ReadmeConfigTableTest {

    private static final String START = "<!-- config-table:start -->\n";
    private static final String END = "<!-- config-table:end -->";

    @Test
    void shouldMatchTheGeneratedTableWhenTheReadmeIsCurrent() throws IOException {
        final Path doc = ProjectPaths.repositoryRoot().orElseThrow().resolve("docs").resolve("configuration.md");
        final String text = Files.readString(doc);
        final int start = text.indexOf(START);
        final int end = text.indexOf(END);
        assertThat(start).as("docs/configuration.md has the config-table markers").isNotNegative();
        assertThat(end).isGreaterThan(start);
        final String expected = EngramConfig.toMarkdownTable();
        if (Boolean.getBoolean("engram.readme.update")) {
            Files.writeString(doc, text.substring(0, start + START.length()) + expected + text.substring(end));
            return;
        }
        assertThat(text.substring(start + START.length(), end))
            .as("docs/configuration.md's configuration table is stale; regenerate it with -Dengram.readme.update=true "
                + "(the command is at the top of docs/configuration.md)")
            .isEqualTo(expected);
    }
}
