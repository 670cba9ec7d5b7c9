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
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

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
    /** Address every app's HTTP server listens on; loopback unless configured. */
    public static final String HTTP_BIND_ADDRESS = "http.bind.address";
    /** The explicit opt-in to serve the API without authentication on a non-loopback address. */
    public static final String AUTH_ALLOW_UNAUTHENTICATED_REMOTE = "retriever.auth.allow.unauthenticated.remote";
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
    public static final String MIN_TOP_RELEVANCE = "retrieval.min.top.relevance";
    public static final String SKIP_COVERED_EPISODES = "retrieval.skip.covered.episodes";
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
    public static final String SERDE_FORMAT = "serde.format";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String SCHEMA_REGISTRY_USER_INFO = "schema.registry.basic.auth.user.info";

    /** The declared settings. */
    public static final ConfigDef DEFINITION = new ConfigDef()
        .define(BOOTSTRAP_SERVERS, Type.STRING, "localhost:9092", Importance.HIGH,
            "Kafka bootstrap servers.")
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
        .define(HTTP_BIND_ADDRESS, Type.STRING, "127.0.0.1", Importance.HIGH,
            "Address the HTTP servers of every app (API, health, metrics) listen on: loopback by default, so nothing "
                + "is reachable from another machine; 0.0.0.0 for every interface (containers, Kubernetes).")
        .define(RETRIEVER_HTTP_HOST, Type.STRING, "localhost", Importance.MEDIUM,
            "Host name other retriever instances use to reach this one (application.server).")
        .define(MIN_IMPORTANCE, Type.DOUBLE, 0.3, Range.between(0.0, 1.0), Importance.MEDIUM,
            "Candidates below this importance (0..1) are not stored.")
        .define(MIN_CONFIDENCE, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.MEDIUM,
            "Candidates below this confidence (0..1) are not stored.")
        .define(REINFORCE_THRESHOLD, Type.DOUBLE, 0.9, Range.between(-1.0, 1.0), Importance.MEDIUM,
            "Similarity (cosine on the embedding.similarity.floors scale) above which a candidate reinforces an active memory of the same user (unless a fact's value differs).")
        .define(JUDGE_THRESHOLD, Type.DOUBLE, 0.7, Range.between(-1.0, 1.0), Importance.MEDIUM,
            "Similarity (embedding.similarity.floors scale) from which (up to the reinforce threshold) the ContradictionJudge is asked.")
        .define(WEIGHT_SEMANTIC, Type.DOUBLE, 0.85, Range.between(0.0, 1.0), Importance.LOW,
            "Retrieval score weight of semantic relevance. The total is the weighted mean of the four components "
                + "(divided by the sum of the weights), so it stays in 0..1 for any weights; all four 0 is refused at start.")
        .define(WEIGHT_RECENCY, Type.DOUBLE, 0.02, Range.between(0.0, 1.0), Importance.LOW,
            "Retrieval score weight of recency = exp(-days since last access / decay days).")
        .define(WEIGHT_IMPORTANCE, Type.DOUBLE, 0.1, Range.between(0.0, 1.0), Importance.LOW,
            "Retrieval score weight of importance.")
        .define(WEIGHT_ACCESS, Type.DOUBLE, 0.03, Range.between(0.0, 1.0), Importance.LOW,
            "Retrieval score weight of access = min(accessCount / saturation, 1).")
        .define(RECENCY_DECAY_DAYS, Type.DOUBLE, 30.0, Range.atLeast(0.001), Importance.LOW,
            "Days in the recency decay exp(-days / decay).")
        .define(ACCESS_SATURATION, Type.INT, 10, Range.atLeast(1), Importance.LOW,
            "Access count at which the access component reaches 1.")
        .define(OVERFETCH_FACTOR, Type.INT, 3, Range.atLeast(1), Importance.LOW,
            "Retrieval fetches k × this many candidates before re-ranking.")
        .define(DEFAULT_K, Type.INT, 5, Range.between(1, 100), Importance.LOW,
            "k when a retrieval request gives none.")
        .define(MAX_K, Type.INT, 100, Range.between(1, 1000), Importance.LOW,
            "Largest k a retrieval request may ask for; larger is a 400.")
        .define(CONTEXT_BUDGET_TOKENS, Type.INT, 512, Range.atLeast(16), Importance.LOW,
            "Token budget of the context block when the request gives none.")
        .define(EMBEDDING_THREADS, Type.INT, Math.max(1, Runtime.getRuntime().availableProcessors()),
            Range.atLeast(1), Importance.LOW,
            "Threads of the in-process embedding model (one text per thread, one ONNX thread each).")
        .define(MAX_MESSAGES, Type.INT, 2000, Range.atLeast(1), Importance.LOW,
            "Conversations with more messages are sent to the dead-letter topic.")
        .define(MAX_MESSAGE_CHARS, Type.INT, 100_000, Range.atLeast(1), Importance.LOW,
            "Messages longer than this many characters send the conversation to the dead-letter topic.")
        .define(MAX_RECORD_BYTES, Type.INT, 4 * 1024 * 1024, Range.between(1024, 64 * 1024 * 1024), Importance.LOW,
            "Largest conversation record (serialized Avro, bytes) ingest publishes; a larger one is refused at ingest "
                + "with this limit named. Topics are created with max.message.bytes and producers run with "
                + "max.request.size of this plus 1 MiB (headers, dead-letter reasons), so what ingest accepts the "
                + "broker and the dead-letter topic accept too; a larger record that reaches the extractor anyway (another "
                + "producer) is dead-lettered with this limit named.")
        .define(MIN_RELEVANCE, Type.DOUBLE, 0.002, Range.between(0.0, 1.0), Importance.LOW,
            "A memory is a retrieval candidate only if its calibrated relevance (the semantic component, 0..1: "
                + "the estimated probability that it answers the query) is at least this; below it is never "
                + "returned, however few hits remain, so an unrelated question gets nothing.")
        .define(MIN_TOP_RELEVANCE, Type.DOUBLE, 0.0, Range.between(0.0, 1.0), Importance.LOW,
            "A query is answered only if its most relevant memory reaches this calibrated relevance; else nothing is "
                + "returned, however many memories pass retrieval.min.relevance. 0 = off: with MiniLM a weakly related "
                + "but wanted fact (a diet for a cooking question, ~0.003) scores like chit-chat for an unrelated question.")
        .define(SKIP_COVERED_EPISODES, Type.BOOLEAN, true, Importance.LOW,
            "An episodic hit whose source messages are all cited by episodic hits ranked above it is left out and the "
                + "next one takes its place (a turn's own episode after the exchange episode that holds the turn and its "
                + "reply): the k hits then cite k different exchanges. Facts are never left out.")
        .define(RELEVANCE_CALIBRATION, Type.STRING, "", Importance.LOW,
            "Coefficients b0,b_dense,b_lexical[,b_period] of semantic = sigmoid(b0 + b_dense*cosine + b_lexical*BM25/idf mass "
                + "+ b_period*[the memory lies in the period the question names]) for embedding.model; empty = the fit for the "
                + "model (all-minilm-l6-v2-q, bge-small-en-v15-q, bge-small-zh-v15-q; bench quality --calibrate fits one). "
                + "Other models (embedding.model.han) keep their fit unless named: entries <model>:b0,b_dense,b_lexical[,b_period] "
                + "separated by ';' (e.g. bge-small-zh-v15-q:-8,7,9,2.6).")
        .define(QUERY_CACHE_SIZE, Type.INT, 256, Range.atLeast(0), Importance.LOW,
            "Query vectors the retriever keeps (least recently used dropped first); 0 = embed every query.")
        .define(EMBEDDING_DIMENSIONS, Type.INT, 384, Range.atLeast(1), Importance.LOW,
            "Vector size of embedding.model (bge-small-en and all-MiniLM-L6-v2: 384); candidates of another size go to the "
                + "dead-letter topic.")
        .define(EXTRACTOR_MAX_IN_FLIGHT, Type.INT, 8, Range.atLeast(1), Importance.LOW,
            "Conversations one extractor task extracts and embeds at once with the offline extractor, so the embedding "
                + "threads always have texts of several conversations queued; candidates are still forwarded in input "
                + "order, exactly once (the LLM extractor uses llm.max.concurrency). 1 = one at a time inside the stream thread.")
        .define(EMBEDDING_MODEL, Type.STRING, "bge-small-en-v15-q", Importance.HIGH,
            "In-process embedding model of every text that is not mostly Han: bge-small-en-v15-q (bge-small-en-v1.5, "
                + "quantized; queries get the model card's instruction), all-minilm-l6-v2-q (about twice as fast, weaker "
                + "retrieval) or bge-small-zh-v15-q. Every memory records its model; vectors of two models are never compared.")
        .define(EMBEDDING_MODEL_HAN, Type.STRING, "bge-small-zh-v15-q", Importance.MEDIUM,
            "Embedding model of text mostly in Han characters (Chinese; Japanese kanji and kana count too), see "
                + "embedding.han.min.share; empty = embedding.model for every text. Queries are embedded with the model of "
                + "the memories they are compared with.")
        .define(EMBEDDING_HAN_MIN_SHARE, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.LOW,
            "A text goes to embedding.model.han when Han and kana characters make at least this share of its Han and "
                + "kana characters plus its words in other scripts.")
        .define(EMBEDDING_HAN_DIMENSIONS, Type.INT, 512, Range.atLeast(1), Importance.LOW,
            "Vector size of embedding.model.han (bge-small-zh-v1.5: 512). Qdrant holds one vector size: with "
                + "vector.index=qdrant set embedding.model.han empty unless both models have the same size.")
        .define(EMBEDDING_SIMILARITY_FLOORS, Type.LIST,
            "all-minilm-l6-v2-q=0,bge-small-en-v15-q=0.52,bge-small-zh-v15-q=0.40", Importance.LOW,
            "MODEL=FLOOR per embedding model: the similarity thresholds between two memories (dedup.*, "
                + "lifecycle.merge.threshold) apply to (cosine - floor) / (1 - floor), so they mean the same for every model "
                + "(bge puts unrelated sentences near cosine 0.5; floors measured by matching cosine quantiles to MiniLM's, "
                + "whose floor is 0). A model not listed uses raw cosine.")
        .define(LIFECYCLE_INTERVAL_MS, Type.LONG, 86_400_000L, Range.atLeast(1), Importance.LOW,
            "Stream time (event time, ms) between two consolidation passes of the consolidator (merge, stale, TTL, "
                + "hard delete); one day by default, as the seeds' daily consolidation.")
        .define(MERGE_THRESHOLD, Type.DOUBLE, 0.85, Range.between(-1.0, 1.0), Importance.LOW,
            "Similarity (embedding.similarity.floors scale) from which active memories of one type (without a fact key) are merged into one; 1 disables merging.")
        .define(STALE_DAYS, Type.INT, 90, Range.atLeast(1), Importance.LOW,
            "A memory unused (not accessed, not restated) for more days than this can be archived as STALE.")
        .define(STALE_MAX_IMPORTANCE, Type.DOUBLE, 0.4, Range.between(0.0, 1.0), Importance.LOW,
            "Only memories below this importance become STALE; above memory.min.importance, or nothing stored is "
                + "ever stale (the default 0.4 takes the two lowest bands the rule-based extractor stores: 0.3, a long turn "
                + "with no signal, and 0.35, a short remark with one).")
        .define(STALE_MAX_ACCESS_COUNT, Type.INT, 2, Range.atLeast(0), Importance.LOW,
            "Only memories used fewer times than this become STALE: accesses plus restatements after the first "
                + "statement (reinforcement counts as use).")
        .define(TTL_ROLE_DAYS, Type.INT, 120, Range.atLeast(0), Importance.LOW,
            "Days an explicit ROLE fact (job title, employer) lives after its last statement; 0 = permanent.")
        .define(TTL_CONTEXT_DAYS, Type.INT, 30, Range.atLeast(0), Importance.LOW,
            "Days an explicit CONTEXT fact (current project, situation) lives after its last statement; 0 = permanent. "
                + "Preferences, technical, constraint and personal facts and episodes are permanent.")
        .define(TTL_INFERRED_FACTOR, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.LOW,
            "TTL of an INFERRED fact as a fraction of the explicit one's.")
        .define(ARCHIVE_RETENTION_DAYS, Type.INT, 365, Range.atLeast(1), Importance.LOW,
            "Archived memories are hard-deleted (tombstones, vector deleted, a DELETED event) this many days after archiving.")
        .define(PII_ACTION, Type.STRING, "redact", ConfigDef.ValidString.in("redact", "drop"), Importance.MEDIUM,
            "What the extractor (and a correction through the API) does with a memory containing a card number "
                + "(Luhn), an IBAN (mod-97) or a national id / SSN: redact the identifier, or drop the memory.")
        .define(CRYPTO_ENABLED, Type.BOOLEAN, false, Importance.HIGH,
            "Crypto-shredding: every record Engram writes about a user (candidates, memory events, contradictions, "
                + "archives, commands, profiles, store changelogs) is encrypted with that user's data key (AES-SIV, "
                + "deterministic) kept on the compacted topic engram-data-keys, wrapped by the key-encryption key; "
                + "erasing the user tombstones the key. Needs crypto.kek or crypto.kek.file.")
        .define(CRYPTO_KEK, Type.PASSWORD, null, Importance.HIGH,
            "Key-encryption key (AES-256-GCM) wrapping the data keys: base64 of 32 random bytes "
                + "(openssl rand -base64 32). Never written to a topic.")
        .define(CRYPTO_KEK_FILE, Type.STRING, "", Importance.HIGH,
            "A file holding the key-encryption key as base64 (a mounted Kubernetes Secret); wins over crypto.kek.")
        .define(AUTH_ENABLED, Type.BOOLEAN, true, Importance.HIGH,
            "Require an API key (Authorization: Bearer KEY or X-Api-Key) on every /v1 request. Only the local "
                + "demo turns this off.")
        .define(AUTH_ALLOW_UNAUTHENTICATED_REMOTE, Type.BOOLEAN, false, Importance.HIGH,
            "With retriever.auth.enabled=false the retriever refuses to start on a non-loopback http.bind.address "
                + "(anyone on the network could read every tenant's memories) unless this is true; even then it warns "
                + "at start and every minute.")
        .define(AUTH_KEYS, Type.PASSWORD, "", Importance.HIGH,
            "API keys, comma-separated: KEY=TENANT:admin (the whole tenant) or KEY=TENANT:user:USER (one user). "
                + "Default deny: no key, no access.")
        .define(AUTH_KEYS_FILE, Type.STRING, "", Importance.MEDIUM,
            "A properties file of more API keys, one KEY=TENANT:admin or KEY=TENANT:user:USER per line.")
        .define(VECTOR_INDEX, Type.STRING, VECTOR_INDEX_EMBEDDED,
            ConfigDef.ValidString.in(VECTOR_INDEX_EMBEDDED, VECTOR_INDEX_QDRANT), Importance.HIGH,
            "Vector index of the consolidator (dedup, writes) and the retriever (dense candidates): embedded "
                + "(exact cosine over the local state store, no server) or qdrant.")
        .define(QDRANT_HOST, Type.STRING, "localhost", Importance.HIGH,
            "Qdrant host (gRPC), used when vector.index=qdrant.")
        .define(QDRANT_PORT, Type.INT, 6334, Range.between(1, 65535), Importance.HIGH,
            "Qdrant gRPC port (Qdrant serves gRPC on 6334, REST on 6333).")
        .define(QDRANT_API_KEY, Type.PASSWORD, null, Importance.MEDIUM,
            "Qdrant API key, sent as the api-key header on every call; empty = none.")
        .define(QDRANT_TLS, Type.BOOLEAN, false, Importance.MEDIUM,
            "Use TLS to Qdrant (the client library's own default is TLS on; Engram asks for it explicitly).")
        .define(QDRANT_COLLECTION, Type.STRING, "engram-memories", Importance.MEDIUM,
            "Qdrant collection of the memories; created at start when absent (vector size of the embedder, cosine).")
        .define(QDRANT_TIMEOUT_MS, Type.INT, 2000, Range.between(1, 60_000), Importance.MEDIUM,
            "Deadline of every Qdrant call, in milliseconds.")
        .define(QDRANT_RETRY_BUDGET_MS, Type.INT, 5000, Range.between(0, 9000), Importance.LOW,
            "How long the consolidator retries an unavailable Qdrant (backoff 100 ms doubling to 1.6 s) inside one "
                + "record before it hands the record back (the stream thread rejoins and resumes from the last commit, "
                + "again and again until Qdrant answers); kept below the 10 s transaction timeout of exactly-once. "
                + "Also the Retry-After of the retriever's 503, rounded up to seconds.")
        .define(LLM_BASE_URL, Type.STRING, "", Importance.HIGH,
            "OpenAI-compatible Chat Completions base URL including the version (e.g. http://localhost:11434/v1 for Ollama, "
                + "https://api.openai.com/v1); empty = the offline rule-based extractor and key/value judge.")
        .define(LLM_MODEL, Type.STRING, "gpt-4o-mini", Importance.HIGH,
            "Model name sent to the LLM server; recorded with the prompt version on every candidate.")
        .define(LLM_API_KEY, Type.PASSWORD, "", Importance.HIGH,
            "Bearer token for the LLM server; empty sends no Authorization header (Ollama, vLLM, llama.cpp).")
        .define(LLM_TIMEOUT_MS, Type.INT, 30_000, Range.atLeast(1), Importance.MEDIUM,
            "Timeout of one LLM call in ms (a timeout is retried like a 5xx).")
        .define(LLM_MAX_TOKENS, Type.INT, 1024, Range.atLeast(16), Importance.MEDIUM,
            "max_tokens of every LLM request.")
        .define(LLM_TEMPERATURE, Type.DOUBLE, 0.0, Range.between(0.0, 2.0), Importance.LOW,
            "temperature of every LLM request (0 = as deterministic as the server allows).")
        .define(LLM_MAX_CONCURRENCY, Type.INT, 32, Range.atLeast(1), Importance.MEDIUM,
            "LLM calls in flight per extractor instance; also the most conversations a task holds pending.")
        .define(LLM_MAX_ATTEMPTS, Type.INT, 4, Range.atLeast(1), Importance.MEDIUM,
            "Attempts per LLM call on 429, 5xx, timeouts and unparseable answers before the conversation goes to the dead-letter topic.")
        .define(LLM_BACKOFF_MS, Type.INT, 500, Range.atLeast(0), Importance.LOW,
            "First retry wait in ms, doubled per attempt; a Retry-After header from the server wins.")
        .define(LLM_CONTEXT_TOKENS, Type.INT, 6000, Range.atLeast(200), Importance.MEDIUM,
            "Token budget of the conversation part of one extraction request; longer conversations are chunked.")
        .define(LLM_RESPONSE_FORMAT, Type.STRING, "json_schema", ConfigDef.ValidString.in("json_schema", "json_object"),
            Importance.LOW, "Structured output mode; json_schema falls back to json_object by itself when the server rejects it.")
        .define(LLM_BREAKER_OPEN_MS, Type.INT, 10_000, Range.atLeast(1), Importance.LOW,
            "How long the LLM circuit breaker stays open (no calls, no new work pulled) before a probe call.")
        .define(LLM_JUDGE, Type.BOOLEAN, true, Importance.LOW,
            "With llm.base.url set: ask the LLM about 0.7-0.9 similar pairs that share no fact key (else the key/value judge).")
        .define(LLM_EPISODES, Type.BOOLEAN, true, Importance.MEDIUM,
            "With llm.base.url set: also store the rule-based extractor's episodes (the user's turns as said) beside the "
                + "LLM's facts and summaries (better LoCoMo recall at every k and token budget, no extra LLM tokens); "
                + "false = the LLM's memories only (mem0-style).")
        .define(LLM_MERGE, Type.BOOLEAN, false, Importance.LOW,
            "With llm.base.url set: the LLM writes the content of memories merged by the consolidation pass (else the "
                + "members' contents are joined); off by default because the pass runs inside one transaction.")
        .define(SERDE_FORMAT, Type.STRING, "single-object", ConfigDef.ValidString.in("single-object", "registry"),
            Importance.MEDIUM, "Wire format of the Avro values on Engram's topics: single-object (Avro single-object "
                + "encoding, no registry) or registry (Confluent Schema Registry wire format: magic byte 0, 4-byte schema id, "
                + "Avro binary; subject <topic>-value, BACKWARD). Readers accept both, so a running pipeline can switch.")
        .define(SCHEMA_REGISTRY_URL, Type.STRING, "", Importance.MEDIUM,
            "Base URL of a Confluent-compatible schema registry (Confluent, Apicurio's /apis/ccompat/v7, Karapace, "
                + "Redpanda), used when serde.format=registry.")
        .define(SCHEMA_REGISTRY_USER_INFO, Type.PASSWORD, "", Importance.LOW,
            "user:password for HTTP Basic authentication to the schema registry; empty = none.");

    /** @param originals raw settings; unknown keys are kept (kafka.* pass-through) */
    public EngramConfig(final Map<String, ?> originals) {
        super(DEFINITION, originals, false);
    }

    /** @return the defaults alone */
    public static EngramConfig defaults() {
        return new EngramConfig(Map.of());
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
