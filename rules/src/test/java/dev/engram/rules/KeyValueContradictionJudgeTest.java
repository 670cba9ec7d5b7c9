package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.port.ContradictionJudge.Verdict;
import org.junit.jupiter.api.Test;

class KeyValueContradictionJudgeTest {

    private static final Instant T = Instant.parse("2025-03-01T19:00:00Z");
    private final KeyValueContradictionJudge judge = new KeyValueContradictionJudge();

    private static Memory memory(final String key, final String value, final String content) {
        return memory(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC, key, value, content);
    }

    private static Memory memory(final MemoryType type, final String key, final String value, final String content) {
        return Memory.newBuilder().setMemoryId("m1").setTenantId("t1").setUserId("u1")
            .setType(type).setKey(key).setValue(value)
            .setContent(content).setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setCreatedAt(T).setUpdatedAt(T).setLastAccessedAt(T)
            .setLastConfirmedAt(T).setValidFrom(T).setSources(List.of()).setEmbedding(List.of(1f))
            .setEmbeddingModel("m").build();
    }

    private static MemoryCandidate candidate(final String key, final String value, final String content,
                                             final boolean negated) {
        return MemoryCandidate.newBuilder().setCandidateId("c1").setTenantId("t1").setUserId("u1")
            .setConversationId("c").setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setKey(key).setValue(value).setContent(content).setNegated(negated).setImportance(0.7)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(T).setEmbedding(List.of(1f)).setEmbeddingModel("m").setExtractor("test").build();
    }

    @Test
    void shouldSayContradictsWhenSameKeyHasDifferentValue() {
        assertThat(judge.judge(memory("city", "Lyon", "Lives in Lyon"),
            candidate("city", "Nantes", "Moved to Nantes", false), 0.8)).isEqualTo(Verdict.CONTRADICTS);
    }

    @Test
    void shouldSayContradictsWhenSameKeyAndValueButNumbersDiffer() {
        assertThat(judge.judge(memory("employer", "Ferrovia Labs", "Has worked at Ferrovia Labs for 3 years"),
            candidate("employer", "Ferrovia Labs", "Has worked at Ferrovia Labs for 4 years", false), 0.95))
            .isEqualTo(Verdict.CONTRADICTS);
    }

    @Test
    void shouldSaySameWhenSameKeyAndNormalizedValue() {
        assertThat(judge.judge(memory("ide", "IntelliJ", "Uses IntelliJ"),
            candidate("ide", "intellij", "IntelliJ for everything", false), 0.8)).isEqualTo(Verdict.SAME);
    }

    @Test
    void shouldSayContradictsWhenCandidateNegatesSameKeyAndValue() {
        assertThat(judge.judge(memory("uses:jira", "Jira", "Uses Jira"),
            candidate("uses:jira", "Jira", "I no longer use Jira", true), 0.8)).isEqualTo(Verdict.CONTRADICTS);
        assertThat(judge.judge(memory("city", "Nantes", "Lives in Nantes"),
            candidate("city", "Lyon", "I no longer live in Lyon", true), 0.8)).isEqualTo(Verdict.COMPATIBLE);
    }

    @Test
    void shouldSayCompatibleWhenKeysDiffer() {
        assertThat(judge.judge(memory("preferred_language", "Kotlin", "Writes Kotlin"),
            candidate("ide", "IntelliJ", "Writes Kotlin in IntelliJ", false), 0.85)).isEqualTo(Verdict.COMPATIBLE);
    }

    @Test
    void shouldSayContradictsWhenPolarityOfUnkeyedStatementsDiffers() {
        assertThat(judge.judge(memory(MemoryType.SEMANTIC, null, null, "Sushi is my all-time favourite food."),
            candidate(null, null, "I've totally gone off sushi, can't stand it anymore.", false), 0.75))
            .isEqualTo(Verdict.CONTRADICTS);
        assertThat(judge.judge(memory(null, null, "Went hiking in the Alps."),
            candidate(null, null, "Went hiking in the Pyrenees.", false), 0.8)).isEqualTo(Verdict.COMPATIBLE);
    }

    @Test
    void shouldSayContradictsWhenNegatedFactNamesValueOfUnkeyedMemory() {
        assertThat(judge.judge(memory(null, null, "Tracks every task in Jira."),
            candidate("uses:jira", "Jira", "Stopped tracking in it", true), 0.75)).isEqualTo(Verdict.CONTRADICTS);
    }

    @Test
    void shouldSayCompatibleWhenTwoEpisodesDifferOnlyInPolarity() {
        assertThat(judge.judge(memory(null, null, "I painted a sunrise by the lake last weekend."),
            candidate(null, null, "I didn't paint anything last weekend, too busy with the kids.", false), 0.75))
            .isEqualTo(Verdict.COMPATIBLE);
    }
}
