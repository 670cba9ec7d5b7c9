package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.config.EngramConfig;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.LlmMemoryExtractor;
import dev.engram.llm.LlmSettings;
import dev.engram.llm.StubChatServer;
import dev.engram.port.MemoryExtractor;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The extraction topology with a concurrent executor: per-user (and per-task) order when calls finish
 * out of order, back-pressure and recovery when the LLM is down (circuit breaker), and the memory-off join.
 */
class ExtractionConcurrencyTest {

    private static final Instant T0 = Instant.parse("2025-07-07T10:00:00Z");

    @TempDir
    Path stateDir;

    private final ExecutorService pool = Executors.newFixedThreadPool(16);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> input;
    private TestInputTopic<String, UserProfile> profiles;
    private TestOutputTopic<String, MemoryCandidate> candidates;
    private TestOutputTopic<String, byte[]> deadLetters;

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
        pool.shutdownNow();
    }

    private void start(final MemoryExtractor extractor, final int maxPending) {
        final EngramConfig config = EngramConfig.plain().with(Map.of(PipelineConfig.STATE_DIR, stateDir.toString()));
        driver = new TopologyTestDriver(ExtractionTopology.build(config, extractor, GatedExtractor.EMBEDDER, registry, pool, maxPending,
            UserPartitions.fixed(1)),
            ExtractionTopology.config(config));
        input = driver.createInputTopic(Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
        profiles = driver.createInputTopic(Topic.USER_PROFILES.name(), Serdes.String().serializer(),
            AvroSerdes.serde(UserProfile.class).serializer());
        candidates = driver.createOutputTopic(Topic.MEMORY_CANDIDATES.name(), Serdes.String().deserializer(),
            AvroSerdes.serde(MemoryCandidate.class).deserializer());
        deadLetters = driver.createOutputTopic(Topic.deadLetters(AppIds.EXTRACTOR).name(), Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    }

    private static ConversationCompleted conversation(final String user, final String id, final int offsetMs,
                                                      final String text) {
        final Instant at = T0.plusMillis(offsetMs);
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId(user).setConversationId(id)
            .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user").setContent(text).setTimestamp(at).build()))
            .setCompletedAt(at).build();
    }

    private void pipe(final ConversationCompleted c) {
        input.pipeInput(new TestRecord<>("t1/" + c.getUserId(),
            AvroSerdes.serde(ConversationCompleted.class).serializer().serialize("x", c), c.getCompletedAt()));
    }

    private List<MemoryCandidate> awaitCandidates(final int count) {
        final List<MemoryCandidate> out = new ArrayList<>();
        awaitTrue(() -> {
            driver.advanceWallClockTime(Duration.ofMillis(25));
            out.addAll(candidates.readValuesToList());
            return out.size() >= count;
        });
        return out;
    }

    private static void awaitTrue(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition before the deadline").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldEmitEachUsersCandidatesInInputOrderWhenCallsCompleteOutOfOrder_case11() {
        final GatedExtractor extractor = new GatedExtractor();
        start(extractor, 16);
        final List<String> ids = List.of("c1", "c2", "c3-fail", "c4", "c5", "c6");
        for (int i = 0; i < ids.size(); i++) {
            pipe(conversation(i % 2 == 0 ? "u-jon" : "u-ann", ids.get(i), i * 10, "Conversation " + ids.get(i)));
        }
        awaitTrue(() -> extractor.started.size() == ids.size());
        assertThat(candidates.isEmpty()).as("all six calls are in flight at once").isTrue();

        for (int i = ids.size() - 1; i >= 0; i--) {
            extractor.gate(ids.get(i)).countDown();
            driver.advanceWallClockTime(Duration.ofMillis(25));
            if (i > 0) {
                assertThat(candidates.isEmpty()).as("nothing passes the unfinished c1").isTrue();
            }
        }
        final List<MemoryCandidate> out = awaitCandidates(5);

        assertThat(out).extracting(MemoryCandidate::getConversationId).containsExactly("c1", "c2", "c4", "c5", "c6");
        assertThat(out).filteredOn(c -> c.getUserId().equals("u-jon")).extracting(MemoryCandidate::getConversationId)
            .containsExactly("c1", "c5");
        assertThat(deadLetters.readRecordsToList()).singleElement().satisfies(r ->
            assertThat(new String(r.headers().lastHeader(DeadLetters.HEADER_REASON).value()))
                .isEqualTo("scripted failure"));
    }

    @Test
    void shouldDeadLetterAnUnusableAnswerAndProcessTheNextConversationNormally_case06() throws Exception {
        try (StubChatServer server = StubChatServer.start(4)) {
            final StubChatServer.Reply emptyFence = StubChatServer.Reply.content("```json\n```");
            server.script(emptyFence, emptyFence, emptyFence);
            final LlmMemoryExtractor extractor = new LlmMemoryExtractor(new ChatCompletionsClient(
                LlmSettings.of(server.baseUrl(), "stub-model")
                    .withResilience(Duration.ofSeconds(15), 3, Duration.ofMillis(1), Duration.ofSeconds(1)),
                registry, "test"), registry, "test");
            start(extractor, 1);

            pipe(conversation("u-lee", "c-501", 0, "I prefer Python for scripting and I work from the Berlin office."));
            pipe(conversation("u-lee", "c-502", 10, "I prefer Python for scripting and I work from the Berlin office."));

            assertThat(awaitCandidates(1)).extracting(MemoryCandidate::getConversationId).containsExactly("c-502");
            assertThat(deadLetters.readRecordsToList()).singleElement().satisfies(r -> {
                assertThat(new String(r.headers().lastHeader(DeadLetters.HEADER_STAGE).value())).isEqualTo("extraction");
                assertThat(new String(r.headers().lastHeader(DeadLetters.HEADER_REASON).value()))
                    .startsWith("LLM answer unusable after 3 attempts: no complete JSON object");
            });
            assertThat(registry.counter("engram.llm.parse.failures", "application", "test").count()).isEqualTo(3);
        }
    }

    @Test
    void shouldMakeNoCallAndWriteNothingWhenTheUsersProfileSaysMemoryOff() {
        final GatedExtractor extractor = new GatedExtractor();
        start(extractor, 16);
        profiles.pipeInput("t1/u-off", UserProfile.newBuilder().setTenantId("t1").setUserId("u-off")
            .setFacts(Map.of()).setMemoryEnabled(false).build());
        extractor.gate("c2").countDown();

        pipe(conversation("u-off", "c1", 0, "I live in Oslo"));
        pipe(conversation("u-on", "c2", 10, "I live in Bergen"));

        assertThat(awaitCandidates(1)).extracting(MemoryCandidate::getConversationId).containsExactly("c2");
        assertThat(extractor.started).doesNotContainKey("c1");
        assertThat(registry.counter(ExtractionTopology.METER_MEMORY_OFF, "application", AppIds.EXTRACTOR).count())
            .isEqualTo(1);
    }

    @Test
    void shouldStopPullingAndResumeWithNothingLostWhenTheLlmIsDown() throws Exception {
        try (StubChatServer server = StubChatServer.start(8)) {
            final StubChatServer.Reply down = StubChatServer.Reply.error(503, null);
            for (int i = 0; i < 12; i++) {
                server.script(down);
            }
            final LlmSettings settings = LlmSettings.of(server.baseUrl(), "stub-model")
                .withResilience(Duration.ofSeconds(15), 3, Duration.ofMillis(1), Duration.ofMillis(200));
            final LlmMemoryExtractor extractor = new LlmMemoryExtractor(
                new ChatCompletionsClient(settings, registry, "test"), registry, "test");
            start(extractor, 4);

            for (int i = 0; i < 10; i++) {
                pipe(conversation(i % 2 == 0 ? "u-jon" : "u-ann", "c" + i, i, "Conversation number " + i + " about sailing"));
            }
            final List<MemoryCandidate> out = awaitCandidates(10);

            assertThat(out).extracting(MemoryCandidate::getConversationId)
                .containsExactly("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9");
            assertThat(deadLetters.isEmpty()).isTrue();
            // Every scripted failure was used once, then each conversation made exactly one successful call:
            // calls refused by the open breaker never reached the server.
            assertThat(server.requestCount()).isEqualTo(12 + 10);
            assertThat(out).allSatisfy(c -> assertThat(c.getExtractor()).isEqualTo("llm:stub-model:" + dev.engram.llm.LlmMemoryExtractor.PROMPT_VERSION));
        }
    }
}
