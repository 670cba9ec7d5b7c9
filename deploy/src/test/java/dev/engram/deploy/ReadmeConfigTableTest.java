package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.engram.config.EngramConfig;
import dev.engram.stack.ProjectPaths;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README's configuration table equal to {@link EngramConfig#toMarkdownTable()}. Run with
 * {@code -Dengram.readme.update=true} to rewrite the table between the markers instead of checking it.
 */
class ReadmeConfigTableTest {

    private static final String START = "<!-- config-table:start -->\n";
    private static final String END = "<!-- config-table:end -->";

    @Test
    void shouldMatchTheGeneratedTableWhenTheReadmeIsCurrent() throws IOException {
        final Path readme = ProjectPaths.repositoryRoot().orElseThrow().resolve("README.md");
        final String text = Files.readString(readme);
        final int start = text.indexOf(START);
        final int end = text.indexOf(END);
        assertThat(start).as("README.md has the config-table markers").isNotNegative();
        assertThat(end).isGreaterThan(start);
        final String expected = EngramConfig.toMarkdownTable();
        if (Boolean.getBoolean("engram.readme.update")) {
            Files.writeString(readme, text.substring(0, start + START.length()) + expected + text.substring(end));
            return;
        }
        assertThat(text.substring(start + START.length(), end))
            .as("README.md's configuration table is stale; regenerate it with -Dengram.readme.update=true "
                + "(see the README's Configuration section)")
            .isEqualTo(expected);
    }
}
