package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.LlmContradictionJudge;
import dev.engram.llm.LlmMemoryExtractor;
import dev.engram.llm.LlmSettings;
import dev.engram.llm.StubChatServer;
import dev.engram.port.ContradictionJudge;
import dev.engram.port.ExtractedMemory;
import dev.engram.stack.ConversationSources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LoCoMoReplay} behind {@link StubChatServer}, asked by the real {@link LlmMemoryExtractor} and
 * {@link LlmContradictionJudge} over HTTP, on an invented conversation in LoCoMo's format
 * ({@code bench/replay-mini.json}).
 */
class LoCoMoReplayTest {

    private StubChatServer server;
    private LoCoMoReplay replay;
    private SimpleMeterRegistry registry;
    private List<ConversationCompleted> conversations;

    static Path fixture() throws URISyntaxException {
        return Path.of(LoCoMoReplayTest.class.getResource("/bench/replay-mini.json").toURI());
    }

    @BeforeEach
    void start() throws Exception {
        replay = LoCoMoReplay.load(fixture());
        server = StubChatServer.start(4).responder(replay);
        registry = new SimpleMeterRegistry();
        conversations = ConversationSources.readAll(fixture()).getKey();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private LlmMemoryExtractor extractor(final int contextTokens) {
        return new LlmMemoryExtractor(new ChatCompletionsClient(LlmSettings.of(server.baseUrl(), "locomo-replay")
            .withContextTokens(contextTokens), registry, "test"), registry, "test");
    }

    private ConversationCompleted conversation(final String session, final String speaker) {
        return conversations.stream().filter(c -> c.getConversationId().equals("mini-1:" + session)
            && c.getUserId().equals("mini-1:" + speaker)).findFirst().orElseThrow();
    }

    @Test
    void shouldAnswerTheExtractorWithTheSpeakersRecordedFactsAndTheSessionSummaryWhenReplaying() {
        final List<ExtractedMemory> memories = extractor(6000).extract(conversation("session_1", "Mira"), null);

        assertThat(memories).extracting(ExtractedMemory::content).containsExactly(
            "Mira lives in Berlin.", "Mira adopted a beagle puppy named Biscuit.",
            "Mira adopted a beagle puppy called Biscuit.", "Biscuit is Mira's first dog.",
            "Mira told Tom that she lives in Berlin and adopted a beagle puppy named Biscuit, her first dog. "
                + "Tom said he is learning the violin.");
        // dia_id D1:n is message n-1 of the session
        assertThat(memories).extracting(ExtractedMemory::sourceMessageIndexes)
            .containsExactly(List.of(0), List.of(0), List.of(2), List.of(4), List.of(0, 1, 2, 3, 4));
        assertThat(memories.get(0)).extracting(ExtractedMemory::type, ExtractedMemory::key, ExtractedMemory::value)
            .containsExactly(MemoryType.SEMANTIC, "city", "Berlin");
        assertThat(memories.get(1).type()).isEqualTo(MemoryType.EPISODIC);
        assertThat(memories.get(1).key()).isNull();
        assertThat(memories.get(4).displayName()).isEqualTo("Conversation summary");
        assertThat(memories).allSatisfy(m -> assertThat(m.source()).isIn(MemorySource.EXPLICIT, MemorySource.INFERRED));
        // the partner's facts are not the user's
        assertThat(extractor(6000).extract(conversation("session_1", "Tom"), null))
            .extracting(ExtractedMemory::content).first().isEqualTo("Tom has been learning the violin and finds it hard.");
    }

    @Test
    void shouldGiveEachFactOnceInTheChunkOfItsSourceTurnWhenTheConversationIsChunked() {
        // 40 tokens of context: two turns of session 1 per request at most
        final List<ExtractedMemory> memories = extractor(40).extract(conversation("session_1", "Mira"), null);

        assertThat(replay.stats().get("extraction").calls()).isGreaterThan(1);
        assertThat(memories).extracting(ExtractedMemory::content).filteredOn(c -> !c.startsWith("Mira told"))
            .containsExactly("Mira lives in Berlin.", "Mira adopted a beagle puppy named Biscuit.",
                "Mira adopted a beagle puppy called Biscuit.", "Biscuit is Mira's first dog.");
        assertThat(memories).filteredOn(m -> m.content().startsWith("Mira told")).hasSize(1);
    }

    @Test
    void shouldCountUsageFromTheRequestAndTheAnswerWhenAnswering() {
        extractor(6000).extract(conversation("session_2", "Mira"), null);

        final LoCoMoReplay.Tally tally = replay.stats().get("extraction");
        final var request = server.requests().get(0);
        assertThat(tally.calls()).isEqualTo(1);
        assertThat(tally.promptTokens()).isEqualTo(PromptTokens.of(request))
            .isGreaterThan(request.path("messages").path(1).path("content").asText().length() / 4);
        assertThat(tally.completionTokens()).isPositive();
        assertThat(registry.counter("engram.llm.tokens", "application", "test", "kind", "prompt").count())
            .isEqualTo(tally.promptTokens());
        assertThat(registry.counter("engram.llm.tokens", "application", "test", "kind", "completion").count())
            .isEqualTo(tally.completionTokens());
    }

    @Test
    void shouldAnswerTheJudgeDeterministicallyWhenAskedAboutPairs() {
        final ContradictionJudge judge = new LlmContradictionJudge(new ChatCompletionsClient(
            LlmSettings.of(server.baseUrl(), "locomo-replay"), registry, "test"), new KeyValueContradictionJudge(),
            registry, "test");
        final Memory adopted = memory("m-1", "Mira adopted a beagle puppy named Biscuit.");

        assertThat(judge.judge(adopted, candidate("Mira has a beagle puppy named Biscuit."), 0.8))
            .isEqualTo(ContradictionJudge.Verdict.SAME);
        assertThat(judge.judge(adopted, candidate("Mira walks in the park every morning."), 0.75))
            .isEqualTo(ContradictionJudge.Verdict.COMPATIBLE);
        assertThat(judge.judge(memory("m-2", "Mira lives in Berlin with her dog."),
            candidate("Mira moved to Lisbon for a new job."), 0.75)).isEqualTo(ContradictionJudge.Verdict.CONTRADICTS);
        // A restatement with more detail is the same fact; the same words with another number are not.
        assertThat(judge.judge(memory("m-3", "Mira enjoys hiking with her dogs."),
            candidate("Mira enjoys hiking in the hills with her dogs, her calm companions on weekends."), 0.8))
            .isEqualTo(ContradictionJudge.Verdict.SAME);
        assertThat(judge.judge(memory("m-4", "Mira booked room 12 for the workshop."),
            candidate("Mira booked room 21 for the workshop."), 0.85)).isEqualTo(ContradictionJudge.Verdict.COMPATIBLE);
        assertThat(replay.stats().get("judge").calls()).isEqualTo(5);
        assertThat(server.requests()).allSatisfy(r -> assertThat(r.path("messages").path(1).path("content").asText())
            .startsWith("EXISTING (id m-"));
    }

    @Test
    void shouldAnswer400WhenARequestMatchesNoRecording() throws Exception {
        final LlmSettings settings = LlmSettings.of(server.baseUrl(), "locomo-replay");
        final ChatCompletionsClient client = new ChatCompletionsClient(settings, registry, "test");

        assertThatThrownBy(() -> client.complete(List.of(
                new ChatCompletionsClient.Message("system", "Answer with {\"memories\": []} as JSON."),
                new ChatCompletionsClient.Message("user", "Conversation:\n[0] user: Nothing LoCoMo ever recorded.\n")),
            "engram_memories", null)).hasMessageContaining("HTTP 400");
        assertThat(replay.unmatched()).isEqualTo(1);
    }

    private static Memory memory(final String id, final String content) {
        final Instant at = Instant.parse("2023-05-01T13:00:00Z");
        return Memory.newBuilder().setMemoryId(id).setTenantId("locomo").setUserId("mini-1:Mira")
            .setType(MemoryType.SEMANTIC).setCategory(null).setKey(null).setValue(null).setDisplayName(null)
            .setContent(content).setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at).setUpdatedAt(at)
            .setLastAccessedAt(at).setLastConfirmedAt(at).setAccessCount(0).setReinforcementCount(1)
            .setExpiresAt(null).setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of()).setEmbedding(List.of(1f)).setEmbeddingModel("test").build();
    }

    private static MemoryCandidate candidate(final String content) {
        final Instant at = Instant.parse("2023-06-20T18:30:00Z");
        return MemoryCandidate.newBuilder().setCandidateId("c-1").setTenantId("locomo").setUserId("mini-1:Mira")
            .setConversationId("mini-1:session_2").setType(MemoryType.SEMANTIC).setCategory(null).setKey(null)
            .setValue(null).setDisplayName(null).setContent(content).setNegated(false).setImportance(0.7)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(1)).setEventTime(at)
            .setExtractor("llm:locomo-replay:extract-v1").setEmbedding(List.of(1f))
            .setEmbeddingModel("test").build();
    }
}
