package dev.engram.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.rules.KeyValueContradictionJudge;
import dev.engram.port.ContradictionJudge.Verdict;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The LLM judge against {@link StubChatServer}: verdicts, a hallucinated id, keyed pairs and failures. */
class LlmContradictionJudgeTest {

    private static final Instant T = Instant.parse("2025-03-01T10:00:00Z");

    private StubChatServer server;
    private SimpleMeterRegistry registry;
    private LlmContradictionJudge judge;

    @BeforeEach
    void start() throws Exception {
        server = StubChatServer.start(4);
        registry = new SimpleMeterRegistry();
        judge = new LlmContradictionJudge(new ChatCompletionsClient(LlmSettings.of(server.baseUrl(), "m")
            .withResilience(Duration.ofSeconds(15), 1, Duration.ofMillis(1), Duration.ofSeconds(1)), registry, "test"),
            new KeyValueContradictionJudge(), registry, "test");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static Memory memory(final String key, final String value, final String content) {
        return Memory.newBuilder().setMemoryId("m-1").setTenantId("t1").setUserId("u1")
            .setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC).setKey(key).setValue(value)
            .setContent(content).setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setCreatedAt(T).setUpdatedAt(T).setLastAccessedAt(T)
            .setLastConfirmedAt(T).setValidFrom(T).setSources(List.of()).setEmbedding(List.of(1f))
            .setEmbeddingModel("m").build();
    }

    private static MemoryCandidate candidate(final String key, final String value, final String content) {
        return MemoryCandidate.newBuilder().setCandidateId("c1").setTenantId("t1").setUserId("u1")
            .setConversationId("c").setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setKey(key).setValue(value).setContent(content).setImportance(0.7)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(T).setEmbedding(List.of(1f)).setEmbeddingModel("m").setExtractor("test").build();
    }

    @Test
    void shouldReturnTheModelsVerdictWhenThePairSharesNoKey() {
        server.script(StubChatServer.Reply.content("```json\n{\"verdict\":\"CONTRADICTS\",\"memoryId\":\"m-1\"}\n```"));

        assertThat(judge.judge(memory(null, null, "Is training for a marathon in April"),
            candidate(null, null, "Gave up on running this year"), 0.8)).isEqualTo(Verdict.CONTRADICTS);
        assertThat(server.requests().get(0).path("messages").path(1).path("content").asText()).contains("id m-1");
    }

    @Test
    void shouldIgnoreAndCountAHallucinatedMemoryIdWhenTheAnswerNamesAnotherMemory() {
        server.script(StubChatServer.Reply.content("{\"verdict\":\"CONTRADICTS\",\"memoryId\":\"m-404\"}"));

        final Memory existing = memory(null, null, "Likes jazz");
        final MemoryCandidate candidate = candidate(null, null, "Enjoys jazz concerts");

        assertThat(judge.judge(existing, candidate, 0.8))
            .isEqualTo(new KeyValueContradictionJudge().judge(existing, candidate, 0.8)).isNotEqualTo(Verdict.CONTRADICTS);
        assertThat(registry.counter("engram.llm.judge.hallucinated", "application", "test").count()).isEqualTo(1);
    }

    @Test
    void shouldLeaveKeyedPairsToTheKeyValueJudgeWithoutACall() {
        assertThat(judge.judge(memory("city", "Lyon", "Lives in Lyon"), candidate("city", "Nantes", "Moved to Nantes"),
            0.8)).isEqualTo(Verdict.CONTRADICTS);
        assertThat(server.requestCount()).isZero();
    }

    @Test
    void shouldFallBackWhenTheServerFails() {
        server.script(StubChatServer.Reply.error(500, null));

        assertThat(judge.judge(memory(null, null, "Likes jazz"), candidate(null, null, "Enjoys jazz concerts"), 0.8))
            .isEqualTo(Verdict.COMPATIBLE);
    }
}
