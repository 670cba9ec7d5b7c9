package dev.engram.topics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

import dev.engram.avro.AuditRecord;
import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.Memory;
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
 * topic is read the way it is written. This class is the one catalogue of Engram's topics: every topic name
 * (kebab-case, {@code <domain>-<entity>[-<stage>]}) is here and nowhere else; what needs only a name (topic
 * creation, the command line, offsets) takes {@link #name()}. Every per-user topic is keyed by
 * {@link dev.engram.core.UserKey} with the same partition count, so a user's events meet in one task.
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
 *   <li>{@link #DATA_KEYS} holds raw bytes (the wrapped keysets), {@link #MEMORY_EMBEDDINGS_ACTIVE} plain strings
 *       (the active embedding model, the re-embedding watermarks), a dead-letter topic the original bytes.</li>
 * </ul>
 * With {@code serde.format=single-object} (the default) and {@code crypto.enabled=false} (not the default) every value Serde is
 * {@link dev.engram.serde.AvroSerdes}' single-object Serde.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Topic<K, V> {

    /** Named first: every personal topic's Serde reads the users' data keys from it. */
    private static final String DATA_KEYS_TOPIC = "engram-data-keys";

    /** ConversationCompleted, from chat platforms; read by the extractor. */
    public static final Topic<String, ConversationCompleted> CONVERSATIONS_COMPLETED =
        clear("conversations-completed", ConversationCompleted.class);
    /** MemoryCandidate, the extraction log; written by the extractor, read by the consolidator. */
    public static final Topic<String, MemoryCandidate> MEMORY_CANDIDATES =
        personal("memory-candidates", MemoryCandidate.class);
    /** MemoryCommand (correct, delete, erase, toggle, re-embed); written by the retriever and the ops tools. */
    public static final Topic<String, MemoryCommand> MEMORY_COMMANDS = personal("memory-commands", MemoryCommand.class);
    /** MemoryAccessed, retrieval hits; written by the retriever, read by the consolidator. */
    public static final Topic<String, MemoryAccessed> MEMORY_ACCESS = clear("memory-access", MemoryAccessed.class);
    /** MemoryUpdated; written by the consolidator, read by the retriever, the extractor, tools and downstream. */
    public static final Topic<String, MemoryUpdated> MEMORY_UPDATED = personal("memory-updated", MemoryUpdated.class);
    /** ContradictionDetected; written by the consolidator. */
    public static final Topic<String, ContradictionDetected> MEMORY_CONTRADICTIONS =
        personal("memory-contradictions", ContradictionDetected.class);
    /** MemoryArchived; written by the consolidator. */
    public static final Topic<String, MemoryArchived> MEMORY_ARCHIVED = personal("memory-archived", MemoryArchived.class);
    /** UserProfile, compacted; written by the consolidator, read by the extractor as its profiles table. */
    public static final Topic<String, UserProfile> USER_PROFILES = personal("user-profiles", UserProfile.class);
    /** AuditRecord; written by the retriever and the consolidator. */
    public static final Topic<String, AuditRecord> MEMORY_AUDIT = clear("memory-audit", AuditRecord.class);
    /**
     * TenantSettings, compacted, one record per version (key {@code <tenant>/<version ms, 13 digits>}, so compaction
     * keeps the history a replay needs); written by the retriever's admin route, read by the extractor as a global
     * table and by the retriever.
     */
    public static final Topic<String, TenantSettings> TENANT_SETTINGS = clear("tenant-settings", TenantSettings.class);
    /**
     * LlmUsage, keyed by the tenant: the cost ledger, one record per conversation extracted with the LLM (calls, tokens,
     * estimated cost; ids and counts only); written by the extractor with the conversation's candidates, read by the
     * retriever (the usage view) and the extractor (daily token budgets).
     */
    public static final Topic<String, LlmUsage> LLM_USAGE = clear("llm-usage", LlmUsage.class);
    /** The users' wrapped data keys, compacted (only with {@code crypto.enabled}). */
    public static final Topic<String, byte[]> DATA_KEYS = new Topic<>(DATA_KEYS_TOPIC, Serdes.String(),
        config -> Serdes.ByteArray(), byte[].class);

    /**
     * The active embedding model's name under key {@code active} (compacted), and the re-embedding watermarks;
     * created by the first {@code bin/engram reembed}, followed by the extractor and the retriever.
     */
    public static final Topic<String, String> MEMORY_EMBEDDINGS_ACTIVE = new Topic<>("memory-embeddings-active",
        Serdes.String(), config -> Serdes.String(), String.class);

    private static final String DEAD_LETTERS_SUFFIX = "-dlq";
    private static final String EMBEDDINGS_PREFIX = "memory-embeddings-";

    /**
     * @param applicationId an app's {@code application.id}, one of {@link AppIds}
     * @return the app's dead-letter topic, {@code <application.id>-dlq}: the original key and value bytes, the
     *     error in headers ({@code DeadLetters})
     */
    public static Topic<byte[], byte[]> deadLetters(final String applicationId) {
        return new Topic<>(applicationId + DEAD_LETTERS_SUFFIX, Serdes.ByteArray(), config -> Serdes.ByteArray(),
            byte[].class);
    }

    /**
     * @param model an embedding model's name
     * @return the topic {@code bin/engram reembed} writes the memories re-embedded with it to,
     *     {@code memory-embeddings-<model>} with every character outside {@code [a-z0-9-]} as {@code -}
     */
    public static Topic<String, Memory> memoryEmbeddings(final String model) {
        return personal(EMBEDDINGS_PREFIX + model.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-"), Memory.class);
    }

    /**
     * @return the names of every topic {@code bin/engram topics} creates: the per-user topics, the audit topic and
     *     each app's dead-letter topic (the data keys topic is created only with {@code crypto.enabled}; the
     *     embeddings topics by {@code reembed})
     */
    public static List<String> allNames() {
        final List<String> names = new ArrayList<>();
        for (final Topic<?, ?> t : List.of(CONVERSATIONS_COMPLETED, MEMORY_CANDIDATES, MEMORY_COMMANDS, MEMORY_ACCESS,
            MEMORY_UPDATED, MEMORY_CONTRADICTIONS, MEMORY_ARCHIVED, MEMORY_AUDIT, USER_PROFILES, TENANT_SETTINGS,
            LLM_USAGE)) {
            names.add(t.name());
        }
        for (final String app : List.of(AppIds.EXTRACTOR, AppIds.CONSOLIDATOR, AppIds.RETRIEVER)) {
            names.add(deadLetters(app).name());
        }
        return List.copyOf(names);
    }

    private final String name;
    private final Serde<K> keySerde;
    private final Function<EngramConfig, Serde<V>> valueSerdes;
    private final Class<V> valueType;

    private Topic(final String name, final Serde<K> keySerde, final Function<EngramConfig, Serde<V>> valueSerdes,
                  final Class<V> valueType) {
        this.name = Objects.requireNonNull(name, "name");
        this.keySerde = Objects.requireNonNull(keySerde, "keySerde");
        this.valueSerdes = Objects.requireNonNull(valueSerdes, "valueSerdes");
        this.valueType = Objects.requireNonNull(valueType, "valueType");
    }

    private static <V extends SpecificRecordBase> Topic<String, V> personal(final String name, final Class<V> type) {
        return new Topic<>(name, Serdes.String(), config -> PersonalSerdes.topic(TopicSerdes.of(config).serde(type), config,
            DATA_KEYS_TOPIC), type);
    }

    private static <V extends SpecificRecordBase> Topic<String, V> clear(final String name, final Class<V> type) {
        return new Topic<>(name, Serdes.String(), config -> TopicSerdes.of(config).serde(type), type);
    }

    /**
     * @return the topics whose values are Avro records, in the order of the table of topics (every one but
     *     {@link #DATA_KEYS}): what {@code bin/engram schemas register} registers under {@code <topic>-value}
     */
    public static java.util.List<Topic<String, ? extends SpecificRecordBase>> records() {
        return java.util.List.of(CONVERSATIONS_COMPLETED, MEMORY_CANDIDATES, MEMORY_COMMANDS, MEMORY_ACCESS, MEMORY_UPDATED,
            USER_PROFILES, MEMORY_CONTRADICTIONS, MEMORY_ARCHIVED, MEMORY_AUDIT, TENANT_SETTINGS, LLM_USAGE);
    }

    /** @return the class of the values, e.g. {@code MemoryUpdated.class} ({@code byte[].class} for raw bytes) */
    public Class<V> valueType() {
        return valueType;
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
