package dev.engram.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Engram's configuration, declared once with type, default, importance, doc and validator (Kafka's
 * {@link ConfigDef}); the README's configuration table is generated from {@link #DEFINITION} by
 * {@link #toMarkdownTable()}.
 *
 * <p>Sources, later wins: defaults, a properties file ({@code --config FILE}), environment
 * variables with the prefix {@code ENGRAM_} mapped as Kafka's docker images do ({@code _}→{@code .},
 * {@code __}→{@code _}, {@code ___}→{@code -}, lower-cased), explicit overrides. Keys starting with
 * {@code kafka.} pass through to the Kafka clients and Streams with the prefix removed.
 *
 * <p>Thresholds and weights default to the memory model of docs/ARCHITECTURE.md: the scoring
 * weights 0.4 / 0.2 / 0.3 / 0.1, the 30-day recency constant, the 0.9 / 0.7 dedup thresholds.
 */
public final class EngramConfig extends AbstractConfig {

    /** Prefix of the settings passed through to Kafka clients and Streams. */
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";
    public static final String STATE_DIR = "state.dir";
    public static final String NUM_PARTITIONS = "topics.partitions";
    public static final String EXTRACTOR_HTTP_PORT = "extractor.http.port";
    public static final String CONSOLIDATOR_HTTP_PORT = "consolidator.http.port";
    public static final String RETRIEVER_HTTP_PORT = "retriever.http.port";
    public static final String RETRIEVER_HTTP_HOST = "retriever.http.host";
    /** Longest a started retriever answers 503 (not 404) for users and memories it has not read yet. */
    public static final String RETRIEVER_CATCHUP_MAX_WAIT_MS = "retriever.catchup.max.wait.ms";
    /** Address every app's HTTP server listens on; loopback unless configured. */
    public static final String HTTP_BIND_ADDRESS = "http.bind.address";
    /** The explicit opt-in to serve the API without authentication on a non-loopback address. */
    public static final String AUTH_ALLOW_UNAUTHENTICATED_REMOTE = "retriever.auth.allow.unauthenticated.remote";
    /** Browser origins allowed to call the MCP endpoint besides loopback ones (DNS rebinding protection). */
    public static final String MCP_ALLOWED_ORIGINS = "retriever.mcp.allowed.origins";
    public static final String MIN_IMPORTANCE = "memory.min.importance";
    public static final String MIN_CONFIDENCE = "memory.min.confidence";
    public static final String REINFORCE_THRESHOLD = "dedup.reinforce.threshold";
    public static final String JUDGE_THRESHOLD = "dedup.judge.threshold";
    public static final String WEIGHT_SEMANTIC = "retrieval.weight.semantic";
    public static final String WEIGHT_RECENCY = "retrieval.weight.recency";
    public static final String WEIGHT_IMPORTANCE = "retrieval.weight.importance";
    public static final String WEIGHT_ACCESS = "retrieval.weight.access";
    public static final String RECENCY_DECAY_DAYS = "retrieval.recency.decay.days";
    public static final String ACCESS_SATURATION = "retrieval.access.saturation";
    public static final String OVERFETCH_FACTOR = "retrieval.overfetch.factor";
    public static final String DEFAULT_K = "retrieval.default.k";
    public static final String MAX_K = "retrieval.max.k";
    public static final String CONTEXT_BUDGET_TOKENS = "retrieval.context.budget.tokens";
    public static final String EMBEDDING_THREADS = "embedding.threads";
    public static final String MAX_MESSAGES = "input.max.messages";
    public static final String MAX_MESSAGE_CHARS = "input.max.message.chars";
    /** Largest serialized conversation record, bytes; the topics' and producers' limits follow from it. */
    public static final String MAX_RECORD_BYTES = "input.max.record.bytes";
    /** Room above {@link #MAX_RECORD_BYTES} for headers (dead letters carry the reason) and batch overhead. */
    public static final int RECORD_HEADROOM_BYTES = 1024 * 1024;
    public static final String MIN_RELEVANCE = "retrieval.min.relevance";
    public static final String RELEVANCE_CALIBRATION = "retrieval.relevance.calibration";
    public static final String KIND_PRIOR = "retrieval.relevance.kind.prior";
    public static final String MIN_TOP_RELEVANCE = "retrieval.min.top.relevance";
    public static final String SKIP_COVERED_EPISODES = "retrieval.skip.covered.episodes";
    public static final String SKIP_OBSERVED = "retrieval.skip.observed";
    public static final String QUERY_CACHE_SIZE = "retrieval.query.cache.size";
    public static final String EMBEDDING_DIMENSIONS = "embedding.dimensions";
    public static final String EMBEDDING_MODEL = "embedding.model";
    public static final String EXTRACTOR_MAX_IN_FLIGHT = "extractor.max.in.flight";
    public static final String EMBEDDING_MODEL_HAN = "embedding.model.han";
    public static final String EMBEDDING_HAN_MIN_SHARE = "embedding.han.min.share";
    public static final String EMBEDDING_HAN_DIMENSIONS = "embedding.han.dimensions";
    public static final String EMBEDDING_SIMILARITY_FLOORS = "embedding.similarity.floors";
    public static final String LIFECYCLE_INTERVAL_MS = "lifecycle.interval.ms";
    public static final String MERGE_THRESHOLD = "lifecycle.merge.threshold";
    public static final String OBSERVE_THRESHOLD = "lifecycle.observe.threshold";
    public static final String OBSERVE_MAX_MEMBERS = "lifecycle.observe.max.members";
    public static final String OBSERVE_INTERVAL_MS = "lifecycle.observe.interval.ms";
    public static final String STALE_DAYS = "lifecycle.stale.days";
    public static final String STALE_MAX_IMPORTANCE = "lifecycle.stale.max.importance";
    public static final String STALE_MAX_ACCESS_COUNT = "lifecycle.stale.max.access.count";
    public static final String TTL_ROLE_DAYS = "lifecycle.ttl.role.days";
    public static final String TTL_CONTEXT_DAYS = "lifecycle.ttl.context.days";
    public static final String TTL_INFERRED_FACTOR = "lifecycle.ttl.inferred.factor";
    public static final String ARCHIVE_RETENTION_DAYS = "lifecycle.archive.retention.days";
    public static final String PII_ACTION = "privacy.pii.action";
    /** Encrypt personal fields on Engram's topics and stores with a per-user data key (crypto-shredding). */
    public static final String CRYPTO_ENABLED = "crypto.enabled";
    /** Key-encryption key, base64 of 32 random bytes. */
    public static final String CRYPTO_KEK = "crypto.kek";
    /** File holding the key-encryption key (a mounted secret), base64 of 32 random bytes. */
    public static final String CRYPTO_KEK_FILE = "crypto.kek.file";
    public static final String AUTH_ENABLED = "retriever.auth.enabled";
    public static final String AUTH_KEYS = "retriever.auth.keys";
    public static final String AUTH_KEYS_FILE = "retriever.auth.keys.file";
    public static final String VECTOR_INDEX = "vector.index";
    public static final String QDRANT_HOST = "qdrant.host";
    public static final String QDRANT_PORT = "qdrant.port";
    public static final String QDRANT_API_KEY = "qdrant.api.key";
    public static final String QDRANT_TLS = "qdrant.tls";
    public static final String QDRANT_COLLECTION = "qdrant.collection";
    public static final String QDRANT_TIMEOUT_MS = "qdrant.timeout.ms";
    public static final String QDRANT_RETRY_BUDGET_MS = "qdrant.retry.budget.ms";
    /** {@link #VECTOR_INDEX} value: exact cosine over the consolidator's own state store. */
    public static final String VECTOR_INDEX_EMBEDDED = "embedded";
    /** {@link #VECTOR_INDEX} value: Qdrant through its gRPC client. */
    public static final String VECTOR_INDEX_QDRANT = "qdrant";
    public static final String LLM_BASE_URL = "llm.base.url";
    public static final String LLM_MODEL = "llm.model";
    public static final String LLM_API_KEY = "llm.api.key";
    public static final String LLM_TIMEOUT_MS = "llm.timeout.ms";
    public static final String LLM_MAX_TOKENS = "llm.max.tokens";
    public static final String LLM_TEMPERATURE = "llm.temperature";
    public static final String LLM_MAX_CONCURRENCY = "llm.max.concurrency";
    public static final String LLM_MAX_ATTEMPTS = "llm.max.attempts";
    public static final String LLM_BACKOFF_MS = "llm.backoff.ms";
    public static final String LLM_CONTEXT_TOKENS = "llm.context.tokens";
    public static final String LLM_RESPONSE_FORMAT = "llm.response.format";
    public static final String LLM_BREAKER_OPEN_MS = "llm.breaker.open.ms";
    public static final String LLM_JUDGE = "llm.judge.enabled";
    public static final String LLM_EPISODES = "llm.extraction.episodes";
    public static final String LLM_MERGE = "llm.merge.enabled";
    public static final String LLM_PRICE_PROMPT = "llm.price.prompt.per.million";
    public static final String LLM_PRICE_COMPLETION = "llm.price.completion.per.million";
    public static final String SERDE_FORMAT = "serde.format";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String SCHEMA_REGISTRY_USER_INFO = "schema.registry.basic.auth.user.info";
    /** Compression codec of the records {@code bin/engram ingest} and the demo publish to conversations-completed. */
    public static final String INGEST_COMPRESSION = "ingest.compression.type";

    /** The declared settings. */
    public static final ConfigDef DEFINITION = ConfigDefinition.define();

    /** @param originals raw settings; unknown keys are kept (kafka.* pass-through) */
    public EngramConfig(final Map<String, ?> originals) {
        super(DEFINITION, originals, false);
    }

    /** @return the defaults alone (crypto-shredding on: anything that seals or opens records needs a KEK) */
    public static EngramConfig defaults() {
        return new EngramConfig(Map.of());
    }

    /**
     * The defaults with {@code crypto.enabled=false}: records as written without crypto-shredding. For what runs
     * without a deployment's configuration and its key-encryption key (tests, benchmarks, tools reading topics a
     * pipeline wrote in the clear); a deployment gets crypto-shredding from {@link #defaults()} unless it turns
     * it off explicitly.
     *
     * @return the plain configuration
     */
    public static EngramConfig plain() {
        return new EngramConfig(Map.of(CRYPTO_ENABLED, false));
    }

    /**
     * Loads settings from an optional file, the environment and overrides.
     *
     * @param file a properties file, or null
     * @param environment the environment (usually {@code System.getenv()})
     * @param overrides settings that win over everything, e.g. from command-line flags
     * @return the config
     * @throws UncheckedIOException if the file cannot be read
     * @throws org.apache.kafka.common.config.ConfigException if a value is invalid
     */
    public static EngramConfig load(final Path file, final Map<String, String> environment,
                                    final Map<String, ?> overrides) {
        final Map<String, Object> merged = new HashMap<>();
        if (file != null) {
            final Properties props = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                props.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read config file " + file, e);
            }
            props.forEach((k, v) -> merged.put(k.toString(), v.toString().strip()));
        }
        environment.forEach((name, value) -> {
            if (name.startsWith("ENGRAM_")) {
                merged.put(fromEnvironmentName(name.substring("ENGRAM_".length())), value);
            }
        });
        merged.putAll(overrides);
        return new EngramConfig(merged);
    }

    /**
     * Maps an environment variable name (without prefix) to a key as Kafka's docker images do.
     *
     * @param name e.g. {@code RETRIEVER_HTTP_PORT}
     * @return e.g. {@code retriever.http.port}
     */
    static String fromEnvironmentName(final String name) {
        return name.replace("___", "\u0001").replace("__", "\u0002").replace('_', '.')
            .replace('\u0001', '-').replace('\u0002', '_').toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * @return {@code input.max.record.bytes} + 1 MiB: the topics' {@code max.message.bytes} and the
     *     producers' {@code max.request.size}, in bytes
     */
    public int maxMessageBytes() {
        return getInt(MAX_RECORD_BYTES) + RECORD_HEADROOM_BYTES;
    }

    /** @return the Kafka settings ({@code kafka.*} with the prefix removed) */
    public Map<String, Object> kafkaProperties() {
        final Map<String, Object> kafka = new TreeMap<>();
        originals().forEach((k, v) -> {
            if (k.startsWith(KAFKA_PREFIX)) {
                kafka.put(k.substring(KAFKA_PREFIX.length()), v);
            }
        });
        kafka.put("bootstrap.servers", getString(BOOTSTRAP_SERVERS));
        return kafka;
    }

    /**
     * A copy with some settings replaced.
     *
     * @param overrides settings to set
     * @return a new config
     */
    public EngramConfig with(final Map<String, ?> overrides) {
        final Map<String, Object> merged = new HashMap<>(originals());
        merged.putAll(overrides);
        return new EngramConfig(merged);
    }

    /** @return the README's configuration table, as Markdown */
    public static String toMarkdownTable() {
        final StringBuilder out = new StringBuilder("| key | type | default | valid | description |\n")
            .append("| --- | --- | --- | --- | --- |\n");
        for (final ConfigDef.ConfigKey key : DEFINITION.configKeys().values()) {
            out.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase(java.util.Locale.ROOT))
                .append(" | ").append(key.name.equals(STATE_DIR) ? "`$TMPDIR/engram-streams`"
                    : key.name.equals(EMBEDDING_THREADS) ? "cores" : "`" + ConfigDef.convertToString(key.defaultValue, key.type) + "`")
                .append(" | ").append(key.validator == null ? "" : key.validator.toString())
                .append(" | ").append(key.documentation).append(" |\n");
        }
        return out.toString();
    }
}
