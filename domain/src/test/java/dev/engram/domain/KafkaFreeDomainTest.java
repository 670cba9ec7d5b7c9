package dev.engram.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The domain module knows nothing of Kafka: no source file of {@code src/main} imports or names {@code org.apache.kafka}
 * (its settings are declared in core's Kafka-free {@code ConfigFields}; a bad setting is core's
 * {@code InvalidSettingException}). Run from the module directory, as Maven's surefire does.
 */
class KafkaFreeDomainTest {

    private static final Pattern KAFKA = Pattern.compile("\\borg\\.apache\\.kafka\\b");

    @Test
    void shouldNameNoKafkaTypeWhenAnyMainSourceIsRead() throws IOException {
        final Path main = Path.of("src", "main", "java");
        assertThat(main).as("run from the domain module's directory").isDirectory();
        final List<String> offenders;
        try (Stream<Path> files = Files.walk(main)) {
            offenders = files.filter(f -> f.toString().endsWith(".java")).filter(f -> {
                try {
                    return KAFKA.matcher(Files.readString(f)).find();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).map(Path::toString).sorted().toList();
        }
        assertThat(offenders).as("domain sources naming org.apache.kafka").isEmpty();
        assertThat(main.resolve("dev/engram/domain/DomainConfig.java")).as("the scan reads the sources").exists();
    }
}
