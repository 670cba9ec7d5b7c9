package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.serde.SchemaRegistryDouble;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;

/**
 * {@link Ingest#of} writes {@code conversations-completed} as the pipeline is configured, checked on what the broker
 * stored: the values in the configured {@code serde.format} (the schema registry's wire format, subject
 * {@code conversations-completed-value}, decoded by the extractor's deserializer) and the record batches compressed
 * with {@code ingest.compression.type} (read from the partition's log segment).
 */
class IngestFormatIT {

    @TempDir
    static Path runDir;

    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedBroker.start(runDir);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 1);
        }
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static ConversationCompleted conversation(final String id) {
        final Instant at = Instant.parse("2025-09-01T10:00:00Z");
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u-1").setConversationId(id)
            .setCompletedAt(at).setMessages(List.of(new Message(0, "user", "I use IntelliJ for everything.", at))).build();
    }

    @Test
    void shouldPublishTheRegistryWireFormatGzippedWhenThePipelineUsesTheRegistry() throws IOException {
        try (SchemaRegistryDouble registry = SchemaRegistryDouble.start()) {
            final EngramConfig config = EngramConfig.plain().with(Map.of(PipelineConfig.SERDE_FORMAT, "registry",
                PipelineConfig.SCHEMA_REGISTRY_URL, registry.url()));
            assertThat(config.getString(StackConfig.INGEST_COMPRESSION)).isEqualTo("gzip");
            try (Ingest ingest = Ingest.of(broker.bootstrapServers(), config, 1 << 20, "limit")) {
                ingest.send(conversation("c-registry"));
                ingest.flush();
                assertThat(ingest.acknowledged()).isEqualTo(1);
            }
            final ConsumerRecord<String, byte[]> record = readLast();
            assertThat(record.value()[0]).as("the registry's magic byte").isEqualTo((byte) 0);
            assertThat(registry.subjects()).contains(Topic.CONVERSATIONS_COMPLETED.name() + "-value");
            assertThat(Topic.CONVERSATIONS_COMPLETED.valueDeserializer(config).deserialize(Topic.CONVERSATIONS_COMPLETED.name(),
                record.value()).getConversationId()).isEqualTo("c-registry");
            assertThat(lastBatchCompression()).isEqualTo(CompressionType.GZIP);
        }
    }

    @Test
    void shouldPublishSingleObjectEncodingUncompressedWhenTheCodecIsNone() throws IOException {
        final EngramConfig config = EngramConfig.plain().with(Map.of(StackConfig.INGEST_COMPRESSION, "none"));
        try (Ingest ingest = Ingest.of(broker.bootstrapServers(), config, 1 << 20, "limit")) {
            ingest.send(conversation("c-plain"));
            ingest.flush();
        }
        final ConsumerRecord<String, byte[]> record = readLast();
        assertThat(new byte[] {record.value()[0], record.value()[1]}).as("single-object marker C3 01")
            .containsExactly((byte) 0xC3, (byte) 0x01);
        assertThat(lastBatchCompression()).isEqualTo(CompressionType.NONE);
    }

    private static ConsumerRecord<String, byte[]> readLast() {
        final TopicPartition partition = new TopicPartition(Topic.CONVERSATIONS_COMPLETED.name(), 0);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringDeserializer(),
            new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            final long end = consumer.endOffsets(List.of(partition)).get(partition);
            consumer.seek(partition, end - 1);
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    return r;
                }
            }
            throw new AssertionError("No record at offset " + (end - 1));
        }
    }

    /** The codec of the newest record batch in the partition's log, as the broker stored it. */
    private static CompressionType lastBatchCompression() throws IOException {
        final Path dir = broker.logDir().resolve(Topic.CONVERSATIONS_COMPLETED.name() + "-0");
        final List<Path> segments;
        try (Stream<Path> files = Files.list(dir)) {
            segments = files.filter(f -> f.toString().endsWith(".log")).sorted().toList();
        }
        final List<FileLogInputStream.FileChannelRecordBatch> batches = new ArrayList<>();
        try (FileRecords records = FileRecords.open(segments.get(segments.size() - 1).toFile())) {
            records.batches().forEach(batches::add);
            return batches.get(batches.size() - 1).compressionType();
        }
    }
}
