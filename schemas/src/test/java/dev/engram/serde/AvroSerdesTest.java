package dev.engram.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

class AvroSerdesTest {

    private final Serde<ConversationCompleted> serde = AvroSerdes.serde(ConversationCompleted.class);

    private static ConversationCompleted conversation() {
        return ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u-mira").setConversationId("c-101")
            .setMessages(List.of(new Message(0, "user", "These days I write almost everything in Kotlin. \uD83D\uDE00", java.time.Instant.ofEpochMilli(1_738_573_920_000L))))
            .setCompletedAt(java.time.Instant.ofEpochMilli(1_738_573_924_000L))
            .setMetadata(Map.of("platform", "web"))
            .build();
    }

    @Test
    void shouldRoundTripWithSingleObjectEncoding() {
        final byte[] bytes = serde.serializer().serialize("conversations-completed", conversation());
        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        assertThat(serde.deserializer().deserialize("conversations-completed", bytes)).isEqualTo(conversation());
    }

    @Test
    void shouldDecodeRecordWrittenWithOlderWriterSchema() throws Exception {
        final Schema v1 = AvroSerdes.historicalSchemas().get(0);
        assertThat(v1.getField("metadata")).isNull();
        final Schema messageSchema = v1.getField("messages").schema().getElementType();
        final GenericRecord message = new GenericData.Record(messageSchema);
        message.put("index", 0);
        message.put("role", "user");
        message.put("content", "I prefer GCP.");
        message.put("timestamp", 1_000L);
        final GenericRecord old = new GenericData.Record(v1);
        old.put("tenantId", "t1");
        old.put("userId", "u1");
        old.put("conversationId", "c1");
        old.put("messages", List.of(message));
        old.put("completedAt", 2_000L);
        final ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);

        final ConversationCompleted decoded = serde.deserializer().deserialize("t", bytes);

        assertThat(decoded.getUserId()).isEqualTo("u1");
        assertThat(decoded.getMessages()).extracting(Message::getContent).containsExactly("I prefer GCP.");
        assertThat(decoded.getMetadata()).isEmpty();
    }

    @Test
    void shouldDecodeAUserProfileWrittenBeforeTheMemorySwitchTimeWasAdded() throws Exception {
        final Schema v1 = AvroSerdes.historicalSchemas().stream()
            .filter(schema -> "UserProfile".equals(schema.getName())).findFirst().orElseThrow();
        assertThat(v1.getField("memoryEnabledSince")).isNull();
        final GenericRecord old = new GenericData.Record(v1);
        old.put("tenantId", "t1");
        old.put("userId", "u1");
        old.put("facts", java.util.Map.of());
        old.put("activeMemories", 2);
        old.put("archivedMemories", 0);
        old.put("memoryEnabled", false);
        old.put("firstInteractionAt", null);
        old.put("lastInteractionAt", null);
        final ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);

        final dev.engram.avro.UserProfile decoded = AvroSerdes.serde(dev.engram.avro.UserProfile.class).deserializer()
            .deserialize("user-profiles", bytes);

        assertThat(decoded.getMemoryEnabled()).isFalse();
        assertThat(decoded.getActiveMemories()).isEqualTo(2);
        assertThat(decoded.getMemoryEnabledSince()).isNull();
    }

    @Test
    void shouldReadAMemoryWithItsEmbeddingExactlyAsAvrosMessageDecoderDoes() throws Exception {
        final java.util.List<Float> embedding = embedding(i -> Math.sin(i) / 20);
        final java.time.Instant at = java.time.Instant.ofEpochMilli(1_738_573_920_000L);
        final dev.engram.avro.Memory memory = dev.engram.avro.Memory.newBuilder().setMemoryId("m-1").setTenantId("t1")
            .setUserId("u1").setType(dev.engram.avro.MemoryType.SEMANTIC).setKey("language").setValue("kotlin")
            .setContent("I write almost everything in Kotlin.").setImportance(0.7).setConfidence(0.9)
            .setSource(dev.engram.avro.MemorySource.EXPLICIT).setStatus(dev.engram.avro.MemoryStatus.ACTIVE)
            .setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at).setValidFrom(at)
            .setSources(List.of()).setEmbedding(embedding).setEmbeddingModel("bge-small-en-v15-q").build();
        final byte[] bytes = AvroSerdes.serde(dev.engram.avro.Memory.class).serializer().serialize("t", memory);

        final dev.engram.avro.Memory decoded = AvroSerdes.serde(dev.engram.avro.Memory.class).deserializer()
            .deserialize("t", bytes);

        assertThat(decoded).isEqualTo(dev.engram.avro.Memory.getDecoder().decode(bytes)).isEqualTo(memory);
        assertThat(decoded.getEmbedding()).containsExactlyElementsOf(embedding);
        final byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 100);
        assertThatThrownBy(() -> AvroSerdes.serde(dev.engram.avro.Memory.class).deserializer().deserialize("t", truncated))
            .isInstanceOf(SerializationException.class).hasMessageContaining("Memory");
    }

    @Test
    void shouldWriteTheBytesOfAvrosMessageEncoderForEveryKindOfField() throws Exception {
        final java.util.List<Float> embedding = embedding(i -> Math.cos(i) / 19);
        final java.time.Instant at = java.time.Instant.ofEpochMilli(1_738_573_920_000L);
        final dev.engram.avro.Memory memory = dev.engram.avro.Memory.newBuilder().setMemoryId("m-2").setTenantId("t1")
            .setUserId("u1").setType(dev.engram.avro.MemoryType.EPISODIC).setKey(null).setValue(null)
            .setContent("Wir sind im Mai 2023 nach Lyon gezogen \uD83D\uDE00 — 我住在北京").setImportance(0.4)
            .setConfidence(0.8).setSource(dev.engram.avro.MemorySource.INFERRED)
            .setStatus(dev.engram.avro.MemoryStatus.ARCHIVED).setArchiveReason(dev.engram.avro.ArchiveReason.MERGED)
            .setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at).setValidFrom(at)
            .setValidTo(at.plusSeconds(60)).setExpiresAt(null).setSupersedes(List.of("m-0", "m-1"))
            .setEventDates(List.of("2023-05-01/2023-05-31")).setAccessCount(3)
            .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                .setMessageIndexes(List.of(0, 4)).setObservedAt(at).build()))
            .setEmbedding(embedding).setEmbeddingModel("bge-small-en-v15-q").build();
        final dev.engram.avro.MemoryUpdated event = dev.engram.avro.MemoryUpdated.newBuilder().setEventId("e-1")
            .setTenantId("t1").setUserId("u1").setMemoryId("m-2").setOperation(dev.engram.avro.UpdateOperation.ACCESSED)
            .setMemory(memory).setPreviousValue(null).setCause("access:memory-access-0@7").setEventTime(at).build();

        assertThat(AvroSerdes.serde(dev.engram.avro.Memory.class).serializer().serialize("t", memory))
            .isEqualTo(bytesOf(dev.engram.avro.Memory.getEncoder().encode(memory)));
        assertThat(AvroSerdes.serde(dev.engram.avro.MemoryUpdated.class).serializer().serialize("t", event))
            .isEqualTo(bytesOf(dev.engram.avro.MemoryUpdated.getEncoder().encode(event)));
        assertThat(serde.serializer().serialize("t", conversation()))
            .isEqualTo(bytesOf(ConversationCompleted.getEncoder().encode(conversation())));
    }

    private static java.util.List<Float> embedding(final java.util.function.IntToDoubleFunction value) {
        final java.util.List<Float> out = new java.util.ArrayList<>();
        for (int i = 0; i < 384; i++) {
            out.add((float) value.applyAsDouble(i));
        }
        return out;
    }

    private static byte[] bytesOf(final ByteBuffer buffer) {
        final byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    @Test
    void shouldRaiseSerializationExceptionForCorruptPayload() {
        final byte[] bytes = serde.serializer().serialize("t", conversation());
        final byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length / 2);
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", truncated))
            .isInstanceOf(SerializationException.class)
            .hasMessageContaining("ConversationCompleted");
    }

    @Test
    void shouldRaiseSerializationExceptionForPlainJsonOrUnknownSchema() {
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", "{\"tenantId\":\"t1\"}".getBytes()))
            .isInstanceOf(SerializationException.class);
        final byte[] bytes = serde.serializer().serialize("t", conversation());
        bytes[5] ^= 0x5A; // flip a fingerprint byte: the writer schema is now unknown
        assertThatThrownBy(() -> serde.deserializer().deserialize("t", bytes))
            .isInstanceOf(SerializationException.class);
    }

    @Test
    void shouldDeserializeNullAsTombstone() {
        assertThat(serde.deserializer().deserialize("t", null)).isNull();
        assertThat(serde.serializer().serialize("t", null)).isNull();
    }

    @Test
    void shouldRoundTripANullableTimestampWhenItIsSet() {
        final Serde<dev.engram.avro.UserProfile> profiles = AvroSerdes.serde(dev.engram.avro.UserProfile.class);
        final java.time.Instant at = java.time.Instant.parse("2025-04-01T07:00:00Z");
        final dev.engram.avro.UserProfile profile = dev.engram.avro.UserProfile.newBuilder()
            .setTenantId("t1").setUserId("u-ana").setFacts(Map.of()).setActiveMemories(1).setArchivedMemories(0)
            .setMemoryEnabled(true).setFirstInteractionAt(at).setLastInteractionAt(at).build();
        final byte[] bytes = profiles.serializer().serialize("profiles", profile);
        assertThat(profiles.deserializer().deserialize("profiles", bytes)).isEqualTo(profile);
    }

    @Test
    void shouldDecodeMemoryUpdatedWrittenBeforeAccessedWasAdded() throws Exception {
        final Schema v1 = AvroSerdes.historicalSchemas().stream()
            .filter(x -> x.getName().equals("MemoryUpdated")).findFirst().orElseThrow();
        assertThat(v1.getField("operation").schema().getEnumSymbols()).doesNotContain("ACCESSED");
        final GenericRecord old = new GenericData.Record(v1);
        old.put("eventId", "e1");
        old.put("tenantId", "t1");
        old.put("userId", "u1");
        old.put("memoryId", "m1");
        old.put("operation", new GenericData.EnumSymbol(v1.getField("operation").schema(), "ERASED"));
        old.put("memory", null);
        old.put("previousValue", null);
        old.put("cause", "command:c1");
        old.put("eventTime", 5_000L);
        final ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);

        final dev.engram.avro.MemoryUpdated decoded =
            AvroSerdes.serde(dev.engram.avro.MemoryUpdated.class).deserializer().deserialize("t", bytes);
        assertThat(decoded.getOperation()).isEqualTo(dev.engram.avro.UpdateOperation.ERASED);
        assertThat(decoded.getEventTime()).isEqualTo(java.time.Instant.ofEpochMilli(5_000L));
        assertThat(decoded.getCause()).isEqualTo("command:c1");
    }
}
