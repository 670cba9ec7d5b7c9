package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.core.MemoryIds;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.extractor.ExtractorApp;
import dev.engram.testing.Waits;
import dev.engram.ops.Embedders;
import dev.engram.ops.OpsTestSupport;
import dev.engram.ops.Reembed;
import dev.engram.retriever.RetrieverApp;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.Vectors;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.Ingest;
import dev.engram.stack.MemoryState;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicScan;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import dev.engram.topology.DeadLetters;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Re-embedding end to end on the real broker with the real models: the pipeline runs with MiniLM, the sample is
 * ingested, {@code reembed --model bge-small-en-v15-q} switches while a client keeps searching (every answer a
 * 200), and then every memory on {@code memory-updated} carries bge-small's vector of its content, the retriever
 * ranks them with a bge-small query vector and the extractor embeds with bge-small, both without a restart or a
 * change of {@code embedding.model} (they follow the active model), so a restated conversation reinforces the
 * re-embedded memories (the consolidator's dedup on the new vectors); a candidate still embedded by MiniLM is
 * dead-lettered with both model names instead of being compared with bge-small vectors, and the next reembed
 * re-drives it with bge-small, once.
 */
class ReembedIT {

    private static final String OLD = OnnxModel.MINILM.name();
    private static final String NEW = OnnxModel.BGE_SMALL_EN.name();
    private static final String QUERY = "which city does she live in";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldServeAndDeduplicateWithTheNewModelsVectorsWhenReembedSwitchesFromMiniLmToBgeSmall() throws Exception {
        final Path dir = Files.createTempDirectory("engram-reembed-it");
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            final Map<String, Object> client = Map.of("bootstrap.servers", bootstrap);
            final Map<String, Object> settings = new HashMap<>(Map.of(CoreConfig.BOOTSTRAP_SERVERS, bootstrap,
                PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
                PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0,
                RetrieverConfig.AUTH_ENABLED, false, CoreConfig.EMBEDDING_MODEL, OLD));
            final EngramConfig config = EngramConfig.plain().with(settings);
            try (Admin admin = Admin.create(client)) {
                TopicSetup.createAll(admin, 2);
            }
            ExtractorApp extractor = ExtractorApp.start(config);
            try (ConsolidatorApp consolidator = ConsolidatorApp.start(config);
                 RetrieverApp.Handle retriever = RetrieverApp.start(config)) {
                try (Ingest ingest = new Ingest(bootstrap, Map.of())) {
                    ingest.publish(ProjectPaths.sample().orElseThrow(), n -> { });
                }
                awaitProcessed(bootstrap, extractor);
                // "no lag" once held before the extractor had forwarded anything (a clean-clone CI run): awaitProcessed
                // now waits for the extractor's pending conversations too; the memories must then be there
                final List<Memory> before = Waits.until("the sample's memories of mira on memory-updated",
                    Duration.ofMinutes(2), () -> mira(MemoryState.read(client, Duration.ofSeconds(30))), ms -> !ms.isEmpty());
                assertThat(before).isNotEmpty().allSatisfy(m -> assertThat(m.getEmbeddingModel()).isEqualTo(OLD));
                final Map<String, Double> semanticBefore = semantic(search(retriever));
                final long memoriesBefore = MemoryState.read(client, Duration.ofSeconds(30)).memories().values().stream()
                    .mapToLong(List::size).sum();

                // retrieval answers throughout the switch: a client asks every 100 ms while reembed runs
                final AtomicInteger answered = new AtomicInteger();
                final List<String> failures = new CopyOnWriteArrayList<>();
                final AtomicBoolean switching = new AtomicBoolean(true);
                final Thread asker = new Thread(() -> {
                    while (switching.get()) {
                        try {
                            final HttpResponse<String> r = get(retriever);
                            if (r.statusCode() == 200) {
                                answered.incrementAndGet();
                            } else {
                                failures.add(r.statusCode() + " " + r.body());
                            }
                            Thread.sleep(100);
                        } catch (Exception e) {
                            failures.add(e.toString());
                        }
                    }
                }, "reembed-it-asker");
                asker.start();
                final ByteArrayOutputStream log = new ByteArrayOutputStream();
                final Reembed.Report report;
                try {
                    report = Reembed.run(client, Embedders.named(NEW), 2, true,
                        new PrintStream(log, true, StandardCharsets.UTF_8), config);
                } finally {
                    switching.set(false);
                    asker.join(30_000);
                }
                assertThat(report.switched()).as(log.toString(StandardCharsets.UTF_8)).isTrue();
                assertThat(report.caughtUp()).as(log.toString(StandardCharsets.UTF_8)).isTrue();
                assertThat(report.commands()).isEqualTo(report.memories());
                assertThat(report.memories() + report.derived()).as("statements embedded, observations and topic lists "
                    + "left to the regrouping").isEqualTo(memoriesBefore);
                assertThat(failures).as("every search during the switch answered 200").isEmpty();
                assertThat(answered.get()).isGreaterThan(5);

                // every memory carries the new model's vector: a statement of its own content, an observation or topic
                // list its statements' centroid (written again by the regrouping, not embedded)
                final List<Memory> after = awaitMemories(client, ms -> ms.stream().allMatch(m -> NEW.equals(m.getEmbeddingModel())));
                assertThat(after).hasSameSizeAs(before);
                final List<Memory> statements = after.stream().filter(m -> !Observations.rebuiltByRegrouping(m)).toList();
                final List<float[]> expected = OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN)
                    .embedAll(statements.stream().map(Memory::getContent).toList());
                for (int i = 0; i < statements.size(); i++) {
                    assertThat(Vectors.cosine(Vectors.toArray(statements.get(i).getEmbedding()), expected.get(i)))
                        .as(statements.get(i).getContent()).isGreaterThan(0.999);
                }
                awaitProcessed(bootstrap, extractor);
                // the retriever ranks the re-embedded memories with a bge-small query vector: its semantic
                // components are those of a ranking that embeds the query by bge-small, not of one without it
                final JsonNode hits = search(retriever);
                assertThat(hits).isNotEmpty();
                assertThat(hits.findValuesAsText("content")).anyMatch(c -> c.contains("Lisbon"));
                final Map<String, Double> semanticAfter = semantic(hits);
                assertThat(semanticAfter).isNotEqualTo(semanticBefore);
                final Map<String, Double> withNewModel = semantic(new HybridScorer(retriever.embedder(), config), after);
                final Map<String, Double> withoutNewModel = semantic(
                    new HybridScorer(ScriptRoutedEmbedder.fromConfig(config), config), after);
                semanticAfter.forEach((id, value) -> {
                    assertThat(withNewModel.get(id)).as(id).isCloseTo(value, within(1e-3));
                    assertThat(withoutNewModel.getOrDefault(id, 0.0)).as(id).isNotCloseTo(value, within(1e-3));
                });
                assertThat(retriever.embedder().modelName()).as("the retriever follows the active model").isEqualTo(NEW);

                // the extractor switched by itself (embedding.model still MiniLM): a restated conversation is
                // embedded by bge-small and reinforces the re-embedded memories (the consolidator's dedup on them)
                final long deadBefore = deadLetters(bootstrap).size();
                try (Ingest ingest = new Ingest(bootstrap, Map.of())) {
                    ingest.send(restated("mira-1-new-model", "2025-03-02T09:00:00Z"));
                }
                final List<MemoryUpdated> events = await(() -> updatesCiting(bootstrap, "mira-1-new-model"),
                    e -> !e.isEmpty());
                awaitProcessed(bootstrap, extractor);
                assertThat(updatesCiting(bootstrap, "mira-1-new-model")).hasSameSizeAs(events);
                assertThat(events).allSatisfy(e -> assertThat(e.getOperation()).isEqualTo(UpdateOperation.REINFORCED));
                assertThat(deadLetters(bootstrap)).hasSize((int) deadBefore);

                // a candidate still embedded by MiniLM (extracted before the switch) is never compared with
                // bge-small vectors: dead-lettered with both names; reembed run again re-drives it with bge-small
                final MemoryCandidate straggler = straggler(bootstrap, config);
                await(() -> deadLetters(bootstrap), r -> r.size() > deadBefore);
                final List<String> reasons = deadLetters(bootstrap);
                assertThat(reasons.subList((int) deadBefore, reasons.size()))
                    .allSatisfy(reason -> assertThat(reason).contains(OLD).contains(NEW));
                final Reembed.Report again = Reembed.run(client, Embedders.named(NEW), 2, true,
                    new PrintStream(log, true, StandardCharsets.UTF_8), config);
                assertThat(again.caughtUp()).as(log.toString(StandardCharsets.UTF_8)).isTrue();
                assertThat(again.commands()).as("nothing left to re-embed").isZero();
                assertThat(again.redriven()).isEqualTo(reasons.size() - deadBefore);
                awaitProcessed(bootstrap, extractor);
                assertThat(updatesCiting(bootstrap, straggler.getConversationId())).isNotEmpty()
                    .allSatisfy(e -> assertThat(e.getMemory().getEmbeddingModel()).isEqualTo(NEW));
                assertThat(deadLetters(bootstrap)).as("re-driven, not dead-lettered again").hasSameSizeAs(reasons);
                assertThat(Reembed.run(client, Embedders.named(NEW), 2, true,
                    new PrintStream(log, true, StandardCharsets.UTF_8), config).redriven()).as("once").isZero();
            } finally {
                extractor.close();
            }
        } finally {
            ProjectPaths.deleteRecursively(dir);
        }
    }

    /**
     * Publishes a candidate of the sample's mira embedded by MiniLM, as the extractor wrote them before the
     * switch, in a conversation of its own.
     */
    private static MemoryCandidate straggler(final String bootstrap, final EngramConfig config) {
        final String content = "Works at Ferrovia Labs as a backend engineer.";
        final MemoryCandidate candidate = MemoryCandidate.newBuilder()
            .setCandidateId(MemoryIds.candidateId("acme", "mira", "mira-straggler", content)).setTenantId("acme")
            .setUserId("mira").setConversationId("mira-straggler").setType(MemoryType.EPISODIC).setCategory(null)
            .setKey(null).setValue(null).setDisplayName(null).setContent(content).setNegated(false).setImportance(0.6)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(Instant.parse("2025-03-03T09:00:00Z"))
            .setEmbedding(Vectors.toList(OnnxEmbedder.shared(OnnxModel.MINILM).embed(content))).setEmbeddingModel(OLD)
            .setExtractor("reembed-it").setLanguage("en").setEventDates(List.of()).build();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
            new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topic.MEMORY_CANDIDATES.name(), null, candidate.getEventTime().toEpochMilli(),
                "acme/mira", Topic.MEMORY_CANDIDATES.valueSerializer(config).serialize(Topic.MEMORY_CANDIDATES.name(), candidate)));
            producer.flush();
        }
        return candidate;
    }

    private static HttpResponse<String> get(final RetrieverApp.Handle retriever) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl()
            + "/v1/tenants/acme/users/mira/memories?k=5&recordAccess=false&query="
            + URLEncoder.encode(QUERY, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** mira-1 of the sample said again in another conversation (the same two user turns). */
    private static ConversationCompleted restated(final String conversationId, final String at) {
        final Instant t = Instant.parse(at);
        return ConversationCompleted.newBuilder().setTenantId("acme").setUserId("mira").setConversationId(conversationId)
            .setMessages(List.of(
                Message.newBuilder().setIndex(0).setRole("user")
                    .setContent("Hi, my name is Mira. I work at Ferrovia Labs as a backend engineer.").setTimestamp(t).build(),
                Message.newBuilder().setIndex(1).setRole("user")
                    .setContent("These days I write almost everything in Kotlin and I use IntelliJ.")
                    .setTimestamp(t.plusSeconds(40)).build()))
            .setCompletedAt(t.plusSeconds(60)).build();
    }

    private static List<Memory> mira(final MemoryState state) {
        return state.memories().getOrDefault("acme/mira", List.of());
    }

    private static List<Memory> awaitMemories(final Map<String, Object> client, final Predicate<List<Memory>> done) {
        Waits.until("every memory re-embedded", Duration.ofMinutes(2), () -> {
            final List<Memory> memories = new ArrayList<>();
            MemoryState.read(client, Duration.ofSeconds(30)).memories().values().forEach(memories::addAll);
            return memories;
        }, done);
        return mira(MemoryState.read(client, Duration.ofSeconds(30)));
    }

    /** Polls (bounded: 2 minutes) until the value satisfies the condition; fails naming the last value if it never does. */
    private static <T> T await(final Waits.Probe<T> value, final Predicate<T> done) {
        return Waits.until("the condition", Duration.ofMinutes(2), value, done);
    }

    private static JsonNode search(final RetrieverApp.Handle retriever) throws Exception {
        final HttpResponse<String> response = get(retriever);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("memories");
    }

    private static Map<String, Double> semantic(final JsonNode hits) {
        final Map<String, Double> out = new HashMap<>();
        hits.forEach(h -> out.put(h.get("memoryId").asText(), h.get("components").get("semantic").asDouble()));
        return out;
    }

    /**
     * @return memory id → semantic component of an in-process list of the memories (every one ranked), as the API's
     *     list computes it (with the kind prior, {@link HybridScorer#forList})
     */
    private static Map<String, Double> semantic(final HybridScorer scorer, final List<Memory> memories) {
        final Map<String, Double> out = new HashMap<>();
        final List<Memory> active = memories.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
        scorer.forList(n -> scorer.rank(RankRequest.of(QUERY, n).memories(active)), active.size())
            .forEach(h -> out.put(h.memory().getMemoryId(), h.semantic()));
        return out;
    }

    /** @return the reasons of the consolidator's dead letters, in order */
    private static List<String> deadLetters(final String bootstrap) {
        final List<String> reasons = new ArrayList<>();
        TopicScan.toEnd(TopicScan.client(bootstrap), Topic.deadLetters(AppIds.CONSOLIDATOR).name(), null,
            Duration.ofSeconds(30), r -> {
                final Header reason = r.headers().lastHeader(DeadLetters.HEADER_REASON);
                reasons.add(reason == null ? "" : new String(reason.value(), StandardCharsets.UTF_8));
            });
        return reasons;
    }

    /** @return the memory-updated events whose memory cites the conversation */
    private static List<MemoryUpdated> updatesCiting(final String bootstrap, final String conversationId) {
        final List<MemoryUpdated> events = new ArrayList<>();
        final var decoder = Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain());
        TopicScan.toEnd(TopicScan.client(bootstrap), Topic.MEMORY_UPDATED.name(), null, Duration.ofSeconds(30), r -> {
            final MemoryUpdated e = decoder.deserialize(Topic.MEMORY_UPDATED.name(), r.value());
            if (e.getMemory() != null && e.getCause().startsWith("candidate:")
                && e.getMemory().getSources().stream().anyMatch(src -> src.getConversationId().equals(conversationId))) {
                events.add(e);
            }
        });
        return events;
    }

    private static void awaitProcessed(final String bootstrap, final ExtractorApp extractor) {
        final Duration timeout = Duration.ofSeconds(120);
        OpsTestSupport.awaitExtracted(bootstrap, extractor::pendingConversations, timeout);
        OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()),
            timeout);
        OpsTestSupport.awaitNoLag(bootstrap, AppIds.RETRIEVER, Set.of(Topic.MEMORY_UPDATED.name()), timeout);
    }
}
