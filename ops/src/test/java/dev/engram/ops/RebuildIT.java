package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryCandidate;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.extractor.ExtractorApp;
import dev.engram.stack.EmbeddedBroker;
import dev.engram.stack.Ingest;
import dev.engram.stack.ProjectPaths;
import dev.engram.stack.TopicScan;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code bin/engram rebuild} of the consolidator on the sample conversations (real extractor, real embedding model,
 * in-process broker): from {@code memory-candidates} alone (an observation's vector is derived from its
 * statements', so nothing is embedded again); with {@code --re-extract} the extractor embeds every
 * conversation's texts again in the same groups ({@code Embedder#embedGroup}), so the new candidates carry the very
 * vectors of the first run; both end with verify finding no difference.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebuildIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static Path dir;
    private static EmbeddedBroker broker;
    private static EngramConfig config;

    @BeforeAll
    static void ingestTheSampleAndStop() throws Exception {
        dir = Files.createTempDirectory("engram-rebuild-it");
        broker = EmbeddedBroker.start(dir);
        config = EngramConfig.plain().with(Map.of(CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
            PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
            PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            TopicSetup.createAll(admin, 2);
        }
        try (ExtractorApp extractor = ExtractorApp.start(config); ConsolidatorApp consolidator = ConsolidatorApp.start(config)) {
            try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of())) {
                ingest.publish(ProjectPaths.sample().orElseThrow(), n -> { });
            }
            OpsTestSupport.awaitExtracted(broker.bootstrapServers(), extractor::pendingConversations, TIMEOUT);
            OpsTestSupport.awaitConsolidated(broker.bootstrapServers(), Set.of(Topic.MEMORY_CANDIDATES.name()), TIMEOUT);
            assertThat(PendingObservations.awaitNone(TopicScan.client(broker.bootstrapServers()), TIMEOUT)).isTrue();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
        ProjectPaths.deleteRecursively(dir);
    }

    @Test
    @Order(1)
    void shouldRebuildTheConsolidatorWithoutEmbeddingAnObservationWhenCandidatesAreReplayed() {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final Rebuild.Report report = new Rebuild(config, Rebuild.App.CONSOLIDATOR, null, false, true,
            dir.resolve("rebuild"), TIMEOUT, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(report.differences()).as(printed.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(report.before().totalMemories()).isPositive();
        assertThat(report.observationTextsEmbedded()).as("an observation's vector is its statements' centroid: "
            + "the rebuilt consolidator embeds nothing").isZero();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("verify: no differences", "vectors reused",
            "wall time by phase");
        assertThat(report.phaseSeconds()).containsOnlyKeys("snapshotBefore", "reset", "observationVectors",
            "consolidator.start", "consolidator.catchUp", "consolidator.regroup", "snapshotAfter");
        assertThat(report.phaseSeconds().values().stream().mapToDouble(Double::doubleValue).sum())
            .as("the phases are where the wall time went").isBetween(0.0, report.seconds());
    }

    @Test
    @Order(2)
    void shouldRebuildTheRetrieverAtOnceAndVerifyBothWhenWithRetriever() {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final Rebuild.Report report = new Rebuild(config, Rebuild.App.CONSOLIDATOR, null, false, true, true,
            dir.resolve("rebuild-with-retriever"), TIMEOUT, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        final String log = printed.toString(StandardCharsets.UTF_8);
        assertThat(report.differences()).as(log).isEmpty();
        assertThat(report.processed()).as("both apps re-processed their input")
            .containsOnlyKeys(Rebuild.App.CONSOLIDATOR, Rebuild.App.RETRIEVER);
        assertThat(report.processed().get(Rebuild.App.RETRIEVER)).as("the retriever read the rewritten memory-updated too")
            .isGreaterThan(report.before().events());
        assertThat(report.phaseSeconds()).containsKeys("consolidator.catchUp", "consolidator.regroup", "retriever.start",
            "retriever.catchUp");
        assertThat(dir.resolve("rebuild-with-retriever").resolve("after-retriever.json")).as("the read model's snapshot")
            .isRegularFile();
    }

    @Test
    @Order(3)
    void shouldGiveTheCandidatesTheirFirstVectorsAndVerifyEqualWhenReExtracting() {
        final Map<String, List<List<Float>>> first = allVectors();
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final Rebuild.Report report = new Rebuild(config, Rebuild.App.CONSOLIDATOR, null, true, true,
            dir.resolve("rebuild-re-extract"), TIMEOUT, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(report.differences()).as(printed.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(report.processed()).containsKey(Rebuild.App.EXTRACTOR);
        final Map<String, List<List<Float>>> all = allVectors();
        assertThat(all.values().stream().mapToInt(List::size).sum()).as("the re-extraction wrote every candidate again")
            .isEqualTo(2 * first.values().stream().mapToInt(List::size).sum());
        all.forEach((id, v) -> assertThat(v).as(id).allSatisfy(x -> assertThat(x).isEqualTo(v.get(0))));
    }

    /** candidate id → the vectors of its writes, in offset order. */
    private static Map<String, List<List<Float>>> allVectors() {
        final Deserializer<MemoryCandidate> decoder = Topic.MEMORY_CANDIDATES.valueDeserializer(config);
        final Map<String, List<List<Float>>> out = new HashMap<>();
        assertThat(TopicScan.toEnd(TopicScan.client(broker.bootstrapServers()), Topic.MEMORY_CANDIDATES.name(), null,
            TIMEOUT, record -> {
                final MemoryCandidate c = decoder.deserialize(record.topic(), record.headers(), record.value());
                out.computeIfAbsent(c.getCandidateId(), k -> new ArrayList<>()).add(c.getEmbedding());
            })).isTrue();
        assertThat(out).isNotEmpty();
        return out;
    }
}
