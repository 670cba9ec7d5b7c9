package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.engram.avro.FactCategory;
import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a DELETED marker keeps ({@link DeletedStatements#marker}) and which statements its digests recognise. */
class DeletedStatementsTest {

    private static final Instant T0 = Instant.parse("2024-03-04T09:00:00Z");
    private static final Instant DELETED_AT = T0.plus(Duration.ofDays(6));

    @BeforeAll
    static void trust() {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private static Memory memory(final String user, final String key, final String value, final String content) {
        return Memory.newBuilder().setMemoryId("m-" + user).setTenantId("t1").setUserId(user)
            .setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setCategory(key == null ? null : FactCategory.PREFERENCE).setKey(key).setValue(value).setDisplayName(null)
            .setContent(content).setImportance(0.7).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(T0).setUpdatedAt(T0).setLastAccessedAt(T0)
            .setLastConfirmedAt(T0).setAccessCount(3).setReinforcementCount(2).setExpiresAt(null).setValidFrom(T0)
            .setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(SourceRef.newBuilder().setConversationId("c1").setMessageIndexes(List.of(0))
                .setObservedAt(T0).build()))
            .setEmbedding(List.of(0.1f, 0.2f)).setEmbeddingModel("m").build();
    }

    @Test
    void shouldKeepOnlyTheIdTheTimesAndTheDigestsWhenAMemoryIsDeleted() {
        final Memory steak = memory("u1", "preference:steak", "steak", "Likes steak");

        final Memory marker = DeletedStatements.marker(steak, DELETED_AT);

        assertThat(marker.getMemoryId()).isEqualTo(steak.getMemoryId());
        assertThat(marker.getStatus()).isEqualTo(MemoryStatus.DELETED);
        assertThat(marker.getValidTo()).isEqualTo(DELETED_AT);
        assertThat(marker.getContent()).isEmpty();
        assertThat(marker.getKey()).isNull();
        assertThat(marker.getValue()).isNull();
        assertThat(marker.getCategory()).isNull();
        assertThat(marker.getSources()).isEmpty();
        assertThat(marker.getEmbedding()).isEmpty();
        assertThat(marker.getAccessCount()).isZero();
        assertThat(marker.getReinforcementCount()).isEqualTo(1);
        assertThat(marker.getLastConfirmedAt()).isEqualTo(DELETED_AT);
        assertThat(marker.getDeletedDigests()).as("the statement's and the key's").hasSize(2)
            .allSatisfy(d -> assertThat(d).matches("[0-9a-f]{32}"));
        assertThat(marker.toString()).doesNotContainIgnoringCase("steak");
    }

    @Test
    void shouldGiveTheSameStatementOfTwoUsersUnrelatedDigests() {
        assertThat(DeletedStatements.digests(memory("u1", "preference:steak", "steak", "Likes steak")))
            .doesNotContainAnyElementsOf(DeletedStatements.digests(memory("u2", "preference:steak", "steak", "Likes steak")));
    }

    @Test
    void shouldDigestAFactByKeyAndFoldedValueAndAnEpisodeByNormalizedContent() {
        final List<String> city = DeletedStatements.digests(memory("u1", "city", "São Paulo", "Lives in São Paulo"));
        assertThat(DeletedStatements.digests(memory("u1", "city", "SAO PAULO", "Lives in Sao Paulo, Brazil")))
            .as("the value folded, the content aside").isEqualTo(city);
        final List<String> lisbon = DeletedStatements.digests(memory("u1", "city", "Lisbon", "Lives in Lisbon"));
        assertThat(lisbon.get(0)).as("another value is another statement").isNotIn(city);
        assertThat(lisbon.get(1)).as("of the same key").isEqualTo(city.get(1));
        assertThat(DeletedStatements.digests(memory("u1", null, null, "We went hiking in Zion last weekend.")))
            .isEqualTo(DeletedStatements.digests(memory("u1", null, null, "we went  hiking in Zion last weekend!")));
    }

    @Test
    void shouldKeepADigestOfEveryValueACorrectedFactHeld() {
        final Memory corrected = Memory.newBuilder(memory("u1", "city", "Vienna", "Lives in Vienna"))
            .setFormerValues(List.of(FormerValue.newBuilder().setValue("Graz").setContent("Lives in Graz")
                .setCorrectedAt(T0.plus(Duration.ofDays(2))).build())).build();

        assertThat(DeletedStatements.digests(corrected)).as("Vienna, Graz, the key").hasSize(3)
            .containsAll(DeletedStatements.digests(memory("u1", "city", "Graz", "Lives in Graz")));
    }
}
