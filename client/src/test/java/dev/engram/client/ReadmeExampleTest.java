package dev.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** The README's client example is the code of {@link Example}, so running Example runs what the README shows. */
class ReadmeExampleTest {

    @Test
    void shouldShowExactlyTheCodeOfExampleInTheReadme() throws Exception {
        final String source = Files.readString(Path.of("src/main/java/dev/engram/client/Example.java"));
        final String region = source.substring(source.indexOf("// readme:start\n") + "// readme:start\n".length(),
            source.indexOf("        // readme:end"));
        final String code = Arrays.stream(region.stripTrailing().split("\n"))
            .map(line -> line.startsWith("        ") ? line.substring(8) : line).collect(Collectors.joining("\n"));
        final String readme = Files.readString(Path.of("..", "README.md"));
        final String shown = readme.substring(readme.indexOf("<!-- client-example:start -->"),
            readme.indexOf("<!-- client-example:end -->"));

        assertThat(code).contains("ConversationPublisher", "mira.context(");
        assertThat(shown).contains("```java\n" + code + "\n```");
    }
}
