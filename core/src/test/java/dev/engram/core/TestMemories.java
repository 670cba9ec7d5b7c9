package dev.engram.core;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.serde.AvroSerdes;

/** A complete {@link Memory} record for core's tests (testkit's fixtures sit above core). */
public final class TestMemories {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static {
        AvroSerdes.trustGeneratedRecords(); // Avro builds the records' defaults only from trusted packages
    }

    private TestMemories() {
    }

    /** @return an active episodic memory of acme/alice citing message 0 of c1 */
    public static Memory memory() {
        return Memory.newBuilder().setMemoryId("m1").setTenantId("acme").setUserId("alice")
            .setType(MemoryType.EPISODIC).setContent("I moved to Berlin").setImportance(0.5).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(MemoryStatus.ACTIVE).setCreatedAt(T0).setUpdatedAt(T0)
            .setLastAccessedAt(T0).setLastConfirmedAt(T0).setValidFrom(T0)
            .setSources(List.of(new SourceRef("c1", List.of(0), T0))).setEmbedding(List.of(1f, 0f))
            .setEmbeddingModel("bge-small-en-v15-q").build();
    }
}
