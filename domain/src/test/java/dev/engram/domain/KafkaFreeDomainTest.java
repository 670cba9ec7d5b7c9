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
 * The domain module knows nothing of Kafka: no source file of {@code src/main} names {@code org.apache.kafka} or one of
 * core's Kafka-bound classes (its settings are declared in core's Kafka-free {@code ConfigFields} and read through
 * {@code ConfigValues}; a bad setting is core's {@code InvalidSettingException}). Run from the module directory, as
 * Maven's surefire does.
 */
class KafkaFreeDomainTest {

    /**
     * Kafka's packages, and core's classes that are Kafka-bound (a Kafka {@code AbstractConfig}, the composition into a
     * {@code ConfigDef}, Kafka clients and stores): the domain reads settings through {@code ConfigValues} and declares
     * them in {@code ConfigFields}, so a later cut can take these out of the domain's class path.
     */
    private static final Pattern KAFKA = Pattern.compile("\\borg\\.apache\\.kafka\\b|\\b(EngramConfig|ConfigCoherence|ConfigGroups"
        + "|KafkaConnection|TopicFollower|VectorIndexFactory)\\b");

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
        assertThat(offenders).as("domain sources naming org.apache.kafka or a Kafka-bound core class").isEmpty();
        assertThat(main.resolve("dev/engram/domain/DomainConfig.java")).as("the scan reads the sources").exists();
    }
}
