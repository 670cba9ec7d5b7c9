package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.engram.serde.SchemaRegistryClient;
import dev.engram.serde.SchemaRegistryDouble;
import dev.engram.topics.Topic;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/engram schemas}: the exported files are what a reader in another language loads (each topic's value
 * schema alone, or the sources in their index order), and {@code register} puts every topic's value schema in a
 * registry over the Confluent REST API, idempotently, as the apps' first write would.
 */
class SchemasCommandTest {

    @TempDir
    Path dir;

    @Test
    void shouldExportOneSelfContainedValueSchemaPerTopicAndTheOrderedSourcesWhenAskedForADirectory() throws Exception {
        assertThat(new CommandLine(new SchemasCommand()).execute("export", dir.toString())).isZero();

        for (final Topic<String, ?> topic : Topic.records()) {
            final Path file = dir.resolve(topic.name() + "-value.avsc");
            // parsed alone, with a fresh parser: nothing to load before it
            assertThat(new Schema.Parser().parse(Files.readString(file)))
                .as(topic.name()).isEqualTo(SpecificData.get().getSchema(topic.valueType()));
        }
        final List<String> order = Files.readAllLines(dir.resolve("avro").resolve("index.txt"));
        final Schema.Parser parser = new Schema.Parser();
        for (final String file : order) {
            parser.parse(Files.readString(dir.resolve("avro").resolve(file)));
        }
        assertThat(parser.getTypes()).containsKey("dev.engram.avro.MemoryUpdated");
        assertThat(dir.resolve("avro-history").resolve("MemoryUpdated-v1.avsc")).exists();
    }

    @Test
    void shouldRegisterEveryTopicsValueSchemaOnceWhenRunTwiceAgainstARegistry() {
        try (SchemaRegistryDouble registry = SchemaRegistryDouble.start()) {
            assertThat(new CommandLine(new SchemasCommand()).execute("register", "--registry-url", registry.url())).isZero();
            assertThat(registry.subjects()).containsExactlyInAnyOrderElementsOf(
                Topic.records().stream().map(t -> t.name() + "-value").toList());
            assertThat(new CommandLine(new SchemasCommand()).execute("register", "--registry-url", registry.url())).isZero();
            final SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), null);
            for (final Topic<String, ?> topic : Topic.records()) {
                final SchemaRegistryClient.Registered latest = client.latest(topic.name() + "-value");
                assertThat(latest.version()).as(topic.name()).isEqualTo(1);
                assertThat(latest.schema()).isEqualTo(SpecificData.get().getSchema(topic.valueType()));
            }
        }
    }

    @Test
    void shouldNameTheRefusedConnectionWhenNoRegistryListensAtTheUrl() throws Exception {
        final int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        final java.io.PrintStream before = System.err;
        final int exit;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            exit = new CommandLine(new SchemasCommand()).execute("register", "--registry-url", "http://127.0.0.1:" + closed);
        } finally {
            System.setErr(before);
        }

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
            .contains("http://127.0.0.1:" + closed, "ConnectException", "connection refused").doesNotContain("null");
    }
}
