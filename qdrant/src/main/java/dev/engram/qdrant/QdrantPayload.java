package dev.engram.qdrant;

import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.value;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import io.qdrant.client.PointIdFactory;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.JsonWithInt.Value;

/**
 * The mapping between a {@link Memory} and a Qdrant point: point id = the memory id (a UUID), vector =
 * the embedding, payload = every scalar field retrieval needs (snake_case keys below), so a search hit
 * can be scored and shown without another lookup. Times are RFC 3339 strings (Qdrant's datetime
 * payload type); absent optional fields are left out of the payload, and so are empty lists
 * ({@value #OUTDATED_VALUES}). Not in the payload: the
 * embedding (it is the vector), {@code sources} and {@code supersedes} (lineage, read from the state
 * store or {@code memory-updated}).
 */
public final class QdrantPayload {

    /** Payload key of the tenant (keyword index; in every search filter). */
    public static final String TENANT_ID = "tenant_id";
    /** Payload key of the user (keyword index; in every search filter). */
    public static final String USER_ID = "user_id";
    /** Payload key of the lifecycle status (keyword index; ACTIVE filter). */
    public static final String STATUS = "status";
    /** Payload key of the memory type (keyword index). */
    public static final String TYPE = "type";
    /** Payload key of the model that embedded the memory (in the search filter: vectors of two models are never compared). */
    public static final String EMBEDDING_MODEL = "embedding_model";
    /** Payload key of the memory id (same as the point id). */
    public static final String MEMORY_ID = "memory_id";
    /**
     * Payload key of the old values an outdated memory states ({@link Memory#getOutdatedValues}: a list of strings,
     * left out when empty), so a reader of the collection tells, as the API does, which part of an ACTIVE memory with
     * {@code valid_to} is past.
     */
    public static final String OUTDATED_VALUES = "outdated_values";
    /** Time fields with a datetime index (lifecycle: recency and TTL filters). */
    public static final List<String> TIME_FIELDS = List.of("created_at", "updated_at", "last_accessed_at", "expires_at");
    /** Keyword fields with a keyword index. */
    public static final List<String> KEYWORD_FIELDS = List.of(TENANT_ID, USER_ID, STATUS, TYPE);

    private QdrantPayload() {
    }

    /**
     * @param memoryId a memory id
     * @return the point id
     * @throws IllegalArgumentException if the id is not a UUID (Qdrant ids are UUIDs or integers)
     */
    public static PointId pointId(final String memoryId) {
        return PointIdFactory.id(UUID.fromString(memoryId));
    }

    /**
     * @param memory a memory
     * @return its payload
     */
    public static Map<String, Value> of(final Memory memory) {
        final Map<String, Value> payload = new HashMap<>();
        payload.put(MEMORY_ID, value(memory.getMemoryId()));
        payload.put(TENANT_ID, value(memory.getTenantId()));
        payload.put(USER_ID, value(memory.getUserId()));
        payload.put(TYPE, value(memory.getType().name()));
        payload.put(STATUS, value(memory.getStatus().name()));
        putIfPresent(payload, "category", memory.getCategory() == null ? null : memory.getCategory().name());
        putIfPresent(payload, "key", memory.getKey());
        putIfPresent(payload, "value", memory.getValue());
        putIfPresent(payload, "display_name", memory.getDisplayName());
        payload.put("content", value(memory.getContent()));
        payload.put("importance", value(memory.getImportance()));
        payload.put("confidence", value(memory.getConfidence()));
        payload.put("source", value(memory.getSource().name()));
        putIfPresent(payload, "archive_reason", memory.getArchiveReason() == null ? null : memory.getArchiveReason().name());
        putTime(payload, "created_at", memory.getCreatedAt());
        putTime(payload, "updated_at", memory.getUpdatedAt());
        putTime(payload, "last_accessed_at", memory.getLastAccessedAt());
        putTime(payload, "last_confirmed_at", memory.getLastConfirmedAt());
        putTime(payload, "expires_at", memory.getExpiresAt());
        putTime(payload, "valid_from", memory.getValidFrom());
        putTime(payload, "valid_to", memory.getValidTo());
        payload.put("access_count", value(memory.getAccessCount()));
        payload.put("reinforcement_count", value(memory.getReinforcementCount()));
        putIfPresent(payload, "superseded_by", memory.getSupersededBy());
        if (!memory.getOutdatedValues().isEmpty()) {
            payload.put(OUTDATED_VALUES, list(memory.getOutdatedValues().stream().map(v -> value(v)).toList()));
        }
        payload.put(EMBEDDING_MODEL, value(memory.getEmbeddingModel()));
        return payload;
    }

    /**
     * Rebuilds a memory from a payload: every payload field; empty {@code sources}, {@code supersedes}
     * and {@code embedding} (not in the payload).
     *
     * @param payload a payload written by {@link #of}
     * @return the memory
     * @throws IllegalStateException if a required field is missing (a point not written by Engram)
     */
    public static Memory toMemory(final Map<String, Value> payload) {
        return Memory.newBuilder()
            .setMemoryId(string(payload, MEMORY_ID)).setTenantId(string(payload, TENANT_ID))
            .setUserId(string(payload, USER_ID)).setType(MemoryType.valueOf(string(payload, TYPE)))
            .setCategory(optional(payload, "category") == null ? null : FactCategory.valueOf(optional(payload, "category")))
            .setKey(optional(payload, "key")).setValue(optional(payload, "value"))
            .setDisplayName(optional(payload, "display_name")).setContent(string(payload, "content"))
            .setImportance(number(payload, "importance")).setConfidence(number(payload, "confidence"))
            .setSource(MemorySource.valueOf(string(payload, "source")))
            .setStatus(MemoryStatus.valueOf(string(payload, STATUS)))
            .setArchiveReason(optional(payload, "archive_reason") == null ? null
                : ArchiveReason.valueOf(optional(payload, "archive_reason")))
            .setCreatedAt(time(payload, "created_at")).setUpdatedAt(time(payload, "updated_at"))
            .setLastAccessedAt(time(payload, "last_accessed_at")).setLastConfirmedAt(time(payload, "last_confirmed_at"))
            .setExpiresAt(optionalTime(payload, "expires_at")).setValidFrom(time(payload, "valid_from"))
            .setValidTo(optionalTime(payload, "valid_to"))
            .setAccessCount((int) payload.get("access_count").getIntegerValue())
            .setReinforcementCount((int) payload.get("reinforcement_count").getIntegerValue())
            .setSupersededBy(optional(payload, "superseded_by")).setOutdatedValues(strings(payload, OUTDATED_VALUES))
            .setSupersedes(List.of()).setSources(List.of())
            .setEmbedding(List.of()).setEmbeddingModel(string(payload, EMBEDDING_MODEL))
            .build();
    }

    private static void putIfPresent(final Map<String, Value> payload, final String key, final String v) {
        if (v != null) {
            payload.put(key, value(v));
        }
    }

    private static void putTime(final Map<String, Value> payload, final String key, final Instant t) {
        if (t != null) {
            payload.put(key, value(t.toString()));
        }
    }

    private static String string(final Map<String, Value> payload, final String key) {
        final String v = optional(payload, key);
        if (v == null) {
            throw new IllegalStateException("payload has no " + key + ": not an Engram point");
        }
        return v;
    }

    private static String optional(final Map<String, Value> payload, final String key) {
        final Value v = payload.get(key);
        return v == null || v.hasNullValue() ? null : v.getStringValue();
    }

    /** @return the strings of a list value, none when the key is absent (a point written before the key existed) */
    private static List<String> strings(final Map<String, Value> payload, final String key) {
        final Value v = payload.get(key);
        return v == null || !v.hasListValue() ? List.of()
            : v.getListValue().getValuesList().stream().map(Value::getStringValue).toList();
    }

    private static double number(final Map<String, Value> payload, final String key) {
        final Value v = payload.get(key);
        if (v == null) {
            throw new IllegalStateException("payload has no " + key + ": not an Engram point");
        }
        return v.hasIntegerValue() ? v.getIntegerValue() : v.getDoubleValue();
    }

    private static Instant time(final Map<String, Value> payload, final String key) {
        return Instant.parse(string(payload, key));
    }

    private static Instant optionalTime(final Map<String, Value> payload, final String key) {
        final String v = optional(payload, key);
        return v == null ? null : Instant.parse(v);
    }
}
