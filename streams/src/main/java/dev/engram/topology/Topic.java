package dev.engram.topology;

import java.util.Objects;
import java.util.function.Function;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.TenantSettings;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.crypto.PersonalSerdes;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A typed descriptor of one of Engram's topics: its name, the Serde of its keys and the Serde of its values
 * under a deployment's config. Topologies, apps, tools and tests take a topic's Serdes from here, so a
 * topic is read the way it is written; {@link Topics} keeps the plain names for what needs only a name
 * (topic creation, the command line, offsets).
 *
 * <p>Keys are the user key ({@code tenant/user}, {@link dev.engram.core.UserKey#wire()}) as a UTF-8 string on
 * every topic. Values:
 * <ul>
 *   <li>a <em>personal</em> record (what a user said, or derived from it) is written in the configured
 *       {@code serde.format} ({@link TopicSerdes}) and, with {@code crypto.enabled}, sealed with the user's data
 *       key ({@link PersonalSerdes#topic}; reading an erased user's record throws
 *       {@link dev.engram.crypto.ErasedDataException});</li>
 *   <li>a <em>clear</em> record (ids only: access events, audit records; and the chat platform's
 *       {@code conversations-completed}) is written in the configured {@code serde.format}, never sealed;</li>
 *   <li>{@link #DATA_KEYS} holds raw bytes (the wrapped keysets).</li>
 * </ul>
 * With the defaults ({@code serde.format=single-object}, {@code crypto.enabled=false}) every value Serde is
 * {@link dev.engram.serde.AvroSerdes}' single-object Serde.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Topic<K, V> {

    /** ConversationCompleted, from chat platforms; read by the extractor. */
    public static final Topic<String, ConversationCompleted> CONVERSATIONS_COMPLETED =
        clear(Topics.CONVERSATIONS_COMPLETED, ConversationCompleted.class);
    /** MemoryCandidate, the extraction log; written by the extractor, read by the consolidator. */
    public static final Topic<String, MemoryCandidate> MEMORY_CANDIDATES =
        personal(Topics.MEMORY_CANDIDATES, MemoryCandidate.class);
    /** MemoryCommand (correct, delete, erase, toggle, re-embed); written by the retriever and the ops tools. */
    public static final Topic<String, MemoryCommand> MEMORY_COMMANDS = personal(Topics.MEMORY_COMMANDS, MemoryCommand.class);
    /** MemoryAccessed, retrieval hits; written by the retriever, read by the consolidator. */
    public static final Topic<String, MemoryAccessed> MEMORY_ACCESS = clear(Topics.MEMORY_ACCESS, MemoryAccessed.class);
    /** MemoryUpdated; written by the consolidator, read by the retriever, the extractor, tools and downstream. */
    public static final Topic<String, MemoryUpdated> MEMORY_UPDATED = personal(Topics.MEMORY_UPDATED, MemoryUpdated.class);
    /** ContradictionDetected; written by the consolidator. */
    public static final Topic<String, ContradictionDetected> MEMORY_CONTRADICTIONS =
        personal(Topics.MEMORY_CONTRADICTIONS, ContradictionDetected.class);
    /** MemoryArchived; written by the consolidator. */
    public static final Topic<String, MemoryArchived> MEMORY_ARCHIVED = personal(Topics.MEMORY_ARCHIVED, MemoryArchived.class);
    /** UserProfile, compacted; written by the consolidator, read by the extractor as its profiles table. */
    public static final Topic<String, UserProfile> USER_PROFILES = personal(Topics.USER_PROFILES, UserProfile.class);
    /** AuditRecord; written by the retriever and the consolidator. */
    public static final Topic<String, AuditRecord> MEMORY_AUDIT = clear(Topics.MEMORY_AUDIT, AuditRecord.class);
    /** TenantSettings, compacted, one record per version; written by the retriever, read by the extractor. */
    public static final Topic<String, TenantSettings> TENANT_SETTINGS = clear(Topics.TENANT_SETTINGS, TenantSettings.class);
    /** The users' wrapped data keys, compacted (only with {@code crypto.enabled}). */
    public static final Topic<String, byte[]> DATA_KEYS = new Topic<>(Topics.DATA_KEYS, Serdes.String(),
        config -> Serdes.ByteArray());

    private final String name;
    private final Serde<K> keySerde;
    private final Function<EngramConfig, Serde<V>> valueSerdes;

    private Topic(final String name, final Serde<K> keySerde, final Function<EngramConfig, Serde<V>> valueSerdes) {
        this.name = Objects.requireNonNull(name, "name");
        this.keySerde = Objects.requireNonNull(keySerde, "keySerde");
        this.valueSerdes = Objects.requireNonNull(valueSerdes, "valueSerdes");
    }

    private static <V extends SpecificRecordBase> Topic<String, V> personal(final String name, final Class<V> type) {
        return new Topic<>(name, Serdes.String(), config -> PersonalSerdes.topic(type, config));
    }

    private static <V extends SpecificRecordBase> Topic<String, V> clear(final String name, final Class<V> type) {
        return new Topic<>(name, Serdes.String(), config -> TopicSerdes.of(config).serde(type));
    }

    /** @return the topic's name, e.g. {@code memory-updated} */
    public String name() {
        return name;
    }

    /** @return the Serde of the keys (thread-safe, shared) */
    public Serde<K> keySerde() {
        return keySerde;
    }

    /** @return the key serializer */
    public Serializer<K> keySerializer() {
        return keySerde.serializer();
    }

    /** @return the key deserializer */
    public Deserializer<K> keyDeserializer() {
        return keySerde.deserializer();
    }

    /**
     * @param config the deployment's config ({@code serde.format}, {@code schema.registry.*}, {@code crypto.*})
     * @return the Serde of the values as this deployment writes and reads them
     * @throws IllegalArgumentException if {@code serde.format=registry} is set without {@code schema.registry.url}
     * @throws org.apache.kafka.common.config.ConfigException if {@code crypto.enabled} is set without a usable KEK
     */
    public Serde<V> valueSerde(final EngramConfig config) {
        return valueSerdes.apply(config);
    }

    /**
     * @param config the deployment's config
     * @return the value serializer ({@link #valueSerde})
     */
    public Serializer<V> valueSerializer(final EngramConfig config) {
        return valueSerde(config).serializer();
    }

    /**
     * @param config the deployment's config
     * @return the value deserializer ({@link #valueSerde})
     */
    public Deserializer<V> valueDeserializer(final EngramConfig config) {
        return valueSerde(config).deserializer();
    }

    /** @return the name */
    @Override
    public String toString() {
        return name;
    }
}
