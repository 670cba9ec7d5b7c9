package dev.engram.testing;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.scoring.Vectors;

/**
 * Builds Memory and MemoryUpdated records for tests of the read side (retriever), with real MiniLM
 * embeddings of the content. Shared through the topology test-jar.
 */
public final class MemoryFixtures {

    static {
        // Builders deep-copy enums through Avro's class allow-list; trust our package before any copy.
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private MemoryFixtures() {
    }

    /**
     * An ACTIVE episodic memory with a real embedding.
     *
     * @param tenant tenant
     * @param user user
     * @param memoryId id
     * @param content text (embedded by the default model)
     * @param at createdAt = updatedAt = lastAccessedAt = validFrom
     * @return a builder to adjust further
     */
    public static Memory.Builder memory(final String tenant, final String user, final String memoryId,
                                        final String content, final Instant at) {
        final Embedder embedder = ScriptRoutedEmbedder.defaults();
        return Memory.newBuilder().setMemoryId(memoryId).setTenantId(tenant).setUserId(user)
            .setType(MemoryType.EPISODIC).setCategory(null).setKey(null).setValue(null).setDisplayName(null)
            .setContent(content).setImportance(0.5).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at).setUpdatedAt(at)
            .setLastAccessedAt(at).setLastConfirmedAt(at).setAccessCount(0).setReinforcementCount(1)
            .setExpiresAt(null).setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(SourceRef.newBuilder().setConversationId("c-" + memoryId)
                .setMessageIndexes(List.of(0)).setObservedAt(at).build()))
            .setEmbedding(Vectors.toList(embedder.embed(content))).setEmbeddingModel(embedder.modelFor(content));
    }

    /**
     * A semantic fact.
     *
     * @param tenant tenant
     * @param user user
     * @param memoryId id
     * @param category category
     * @param key fact key
     * @param value fact value
     * @param content sentence
     * @param at event time
     * @return the memory
     */
    public static Memory fact(final String tenant, final String user, final String memoryId, final FactCategory category,
                              final String key, final String value, final String content, final Instant at) {
        return memory(tenant, user, memoryId, content, at).setType(MemoryType.SEMANTIC).setCategory(category)
            .setKey(key).setValue(value).setImportance(0.7).build();
    }

    /**
     * @param memory the state after
     * @param operation the operation
     * @param at event time
     * @return the event
     */
    public static MemoryUpdated updated(final Memory memory, final UpdateOperation operation, final Instant at) {
        return MemoryUpdated.newBuilder().setEventId(memory.getMemoryId() + ":" + operation + ":" + at.toEpochMilli())
            .setTenantId(memory.getTenantId()).setUserId(memory.getUserId()).setMemoryId(memory.getMemoryId())
            .setOperation(operation).setMemory(memory).setPreviousValue(null).setCause("test").setEventTime(at).build();
    }

    /**
     * @param tenant tenant
     * @param user user
     * @param at event time
     * @return an ERASED event for the user
     */
    public static MemoryUpdated erased(final String tenant, final String user, final Instant at) {
        return MemoryUpdated.newBuilder().setEventId("erase:" + tenant + "/" + user).setTenantId(tenant)
            .setUserId(user).setMemoryId("*").setOperation(UpdateOperation.ERASED).setMemory(null)
            .setPreviousValue(null).setCause("command:erase").setEventTime(at).build();
    }
}
