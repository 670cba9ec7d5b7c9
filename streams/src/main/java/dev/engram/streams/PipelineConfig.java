package dev.engram.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigGroup;
import dev.engram.config.ConfigValues;

/**
 * The settings the Kafka Streams side owns ({@link ConfigGroup} {@code streams}): what the topologies and their serdes
 * run with: the state directory, the partitions of the topics Engram creates, every app's HTTP port and the retriever's
 * host (its {@code application.server}), crypto-shredding ({@code crypto.*}), the wire format ({@code serde.format},
 * {@code schema.registry.*}), the retry budget of the vector index ({@code qdrant.retry.budget.ms}, read by {@code
 * RetryingVectorIndex} whatever the index) and the LLM prices of the cost ledger ({@code llm.price.*}, read by {@code
 * UsageRecorder}, which records every extractor's usage). Registered as a service, composed onto the core definition by
 * {@code EngramConfig}; the keys are this class's constants.
 */
public final class PipelineConfig implements ConfigGroup {

    public static final String STATE_DIR = "state.dir";
    public static final String NUM_PARTITIONS = "topics.partitions";
    public static final String EXTRACTOR_HTTP_PORT = "extractor.http.port";
    public static final String CONSOLIDATOR_HTTP_PORT = "consolidator.http.port";
    public static final String RETRIEVER_HTTP_PORT = "retriever.http.port";
    public static final String RETRIEVER_HTTP_HOST = "retriever.http.host";
    /** Encrypt personal fields on Engram's topics and stores with a per-user data key (crypto-shredding). */
    public static final String CRYPTO_ENABLED = "crypto.enabled";
    /** Key-encryption key, base64 of 32 random bytes. */
    public static final String CRYPTO_KEK = "crypto.kek";
    /** File holding the key-encryption key (a mounted secret), base64 of 32 random bytes. */
    public static final String CRYPTO_KEK_FILE = "crypto.kek.file";
    public static final String QDRANT_RETRY_BUDGET_MS = "qdrant.retry.budget.ms";
    public static final String LLM_PRICE_PROMPT = "llm.price.prompt.per.million";
    public static final String LLM_PRICE_COMPLETION = "llm.price.completion.per.million";
    public static final String SERDE_FORMAT = "serde.format";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String SCHEMA_REGISTRY_USER_INFO = "schema.registry.basic.auth.user.info";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public PipelineConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "streams";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(STATE_DIR, Type.STRING, System.getProperty("java.io.tmpdir") + "/engram-streams", Importance.HIGH,
                "Directory of the Kafka Streams state stores; one sub-directory per application.id.")
            .define(NUM_PARTITIONS, Type.INT, 4, Range.atLeast(1), Importance.MEDIUM,
                "Partitions of the per-user topics when Engram creates them (all co-partitioned).")
            .define(EXTRACTOR_HTTP_PORT, Type.INT, 8081, Range.between(0, 65535), Importance.MEDIUM,
                "HTTP port of the extractor's health and metrics endpoints (0 = any free port).")
            .define(CONSOLIDATOR_HTTP_PORT, Type.INT, 8082, Range.between(0, 65535), Importance.MEDIUM,
                "HTTP port of the consolidator's health and metrics endpoints (0 = any free port).")
            .define(RETRIEVER_HTTP_PORT, Type.INT, 8080, Range.between(0, 65535), Importance.HIGH,
                "HTTP port of the retrieval API (0 = any free port).")
            .define(RETRIEVER_HTTP_HOST, Type.STRING, "localhost", Importance.MEDIUM,
                "Host name other retriever instances use to reach this one (application.server).")
            .define(CRYPTO_ENABLED, Type.BOOLEAN, true, Importance.HIGH,
                "Crypto-shredding, on by default: every record Engram writes about a user (candidates, memory events, "
                    + "contradictions, archives, commands, profiles, store changelogs) is encrypted with that user's data "
                    + "key (AES-SIV, deterministic) kept on the compacted topic engram-data-keys, wrapped by the "
                    + "key-encryption key; erasing the user tombstones the key, so an erasure is complete at once. Needs "
                    + "crypto.kek or crypto.kek.file: an app refuses to start without one (the demo makes a local key in "
                    + "its run directory). false runs without it: erased content then stays readable on Engram's topics "
                    + "until their retention.")
            .define(CRYPTO_KEK, Type.PASSWORD, null, Importance.HIGH,
                "Key-encryption key (AES-256-GCM) wrapping the data keys: base64 of 32 random bytes "
                    + "(openssl rand -base64 32). Never written to a topic.")
            .define(CRYPTO_KEK_FILE, Type.STRING, "", Importance.HIGH,
                "A file holding the key-encryption key as base64 (a mounted Kubernetes Secret); wins over crypto.kek.")
            .define(QDRANT_RETRY_BUDGET_MS, Type.INT, 5000, Range.between(0, 9000), Importance.LOW,
                "How long the consolidator retries an unavailable Qdrant (backoff 100 ms doubling to 1.6 s) inside one "
                    + "record before it hands the record back (the stream thread rejoins and resumes from the last commit, "
                    + "again and again until Qdrant answers); kept below the 10 s transaction timeout of exactly-once. "
                    + "Also the Retry-After of the retriever's 503, rounded up to seconds.")
            .define(LLM_PRICE_PROMPT, Type.DOUBLE, 0.0, Range.atLeast(0.0), Importance.LOW,
                "US dollars per million prompt tokens, for the cost ledger's estimate (llm-usage, GET /v1/tenants/{t}/usage, "
                    + "engram.llm.tenant.cost); 0 = not priced.")
            .define(LLM_PRICE_COMPLETION, Type.DOUBLE, 0.0, Range.atLeast(0.0), Importance.LOW,
                "US dollars per million completion tokens, for the cost ledger's estimate; 0 = not priced.")
            .define(SERDE_FORMAT, Type.STRING, "single-object", ValidString.in("single-object", "registry"),
                Importance.MEDIUM, "Wire format of the Avro values on Engram's topics: single-object (Avro single-object "
                    + "encoding, no registry) or registry (Confluent Schema Registry wire format: magic byte 0, 4-byte schema id, "
                    + "Avro binary; subject <topic>-value, BACKWARD). Readers accept both, so a running pipeline can switch.")
            .define(SCHEMA_REGISTRY_URL, Type.STRING, "", Importance.MEDIUM,
                "Base URL of a Confluent-compatible schema registry (Confluent, Apicurio's /apis/ccompat/v7, Karapace, "
                    + "Redpanda), used when serde.format=registry.")
            .define(SCHEMA_REGISTRY_USER_INFO, Type.PASSWORD, "", Importance.LOW,
                "user:password for HTTP Basic authentication to the schema registry; empty = none.");
    }

    /** Refused: {@code serde.format=registry} without {@code schema.registry.url}: no record could be written. */
    @Override
    public List<ConfigFinding> check(final ConfigValues config) {
        final List<ConfigFinding> findings = new ArrayList<>();
        if ("registry".equals(config.getString(SERDE_FORMAT))
            && config.getString(SCHEMA_REGISTRY_URL).isBlank()) {
            findings.add(ConfigFinding.refuse("the registry wire format needs the schema registry's URL", SERDE_FORMAT,
                SCHEMA_REGISTRY_URL));
        }
        return findings;
    }

    @Override
    public Optional<String> shownDefault(final String key) {
        return STATE_DIR.equals(key) ? Optional.of("`$TMPDIR/engram-streams`") : Optional.empty();
    }
}
