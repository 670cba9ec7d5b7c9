package dev.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.streams.PipelineConfig;
import downstream.PlainRegistryConsumer;
import dev.engram.bench.EmbeddedStack;
import dev.engram.serde.RegistryAvroSerdes;
import dev.engram.serde.SchemaRegistryClient;
import dev.engram.serde.NewerWriter;
import dev.engram.serde.SchemaRegistryDouble;
import dev.engram.topics.TopicSerdes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;

/**
 * The embedded stack with {@code serde.format=registry} against an in-process double of the Confluent Schema
 * Registry API ({@link SchemaRegistryDouble}): a consumer with only Apache Avro and the registry
 * ({@link PlainRegistryConsumer}, no Engram class) reads {@code conversations-completed} (published with the client)
 * and {@code memory-updated} (written by the consolidator); a newer writer schema with one more optional field is
 * accepted under BACKWARD and both the old consumer and Engram's own retriever keep reading.
 */
class RegistryConsumerIT {

    @TempDir
    static Path dir;

    private static SchemaRegistryDouble registry;
    private static EmbeddedStack stack;

    @BeforeAll
    static void start() {
        registry = SchemaRegistryDouble.start();
        stack = EmbeddedStack.start(dir.resolve("run"), Map.of(PipelineConfig.SERDE_FORMAT, "registry",
            PipelineConfig.SCHEMA_REGISTRY_URL, registry.url()));
        try (ConversationPublisher publisher = new ConversationPublisher(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()), TopicSerdes.of(stack.config()))) {
            final Instant t = Instant.parse("2025-01-06T09:00:00Z");
            publisher.publish(ConversationPublisher.conversation("acme", "mira", "mira-1", List.of(
                new ConversationPublisher.Turn("user", "These days I write almost everything in Kotlin and I use IntelliJ.", t)))).join();
            publisher.publish(ConversationPublisher.conversation("acme", "leo", "leo-1", List.of(
                new ConversationPublisher.Turn("user", "I live in Porto, so keep meeting suggestions in WET.", t)))).join();
        }
        stack.awaitSettled(Duration.ofSeconds(120));
    }

    /**
     * Reads on until a record matches (90 s at most): a fresh consumer's first fetch can take seconds at load, and a
     * single short read found nothing there.
     *
     * @return every record read
     */
    private static List<GenericRecord> readUntil(final PlainRegistryConsumer consumer, final String what,
                                                 final java.util.function.Predicate<GenericRecord> wanted) {
        final List<GenericRecord> seen = new java.util.ArrayList<>();
        return dev.engram.testing.Waits.until(what, Duration.ofSeconds(90), () -> {
            seen.addAll(consumer.read(Integer.MAX_VALUE, Duration.ofSeconds(2)));
            return seen;
        }, records -> records.stream().anyMatch(wanted));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void shouldReadEngramsTopicsWithOnlyAvroAndTheRegistry() throws Exception {
        final List<GenericRecord> conversations;
        try (PlainRegistryConsumer consumer = new PlainRegistryConsumer(stack.bootstrapServers(), registry.url(),
            Topic.CONVERSATIONS_COMPLETED.name(), null)) {
            conversations = consumer.read(2, Duration.ofSeconds(30));
        }
        assertThat(conversations).extracting(r -> r.get("userId").toString()).containsExactlyInAnyOrder("mira", "leo");
        assertThat(conversations).allSatisfy(r -> assertThat((List<?>) r.get("messages")).hasSize(1));

        final List<GenericRecord> updates;
        try (PlainRegistryConsumer consumer = new PlainRegistryConsumer(stack.bootstrapServers(), registry.url(),
            Topic.MEMORY_UPDATED.name(), null)) {
            updates = consumer.read(2, Duration.ofSeconds(30));
        }
        assertThat(updates).isNotEmpty().allSatisfy(r -> assertThat(r.get("operation")).isNotNull());
        assertThat(updates).anySatisfy(r -> assertThat(((GenericRecord) r.get("memory")).get("content").toString()).contains("Kotlin"));
        assertThat(registry.subjects()).contains(RegistryAvroSerdes.valueSubject(Topic.CONVERSATIONS_COMPLETED.name()),
            RegistryAvroSerdes.valueSubject(Topic.MEMORY_CANDIDATES.name()), RegistryAvroSerdes.valueSubject(Topic.MEMORY_UPDATED.name()),
            RegistryAvroSerdes.valueSubject(Topic.USER_PROFILES.name()));
        final SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), null);
        assertThat(client.subjectCompatibility(RegistryAvroSerdes.valueSubject(Topic.MEMORY_UPDATED.name()))).contains("BACKWARD");
    }

    @Test
    void shouldImportNothingOfEngramInTheDownstreamConsumer() throws Exception {
        final String source = Files.readString(Path.of("src/test/java/downstream/PlainRegistryConsumer.java"));
        assertThat(source).contains("import org.apache.avro.").doesNotContain("import dev.engram");
    }

    @Test
    void shouldKeepTheOldConsumerAndTheRetrieverReadingWhenAnOptionalFieldIsAdded() throws Exception {
        final String subject = RegistryAvroSerdes.valueSubject(Topic.MEMORY_UPDATED.name());
        final SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), null);
        final Schema old = client.latest(subject).schema();
        final Schema evolved = NewerWriter.withField(old, "{\"name\": \"sentiment\", \"type\": [\"null\", \"string\"], \"default\": null}");
        assertThat(client.isCompatible(subject, evolved)).isTrue();
        final int evolvedId = client.register(subject, evolved);

        // a newer Engram release writes the same memory again, with the new field and a corrected content
        final GenericRecord original;
        try (PlainRegistryConsumer consumer = new PlainRegistryConsumer(stack.bootstrapServers(), registry.url(),
            Topic.MEMORY_UPDATED.name(), null)) {
            final java.util.function.Predicate<GenericRecord> leos = r -> r.get("userId").toString().equals("leo")
                && r.get("memory") != null;
            original = readUntil(consumer, "leo's memory on " + Topic.MEMORY_UPDATED.name(), leos).stream()
                .filter(leos).findFirst().orElseThrow();
        }
        final GenericRecord newer = new GenericData.Record(evolved);
        old.getFields().forEach(f -> newer.put(f.name(), original.get(f.name())));
        final GenericRecord memory = (GenericRecord) original.get("memory");
        memory.put("content", "Lives in Porto (written by a newer schema)");
        newer.put("eventId", original.get("eventId") + "-v2");
        newer.put("eventTime", (Long) original.get("eventTime") + 1000);
        newer.put("sentiment", "neutral");
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topic.MEMORY_UPDATED.name(), null, (Long) newer.get("eventTime"), "acme/leo",
                NewerWriter.wire(evolvedId, evolved, newer))).get();
        }

        final List<GenericRecord> seenByOld;
        try (PlainRegistryConsumer consumer = new PlainRegistryConsumer(stack.bootstrapServers(), registry.url(),
            Topic.MEMORY_UPDATED.name(), old)) {
            seenByOld = readUntil(consumer, "the newer writer's record", r -> r.get("memory") != null
                && ((GenericRecord) r.get("memory")).get("content").toString().contains("newer schema"));
        }
        assertThat(seenByOld).anySatisfy(r -> {
            assertThat(r.getSchema().getField("sentiment")).isNull();
            assertThat(((GenericRecord) r.get("memory")).get("content").toString()).contains("newer schema");
        });
        final HttpClient http = HttpClient.newHttpClient();
        // the record is applied to the read model asynchronously: a bounded wait until it is served
        dev.engram.testing.Waits.until("the newer-schema memory served", Duration.ofSeconds(90), () -> http.send(
            HttpRequest.newBuilder(URI.create(stack.apps().retrieverUrl() + "/v1/tenants/acme/users/leo/memories")).build(),
            HttpResponse.BodyHandlers.ofString()).body(), body -> body.contains("newer schema"));
        stack.apps().requireAlive();
    }
}
