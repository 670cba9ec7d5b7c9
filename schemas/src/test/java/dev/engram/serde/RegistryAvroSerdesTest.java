package dev.engram.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RegistryAvroSerdesTest {

    private static final String TOPIC = "conversations-completed";

    private final SchemaRegistryDouble registry = SchemaRegistryDouble.start();
    private final RecordSerdes serdes = RecordSerdes.of(SerdeFormat.REGISTRY, registry.url(), null);
    private final Serde<ConversationCompleted> serde = serdes.serde(ConversationCompleted.class);
    private final SchemaRegistryClient client = new SchemaRegistryClient(registry.url(), null);

    @AfterEach
    void stop() {
        registry.close();
    }

    private static ConversationCompleted conversation() {
        return ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u-mira").setConversationId("c-101")
            .setMessages(List.of(new Message(0, "user", "These days I write almost everything in Kotlin.",
                Instant.ofEpochMilli(1_738_573_920_000L))))
            .setCompletedAt(Instant.ofEpochMilli(1_738_573_924_000L))
            .setMetadata(Map.of("platform", "web"))
            .build();
    }

    @Test
    void shouldWriteTheConfluentWireFormatUnderTheTopicsValueSubject() {
        final byte[] bytes = serde.serializer().serialize(TOPIC, conversation());

        assertThat(bytes[0]).isEqualTo(RegistryAvroSerdes.MAGIC_BYTE);
        final int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        final SchemaRegistryClient.Registered latest = client.latest("conversations-completed-value");
        assertThat(latest.id()).isEqualTo(id);
        assertThat(latest.schema()).isEqualTo(ConversationCompleted.getClassSchema());
        assertThat(client.subjectCompatibility("conversations-completed-value")).contains("BACKWARD");
        assertThat(registry.requests()).anyMatch(r -> r.startsWith("POST /subjects/conversations-completed-value/versions "
            + SchemaRegistryClient.CONTENT_TYPE));
        assertThat(serde.deserializer().deserialize(TOPIC, bytes)).isEqualTo(conversation());
    }

    @Test
    void shouldBeReadableWithPlainAvroAndTheRegistryOnly() throws Exception {
        final byte[] bytes = serde.serializer().serialize(TOPIC, conversation());
        final Schema writer = new SchemaRegistryClient(registry.url(), null).schemaById(ByteBuffer.wrap(bytes, 1, 4).getInt());

        final GenericRecord record = new GenericDatumReader<GenericRecord>(writer)
            .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));

        assertThat(record.get("userId")).hasToString("u-mira");
        assertThat(((List<?>) record.get("messages"))).hasSize(1);
        assertThat(record.get("completedAt")).isEqualTo(1_738_573_924_000L);
    }

    @Test
    void shouldRegisterOneIdPerSchemaAcrossCallsAndKeepAnOperatorsCompatibilityLevel() {
        client.setSubjectCompatibility("memory-candidates-value", "FULL");
        final byte[] first = serde.serializer().serialize(TOPIC, conversation());
        final byte[] again = RecordSerdes.of(SerdeFormat.REGISTRY, registry.url(), null)
            .serde(ConversationCompleted.class).serializer().serialize(TOPIC, conversation());
        serdes.serde(ConversationCompleted.class).serializer().serialize("memory-candidates", conversation());

        assertThat(ByteBuffer.wrap(again, 1, 4).getInt()).isEqualTo(ByteBuffer.wrap(first, 1, 4).getInt());
        assertThat(client.subjectCompatibility("memory-candidates-value")).contains("FULL");
        assertThat(registry.subjects()).containsExactly("conversations-completed-value", "memory-candidates-value");
    }

    @Test
    void shouldAcceptANewOptionalFieldAndKeepTheOldReaderWorking() throws Exception {
        serde.serializer().serialize(TOPIC, conversation());
        final Schema evolved = NewerWriter.withField(ConversationCompleted.getClassSchema(),
            "{\"name\": \"channel\", \"type\": [\"null\", \"string\"], \"default\": null}");
        assertThat(client.isCompatible("conversations-completed-value", evolved)).isTrue();
        final int evolvedId = client.register("conversations-completed-value", evolved);
        assertThat(client.latest("conversations-completed-value").version()).isEqualTo(2);

        // a newer producer writes the new field; Engram's reader (the old schema) resolves it away
        final GenericRecord record = new GenericData.Record(evolved);
        final GenericRecord message = new GenericData.Record(evolved.getField("messages").schema().getElementType());
        message.put("index", 0);
        message.put("role", "user");
        message.put("content", "I moved to Braga.");
        message.put("timestamp", 1_000L);
        record.put("tenantId", "t1");
        record.put("userId", "u1");
        record.put("conversationId", "c9");
        record.put("messages", List.of(message));
        record.put("completedAt", 2_000L);
        record.put("metadata", Map.of());
        record.put("channel", "sms");
        final ConversationCompleted read = serde.deserializer().deserialize(TOPIC, NewerWriter.wire(evolvedId, evolved, record));

        assertThat(read.getConversationId()).isEqualTo("c9");
        assertThat(read.getMessages()).extracting(Message::getContent).containsExactly("I moved to Braga.");
        assertThat(read.getCompletedAt()).isEqualTo(Instant.ofEpochMilli(2_000L));
    }

    @Test
    void shouldRefuseAChangeTheCurrentReadersCannotResolve() {
        serde.serializer().serialize(TOPIC, conversation());
        final Schema breaking = NewerWriter.withField(ConversationCompleted.getClassSchema(), "{\"name\": \"channel\", \"type\": \"string\"}");

        assertThat(client.isCompatible("conversations-completed-value", breaking)).isFalse();
        assertThatThrownBy(() -> client.register("conversations-completed-value", breaking))
            .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.errorCode()).isEqualTo(409);
            });
    }

    @Test
    void shouldStillReadSingleObjectRecordsWrittenBeforeTheSwitch() {
        final byte[] old = AvroSerdes.serde(ConversationCompleted.class).serializer().serialize(TOPIC, conversation());

        assertThat(serde.deserializer().deserialize(TOPIC, old)).isEqualTo(conversation());
        assertThat(registry.requests()).isEmpty();
    }

    @Test
    void shouldRaiseSerializationExceptionsForGarbageAnUnknownIdOrAnUnreachableRegistry() {
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, "{\"tenantId\":\"t1\"}".getBytes()))
            .isInstanceOf(SerializationException.class).hasMessageContaining("magic byte 0");
        final byte[] bytes = serde.serializer().serialize(TOPIC, conversation());
        bytes[4] = 99;
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, bytes))
            .isInstanceOf(SerializationException.class).hasMessageContaining("writer schema 99");
        final byte[] truncated = java.util.Arrays.copyOf(serde.serializer().serialize(TOPIC, conversation()), 12);
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, truncated)).isInstanceOf(SerializationException.class);
        registry.close();
        final Serde<ConversationCompleted> offline = RecordSerdes.of(SerdeFormat.REGISTRY, registry.url(), null)
            .serde(ConversationCompleted.class);
        assertThatThrownBy(() -> offline.serializer().serialize("memory-updated", conversation()))
            .isInstanceOf(SerializationException.class).hasMessageContaining("memory-updated-value");
        assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldNameTheFormatsByTheirConfigValues() {
        assertThat(SerdeFormat.parse("Registry")).isEqualTo(SerdeFormat.REGISTRY);
        assertThat(SerdeFormat.parse("single-object")).isEqualTo(SerdeFormat.SINGLE_OBJECT);
        assertThatThrownBy(() -> SerdeFormat.parse("confluent")).hasMessageContaining("single-object or registry");
        assertThatThrownBy(() -> RecordSerdes.of(SerdeFormat.REGISTRY, " ", null)).hasMessageContaining("schema.registry.url");
    }
}
