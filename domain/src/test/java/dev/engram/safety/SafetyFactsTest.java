package dev.engram.safety;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SafetyFactsTest {

    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    private static Memory fact(final String id, final FactCategory category, final String key, final double importance,
                               final MemoryStatus status) {
        return builder(id, category, key, importance, status).build();
    }

    private static Memory.Builder builder(final String id, final FactCategory category, final String key,
                                          final double importance, final MemoryStatus status) {
        return Memory.newBuilder().setMemoryId(id).setTenantId("t1").setUserId("u1").setType(MemoryType.SEMANTIC)
            .setCategory(category).setKey(key).setValue("v").setContent(key + " fact").setImportance(importance)
            .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setStatus(status).setCreatedAt(T0).setUpdatedAt(T0)
            .setLastAccessedAt(T0).setLastConfirmedAt(T0).setValidFrom(T0).setSources(List.of()).setEmbedding(List.of())
            .setEmbeddingModel("none");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Can I eat prawns?", "What should I cook tonight?", "Any restaurant tips in Lisbon?",
        "Which painkiller can I take for a headache?", "Help me plan a weekend trip to Porto", "Book me a hotel in Oslo",
        "我能吃虾吗？", "周末去哪里玩？", "Is the wine list good there?"})
    void shouldSeeFoodHealthTravelOrPlansWhenTheMessageIsAboutThem(final String message) {
        assertThat(SafetyFacts.concerns(message)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"What's my locker code?", "Which IDE do I use?", "Summarize our chat about Kotlin",
        "你叫什么名字？", "What did we say about the billing dashboard?"})
    void shouldSeeNoneOfThemWhenTheMessageIsAboutSomethingElse(final String message) {
        assertThat(SafetyFacts.concerns(message)).isFalse();
    }

    @Test
    void shouldPinActiveSafetyFactsByCategoryOrSlotMostImportantFirst() {
        final Memory allergy = fact("a", FactCategory.CONSTRAINT, "allergy:shellfish", 0.95, MemoryStatus.ACTIVE);
        final Memory medication = fact("b", FactCategory.PERSONAL, "medication:insulin", 0.5, MemoryStatus.ACTIVE);
        final Memory diet = fact("c", FactCategory.CONSTRAINT, "diet", 0.8, MemoryStatus.ACTIVE);
        final Memory archived = fact("d", FactCategory.CONSTRAINT, "allergy:cat", 0.95, MemoryStatus.ARCHIVED);
        final Memory city = fact("e", FactCategory.PERSONAL, "city", 0.9, MemoryStatus.ACTIVE);
        final Memory llm = fact("f", FactCategory.PERSONAL, "allergies", 0.4, MemoryStatus.ACTIVE);
        assertThat(SafetyFacts.DEFAULT.pinned(List.of(city, medication, archived, diet, allergy, llm)))
            .as("an LLM's spelling of a safety slot counts too").extracting(Memory::getMemoryId)
            .containsExactly("a", "c", "b", "f");
    }

    @Test
    void shouldTakeATenantsOwnCategoryAsSafetyWhenItIsNamed() {
        final Memory role = fact("r", FactCategory.ROLE, "employer", 0.7, MemoryStatus.ACTIVE);
        assertThat(SafetyFacts.DEFAULT.isSafety(role)).isFalse();
        assertThat(new SafetyFacts(Set.of("CONSTRAINT", "ROLE")).isSafety(role)).isTrue();
        final Memory dose = builder("m", null, "dose:amlodipine", 0.6, MemoryStatus.ACTIVE)
            .setCustomCategory("medications").build();
        assertThat(SafetyFacts.DEFAULT.isSafety(dose)).isFalse();
        assertThat(new SafetyFacts(Set.of("CONSTRAINT", "medications")).isSafety(dose)).isTrue();
    }
}
