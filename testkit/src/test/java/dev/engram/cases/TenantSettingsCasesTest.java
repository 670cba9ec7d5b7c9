package dev.engram.cases;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.CustomCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.ProfileFact;
import dev.engram.avro.TenantSettings;
import dev.engram.testing.PipelineHarness;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Tenants shape their memory through tenant-settings, on the whole offline pipeline (the real rule-based extractor, the
 * real embedding model, consolidation, the read model): their own categories, built-in categories turned off, TTLs,
 * and a replay that uses the settings in force at each conversation's time.
 */
class TenantSettingsCasesTest {

    private static final Instant FROM_THE_START = Instant.EPOCH;
    private static final String AMLODIPINE = "I take 5 mg of amlodipine daily.";

    static TenantSettings.Builder settings(final String tenant, final Instant version, final CustomCategory... categories) {
        return TenantSettings.newBuilder().setTenantId(tenant).setVersion(version).setCategories(List.of(categories))
            .setInstructions(null).setDisabledCategories(List.of()).setRetentionDays(null).setDailyTokenBudget(null)
            .setUpdatedBy("test").setUpdatedAt(version);
    }

    static CustomCategory medications(final Integer ttlDays) {
        return CustomCategory.newBuilder().setName("medications").setDescription("Medicines the user takes, with doses")
            .setKeywords(List.of("take", "mg", "amlodipine", "metformin")).setTtlDays(ttlDays).build();
    }

    static CustomCategory sizes() {
        return CustomCategory.newBuilder().setName("sizes").setDescription("Clothing and shoe sizes")
            .setKeywords(List.of("size", "fit")).setTtlDays(null).build();
    }

    @Test
    void shouldRememberAMedicationAsAMedicationsFactForTheHealthTenantOnly() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(settings("health", FROM_THE_START, medications(null)).build());
            pipeline.settings(settings("shop", FROM_THE_START, sizes()).build());

            pipeline.publish(conversation("health", "u1", "c-1", user(AMLODIPINE, "2025-03-01T08:00:00Z")));
            pipeline.publish(conversation("shop", "u1", "c-1", user(AMLODIPINE, "2025-03-01T08:00:00Z")));

            final List<Memory> health = pipeline.retriever().active("health/u1");
            // amlodipine is a drug the built-in rules know (its -dipine ending, session 15), so the tenant's fact takes
            // the built-in item key, as lisinopril's does below; the tenant's category and the sentence are its own
            assertThat(health).filteredOn(m -> "medications".equals(m.getCustomCategory())).singleElement()
                .satisfies(m -> {
                    assertThat(m.getKey()).isEqualTo("medication:amlodipine");
                    assertThat(m.getValue()).isEqualTo("I take 5 mg of amlodipine daily");
                    assertThat(m.getCategory()).isNull();
                });
            final ProfileFact fact = pipeline.retriever().profile("health/u1").getFacts().get("medication:amlodipine");
            assertThat(fact.getCustomCategory()).isEqualTo("medications");
            final List<Memory> shop = pipeline.retriever().active("shop/u1");
            // the shop has no medications category: the built-in medication fact (a dose names one), no tenant's slot
            assertThat(shop).isNotEmpty().allMatch(m -> m.getCustomCategory() == null)
                .noneMatch(m -> m.getKey() != null && m.getKey().startsWith("medications:"));
        }
    }

    @Test
    void shouldRestateTheSameMedicationSlotWithANewDose() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(settings("health", FROM_THE_START, medications(null)).build());

            pipeline.publish(conversation("health", "u1", "c-1", user(AMLODIPINE, "2025-03-01T08:00:00Z")));
            pipeline.publish(conversation("health", "u1", "c-2",
                user("My doctor changed it: I take 10 mg of amlodipine now.", "2025-04-01T08:00:00Z")));

            assertThat(pipeline.retriever().active("health/u1"))
                .filteredOn(m -> "medication:amlodipine".equals(m.getKey())).singleElement()
                .satisfies(m -> assertThat(m.getValue()).contains("10 mg"));
        }
    }

    /**
     * A fresh user's trial: keyed by the keyword "take", a second medication and "I take the bus to work" restated the
     * first medication's slot and superseded it, and a dose stated after the bare medication made a second fact for
     * one drug. Each medication is its own slot, the built-in one ({@code medication:<drug>}).
     */
    @Test
    void shouldKeepOneSlotPerMedicationWhenTheKeywordsAreAVerbAndAUnit() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(settings("health", FROM_THE_START, medications(null)).build());

            pipeline.publish(conversation("health", "u1", "c-1", user("I take lisinopril.", "2025-03-01T08:00:00Z")));
            pipeline.publish(conversation("health", "u1", "c-2", user("I take 20 mg of lisinopril.", "2025-03-02T08:00:00Z")));
            pipeline.publish(conversation("health", "u1", "c-3", user("I take 10 mg of atorvastatin.", "2025-03-03T08:00:00Z")));
            pipeline.publish(conversation("health", "u1", "c-4", user("I take the bus to work.", "2025-03-04T08:00:00Z")));
            pipeline.publish(conversation("health", "u1", "c-5",
                user("Now I take 40 mg of lisinopril.", "2025-03-05T08:00:00Z")));

            final List<Memory> active = pipeline.retriever().active("health/u1");
            assertThat(active).filteredOn(m -> "medication:lisinopril".equals(m.getKey())).singleElement()
                .satisfies(m -> {
                    assertThat(m.getValue()).isEqualTo("Now I take 40 mg of lisinopril");
                    assertThat(m.getCustomCategory()).isEqualTo("medications");
                });
            assertThat(active).filteredOn(m -> m.getKey() != null && m.getValue().contains("lisinopril")).hasSize(1);
            assertThat(active).filteredOn(m -> "medication:atorvastatin".equals(m.getKey())).singleElement()
                .satisfies(m -> assertThat(m.getValue()).isEqualTo("I take 10 mg of atorvastatin"));
            assertThat(pipeline.retriever().profile("health/u1").getFacts())
                .containsKeys("medication:lisinopril", "medication:atorvastatin");
        }
    }

    @Test
    void shouldNotRememberFactsOfABuiltInCategoryTheTenantTurnedOff() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(settings("quiet", FROM_THE_START).setDisabledCategories(List.of("PERSONAL")).build());

            pipeline.publish(conversation("quiet", "u1", "c-1", user("I live in Braga.", "2025-03-01T08:00:00Z")));
            pipeline.publish(conversation("t1", "u1", "c-1", user("I live in Braga.", "2025-03-01T08:00:00Z")));

            assertThat(pipeline.retriever().active("quiet/u1")).noneMatch(m -> "city".equals(m.getKey()));
            assertThat(pipeline.retriever().active("t1/u1")).anyMatch(m -> "city".equals(m.getKey()));
        }
    }

    @Test
    void shouldExpireACustomCategoryFactAtTheEndOfItsTtl() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(settings("health", FROM_THE_START, medications(30)).build());

            pipeline.publish(conversation("health", "u1", "c-1", user(AMLODIPINE, "2025-03-01T08:00:00Z")));
            pipeline.advanceTo(Instant.parse("2025-03-20T08:00:00Z"));
            assertThat(pipeline.retriever().active("health/u1")).anyMatch(m -> "medications".equals(m.getCustomCategory()));

            pipeline.advanceTo(Instant.parse("2025-04-02T08:00:00Z"));

            assertThat(pipeline.retriever().memories("health/u1"))
                .filteredOn(m -> "medications".equals(m.getCustomCategory())).singleElement()
                .satisfies(m -> {
                    assertThat(m.getTtlDays()).isEqualTo(30);
                    assertThat(m.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
                    assertThat(m.getArchiveReason()).isEqualTo(ArchiveReason.EXPIRED);
                });
        }
    }

    @Test
    void shouldReplayWithTheSettingsInForceAtEachConversationsTimeWhenTheyChangedMidStream() {
        final Instant v1 = Instant.parse("2025-01-01T00:00:00Z");
        final Instant v2 = Instant.parse("2025-03-15T00:00:00Z");
        final TenantSettings first = settings("health", v1, medications(null)).build();
        // the second version drops the medications category and turns PERSONAL facts (the city) off
        final TenantSettings second = settings("health", v2).setDisabledCategories(List.of("PERSONAL")).build();
        final var before = conversation("health", "u1", "c-1", user(AMLODIPINE + " I live in Braga.",
            "2025-03-01T08:00:00Z"));
        final var after = conversation("health", "u1", "c-2", user("I take 5 mg of metformin daily. I live in Porto.",
            "2025-04-01T08:00:00Z"));
        final List<MemoryCandidate> live;
        final List<Memory> liveMemories;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.settings(first);
            pipeline.publish(before);
            pipeline.settings(second);
            pipeline.publish(after);
            live = pipeline.candidates().stream().map(TestRecord::value).toList();
            liveMemories = pipeline.retriever().memories("health/u1");
        }

        final List<MemoryCandidate> replayed;
        final List<Memory> replayedMemories;
        try (PipelineHarness replay = new PipelineHarness()) {
            // a rebuild: the table holds every version before the first conversation is read again
            replay.settings(first).settings(second);
            replay.publish(before, after);
            replayed = replay.candidates().stream().map(TestRecord::value).toList();
            replayedMemories = replay.retriever().memories("health/u1");
        }

        assertThat(live).filteredOn(c -> "c-1".equals(c.getConversationId()))
            .anyMatch(c -> "medications".equals(c.getCustomCategory()) && c.getSettingsVersion().equals(v1))
            .anyMatch(c -> "city".equals(c.getKey()));
        assertThat(live).filteredOn(c -> "c-2".equals(c.getConversationId()))
            .allMatch(c -> c.getCustomCategory() == null && v2.equals(c.getSettingsVersion()))
            .noneMatch(c -> "city".equals(c.getKey()));
        assertThat(replayed).isEqualTo(live);
        assertThat(replayedMemories).isEqualTo(liveMemories);
    }
}
