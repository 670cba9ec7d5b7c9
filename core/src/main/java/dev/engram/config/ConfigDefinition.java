package dev.engram.config;

import static dev.engram.config.EngramConfig.*;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The declaration of every {@link EngramConfig} setting: type, default, validator, importance and the doc
 * the README's configuration table prints ({@link EngramConfig#toMarkdownTable()}). The keys are
 * {@link EngramConfig}'s constants; this class only declares them, in the table's order.
 */
final class ConfigDefinition {

    private ConfigDefinition() {
    }

    /** @return a new definition of every setting */
    static ConfigDef define() {
        return new ConfigDef()
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
            .define(RETRIEVER_CATCHUP_MAX_WAIT_MS, Type.LONG, 300_000L, Range.atLeast(0), Importance.LOW,
                "After a (re)start the retriever answers an unknown user or memory with 503 and Retry-After (and "
                    + "/health/ready with 503) instead of 404 until it has processed memory-updated up to the end the "
                    + "topic had when its stream thread first ran (committed offsets of its partitions vs read_committed "
                    + "end offsets); at most this long, then it answers 404 again and logs a warning. 0 = never wait.")
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
            .define(WEIGHT_RECENCY, Type.DOUBLE, 0.0, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of recency = exp(-days since last access / decay days). 0 by default: what is "
                    + "out of date is superseded or archived by the consolidator, and what the user relies on lately "
                    + "is counted by the access weight; a recency prior on top pulled older but relevant episodes out "
                    + "of the top 10 (LoCoMo dev, BENCHMARKS.md). Raise it where users mostly ask about recent events.")
            .define(WEIGHT_IMPORTANCE, Type.DOUBLE, 0.02, Range.between(0.0, 1.0), Importance.LOW,
                "Retrieval score weight of importance (the extractor's estimate, not a relevance; a tie-breaker: every "
                    + "extractor has its own scale, and at 0.05 the LLM path's uniformly important facts outranked the "
                    + "more relevant episodes of the same turns, at 0.1 barely relevant important memories outranked "
                    + "relevant ones).")
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
                "Threads of the in-process embedding model (one text per thread, one ONNX thread each); the retriever "
                    + "embeds at most this many queries at once, the others wait their turn.")
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
                "An episodic hit whose source messages are all cited by episodic hits ranked above it is left out and "
                    + "the next one takes its place (a turn's own episode after the exchange episode that holds the turn "
                    + "and its reply): the k hits then cite k different exchanges. Facts are never left out.")
            .define(SKIP_OBSERVED, Type.BOOLEAN, true, Importance.LOW,
                "In GET .../memories?query=: a hit that an observation ranked above it states word for word (an "
                    + "observation holds its statements' own words, without the (re: \"...\") question an answer carries) "
                    + "is left out and the next one takes its place. The context block leaves out text already in it anyway.")
            .define(RELEVANCE_CALIBRATION, Type.STRING, "", Importance.LOW,
                "Coefficients b0,b_dense,b_lexical[,b_period] of semantic = sigmoid(b0 + b_dense*cosine + b_lexical*BM25/idf mass "
                    + "+ b_period*[the memory lies in the period the question names]) for embedding.model; empty = the fit for the "
                    + "model (all-minilm-l6-v2-q, bge-small-en-v15-q, bge-small-zh-v15-q; bench quality --calibrate fits one). "
                    + "Other models (embedding.model.han) keep their fit unless named: entries "
                    + "<model>:b0,b_dense,b_lexical[,b_period] separated by ';' (e.g. bge-small-zh-v15-q:-8,7,9,2.6).")
            .define(KIND_PRIOR, Type.STRING, "observation:2.3,summary:1.4,fact:0.3", new KindPriorValidator(), Importance.LOW,
                "Prior log-odds that a memory of each kind holds the answer at equal relevance, added to a hit's calibrated "
                    + "relevance logit when GET .../memories?query= orders its list (not in a context block, which is judged per "
                    + "token): entries kind:b separated by ',' for the kinds statement, reply, recommendation, summary, fact, "
                    + "observation (a kind left out: 0). The default is fitted on LoCoMo dev (bench quality --calibrate); "
                    + "empty = no kind weighs more than another.")
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
                "Vector size of embedding.model.han (bge-small-zh-v1.5: 512); with vector.index=qdrant its vectors "
                    + "get their own collection.")
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
            .define(OBSERVE_THRESHOLD, Type.DOUBLE, 0.48, Range.between(-1.0, 1.0), Importance.LOW,
                "Similarity (embedding.similarity.floors scale) between a user's statement and a topic group's centroid "
                    + "from which the consolidator states them together in one observation citing all their messages "
                    + "(what a question spread over many conversations finds in one hit); the consolidator then embeds each "
                    + "observation with the deployment's model. 0.48 (raw cosine 0.75 for bge-small-en) measured best on "
                    + "LoCoMo dev; 1 disables observations.")
            .define(OBSERVE_INTERVAL_MS, Type.LONG, 5_000L, Range.atLeast(100), Importance.LOW,
                "Wall-clock time (ms) between two regroupings of the observations of the users whose statements changed "
                    + "since their last one (at most 64 users and about 2 s each time), so observations follow within seconds without "
                    + "stream time advancing; the result depends on the statements only, not on when it runs.")
            .define(OBSERVE_MAX_MEMBERS, Type.INT, 16, Range.between(2, 64), Importance.LOW,
                "Statements one observation states at most (its content is also capped at 2,000 characters).")
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
            .define(MCP_ALLOWED_ORIGINS, Type.LIST, "", Importance.MEDIUM,
                "Browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides loopback ones "
                    + "(localhost, 127.0.0.0/8, [::1], any port); a request from any other Origin is a 403 (DNS "
                    + "rebinding protection: the demo runs without API keys). * allows every origin. Requests without "
                    + "an Origin header (every non-browser client) are not affected.")
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
                "Base name of the Qdrant collections: the memories embedded by model M live in collection "
                    + "<qdrant.collection>-<M> (created when absent with M's vector size, cosine), and the alias "
                    + "qdrant.collection names the active model's collection (created at start, switched by "
                    + "bin/engram reembed).")
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
            .define(LLM_PRICE_PROMPT, Type.DOUBLE, 0.0, Range.atLeast(0.0), Importance.LOW,
                "US dollars per million prompt tokens, for the cost ledger's estimate (llm-usage, GET /v1/tenants/{t}/usage, "
                    + "engram.llm.tenant.cost); 0 = not priced.")
            .define(LLM_PRICE_COMPLETION, Type.DOUBLE, 0.0, Range.atLeast(0.0), Importance.LOW,
                "US dollars per million completion tokens, for the cost ledger's estimate; 0 = not priced.")
            .define(SERDE_FORMAT, Type.STRING, "single-object", ConfigDef.ValidString.in("single-object", "registry"),
                Importance.MEDIUM, "Wire format of the Avro values on Engram's topics: single-object (Avro single-object "
                    + "encoding, no registry) or registry (Confluent Schema Registry wire format: magic byte 0, 4-byte schema id, "
                    + "Avro binary; subject <topic>-value, BACKWARD). Readers accept both, so a running pipeline can switch.")
            .define(SCHEMA_REGISTRY_URL, Type.STRING, "", Importance.MEDIUM,
                "Base URL of a Confluent-compatible schema registry (Confluent, Apicurio's /apis/ccompat/v7, Karapace, "
                    + "Redpanda), used when serde.format=registry.")
            .define(SCHEMA_REGISTRY_USER_INFO, Type.PASSWORD, "", Importance.LOW,
                "user:password for HTTP Basic authentication to the schema registry; empty = none.")
            .define(INGEST_COMPRESSION, Type.STRING, "gzip", ConfigDef.ValidString.in("none", "gzip", "snappy", "lz4", "zstd"),
                Importance.LOW, "Compression of the records bin/engram ingest and the demo publish to conversations-completed "
                    + "(the producer's compression.type). gzip and none are read by every Kafka client, kafkajs included; "
                    + "snappy, lz4 and zstd are read by the Java client, librdkafka's (Python, Go, .NET, kcat), franz-go and "
                    + "sarama, but kafkajs needs a codec package for each. Consumers decompress whatever the producer chose.");
    }

    /** Refuses a {@code retrieval.relevance.kind.prior} that {@link dev.engram.port.KindPrior#parse} refuses. */
    private static final class KindPriorValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(final String name, final Object value) {
            try {
                dev.engram.port.KindPrior.parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new org.apache.kafka.common.config.ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "kind:log-odds,… (statement, reply, recommendation, summary, fact, observation)";
        }
    }
}
