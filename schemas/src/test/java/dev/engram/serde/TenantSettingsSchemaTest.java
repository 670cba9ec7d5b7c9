package dev.engram.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.CustomCategory;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.ProfileFact;
import dev.engram.avro.SourceRef;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;

/**
 * The tenant-settings fields (custom category, TTL, settings version) are additions with defaults: a record an
 * earlier release wrote (its writer schema shipped under avro-history) still decodes, with the new fields empty.
 */
class TenantSettingsSchemaTest {

    private static final Instant AT = Instant.ofEpochMilli(1_738_573_920_000L);

    @Test
    void shouldRoundTripTenantSettingsWithCustomCategories() {
        final TenantSettings settings = TenantSettings.newBuilder().setTenantId("health").setVersion(AT)
            .setCategories(List.of(CustomCategory.newBuilder().setName("medications").setDescription("drugs taken")
                .setKeywords(List.of("mg", "amlodipine")).setTtlDays(365).build()))
            .setInstructions("Keep doses exactly.").setDisabledCategories(List.of("PERSONAL")).setRetentionDays(null)
            .setDailyTokenBudget(50_000L).setUpdatedBy("key:abc").setUpdatedAt(AT).build();
        final var serde = AvroSerdes.serde(TenantSettings.class);

        final TenantSettings back = serde.deserializer().deserialize("tenant-settings",
            serde.serializer().serialize("tenant-settings", settings));

        assertThat(back).isEqualTo(settings);
        assertThat(back.getCategories().get(0).getKeywords()).containsExactly("mg", "amlodipine");
    }

    @Test
    void shouldDecodeACandidateWrittenBeforeCustomCategoriesWereAdded() throws Exception {
        final MemoryCandidate candidate = MemoryCandidate.newBuilder().setCandidateId("c-1").setTenantId("t1")
            .setUserId("u1").setConversationId("conv-1").setType(MemoryType.SEMANTIC).setCategory(FactCategory.CONTEXT)
            .setKey("city").setValue("Braga").setContent("Lives in Braga").setImportance(0.7).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0)).setEventTime(AT)
            .setEmbedding(List.of(0.1f, 0.2f)).setEmbeddingModel("m").setExtractor("rule-based-v1").build();

        final MemoryCandidate decoded = AvroSerdes.serde(MemoryCandidate.class).deserializer()
            .deserialize("memory-candidates", writtenBy(previous("MemoryCandidate", "customCategory"), candidate));

        assertThat(decoded.getValue()).isEqualTo("Braga");
        assertThat(decoded.getCustomCategory()).isNull();
        assertThat(decoded.getTtlDays()).isNull();
        assertThat(decoded.getSettingsVersion()).isNull();
    }

    @Test
    void shouldDecodeAConversationAndACandidateWrittenBeforeAgentScopeWasAdded() throws Exception {
        final dev.engram.avro.ConversationCompleted conversation = dev.engram.avro.ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u1").setConversationId("c-1")
            .setMessages(List.of(new dev.engram.avro.Message(0, "user", "I live in Braga.", AT))).setCompletedAt(AT)
            .setMetadata(Map.of("platform", "web")).build();
        final MemoryCandidate candidate = MemoryCandidate.newBuilder().setCandidateId("c-1").setTenantId("t1")
            .setUserId("u1").setConversationId("conv-1").setType(MemoryType.EPISODIC).setContent("Trip to Kyoto")
            .setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(AT).setEmbedding(List.of(0.1f)).setEmbeddingModel("m").setExtractor("rule-based-v1")
            .setCustomCategory("trips").build();

        final dev.engram.avro.ConversationCompleted oldConversation = AvroSerdes.serde(
            dev.engram.avro.ConversationCompleted.class).deserializer().deserialize("conversations-completed",
            writtenBy(previous("ConversationCompleted", "agentId"), conversation));
        final MemoryCandidate oldCandidate = AvroSerdes.serde(MemoryCandidate.class).deserializer()
            .deserialize("memory-candidates", writtenBy(previous("MemoryCandidate", "agentId"), candidate));

        assertThat(oldConversation.getMetadata()).containsEntry("platform", "web");
        assertThat(oldConversation.getAgentId()).isNull();
        assertThat(oldCandidate.getCustomCategory()).isEqualTo("trips");
        assertThat(oldCandidate.getAgentId()).isNull();
    }

    @Test
    void shouldDecodeAStoredMemoryAndAProfileWrittenBeforeCustomCategoriesWereAdded() throws Exception {
        final Memory memory = Memory.newBuilder().setMemoryId("m-1").setTenantId("t1").setUserId("u1")
            .setType(MemoryType.SEMANTIC).setKey("city").setValue("Braga").setContent("Lives in Braga")
            .setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT).setStatus(MemoryStatus.ACTIVE)
            .setCreatedAt(AT).setUpdatedAt(AT).setLastAccessedAt(AT).setLastConfirmedAt(AT).setValidFrom(AT)
            .setSources(List.of(new SourceRef("conv-1", List.of(0), AT))).setEmbedding(List.of(0.5f))
            .setEmbeddingModel("m").build();
        final UserProfile profile = UserProfile.newBuilder().setTenantId("t1").setUserId("u1")
            .setFacts(Map.of("city", ProfileFact.newBuilder().setKey("city").setValue("Braga").setMemoryId("m-1")
                .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setUpdatedAt(AT).build())).build();

        final Memory storedMemory = AvroSerdes.serde(Memory.class).deserializer()
            .deserialize("store", writtenBy(previous("Memory", "customCategory"), memory));
        final UserProfile storedProfile = AvroSerdes.serde(UserProfile.class).deserializer()
            .deserialize("user-profiles", writtenBy(previous("UserProfile", null), profile));

        assertThat(storedMemory.getCustomCategory()).isNull();
        assertThat(storedMemory.getTtlDays()).isNull();
        assertThat(storedProfile.getFacts().get("city").getValue()).isEqualTo("Braga");
        assertThat(storedProfile.getFacts().get("city").getCustomCategory()).isNull();
    }

    /** The newest shipped writer schema of a record without the field (the one before the field was added). */
    private static Schema previous(final String name, final String absentField) {
        final List<Schema> history = AvroSerdes.historicalSchemas().stream()
            .filter(s -> name.equals(s.getName()) && (absentField == null || s.getField(absentField) == null)).toList();
        assertThat(history).as("a shipped " + name + " without " + absentField).isNotEmpty();
        return history.get(history.size() - 1);
    }

    /** The record as a writer with {@code writer} would have written it (single-object encoding). */
    private static byte[] writtenBy(final Schema writer, final SpecificRecordBase record) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<SpecificRecordBase>(record.getSchema()).write(record, encoder);
        encoder.flush();
        // read with the old schema as reader: the new fields are left out, as the old writer never had them
        final GenericRecord old = new GenericDatumReader<GenericRecord>(record.getSchema(), writer)
            .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
        final ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), writer).encode(old);
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
