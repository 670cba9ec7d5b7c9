package dev.engram.cases;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.scoring.ScoredMemory;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * The user-reported failure cases of ../shared/cases run through the whole offline pipeline: the
 * real rule-based extractor, the real MiniLM model, consolidation and the retriever's read model
 * and scorer. Nothing is fed by hand here: each conversation is published as a chat platform would.
 * (The consolidation-only versions with hand-made candidates are in ConsolidationCasesTest.)
 */
class EndToEndCasesTest {

    private static List<Memory> withKey(final List<Memory> memories, final String key) {
        return memories.stream().filter(m -> key.equals(m.getKey())).toList();
    }

    private static Set<String> conversationsOf(final Memory m) {
        return m.getSources().stream().map(SourceRef::getConversationId).collect(Collectors.toSet());
    }

    private static boolean mentions(final Memory m, final String word) {
        return m.getContent().toLowerCase(Locale.ROOT).contains(word);
    }

    @Test
    void shouldReinforceARestatedFactAndNeverDeleteIt_case01() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation("t1", "u-mira", "c-101",
                user("These days I write almost everything in Kotlin.", "2025-02-03T09:12:00Z"),
                assistant("Noted, Kotlin it is.", "2025-02-03T09:12:04Z")));
            final Memory first = withKey(pipeline.retriever().active("t1/u-mira"), "preferred_language").get(0);

            pipeline.publish(conversation("t1", "u-mira", "c-102",
                user("As I said before, Kotlin is my main language.", "2025-02-10T17:40:00Z")));

            final List<Memory> facts = withKey(pipeline.retriever().active("t1/u-mira"), "preferred_language");
            assertThat(facts).hasSize(1);
            final Memory kotlin = facts.get(0);
            assertThat(kotlin.getValue()).isEqualTo("Kotlin");
            assertThat(kotlin.getReinforcementCount()).isEqualTo(2);
            assertThat(conversationsOf(kotlin)).containsExactlyInAnyOrder("c-101", "c-102");
            assertThat(kotlin.getLastConfirmedAt()).isEqualTo(Instant.parse("2025-02-10T17:40:00Z"));
            assertThat(kotlin.getConfidence()).isGreaterThanOrEqualTo(first.getConfidence());
            assertThat(pipeline.retriever().memories("t1/u-mira")).allMatch(m -> m.getStatus() == MemoryStatus.ACTIVE);
            assertThat(pipeline.updates()).extracting(u -> u.getOperation())
                .doesNotContain(UpdateOperation.DELETED, UpdateOperation.ARCHIVED, UpdateOperation.SUPERSEDED);

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-mira", "which language should the code sample use?", 5);
            assertThat(hits).isNotEmpty();
            assertThat(hits.get(0).memory().getMemoryId()).isEqualTo(kotlin.getMemoryId());
        }
    }

    @Test
    void shouldSupersedeAChangedNumberThatEmbedsAsANearDuplicate_case02() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(
                conversation("t1", "u-omar", "c-110", user("I've been at Ferrovia Labs for three years now.", "2025-01-10T08:00:00Z")),
                conversation("t1", "u-omar", "c-111", user("Three years at Ferrovia Labs, like I mentioned.", "2025-01-11T08:00:00Z")));
            final List<Memory> afterTwo = pipeline.retriever().active("t1/u-omar");
            assertThat(afterTwo).hasSize(1);
            final Memory threeYears = afterTwo.get(0);
            assertThat(threeYears.getContent()).contains("3 years");
            assertThat(threeYears.getReinforcementCount()).isEqualTo(2);

            pipeline.publish(conversation("t1", "u-omar", "c-140",
                user("Four years at Ferrovia Labs as of this month.", "2026-01-14T08:00:00Z")));

            final List<Memory> active = pipeline.retriever().active("t1/u-omar");
            assertThat(active).hasSize(1);
            final Memory fourYears = active.get(0);
            assertThat(fourYears.getKey()).isEqualTo("employer");
            assertThat(fourYears.getValue()).isEqualTo("Ferrovia Labs");
            assertThat(fourYears.getContent()).contains("4 years");
            final Memory archived = pipeline.retriever().memories("t1/u-omar").stream()
                .filter(m -> m.getMemoryId().equals(threeYears.getMemoryId())).findFirst().orElseThrow();
            assertThat(archived.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(archived.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(archived.getSupersededBy()).isEqualTo(fourYears.getMemoryId());

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-omar", "how long has he been at Ferrovia?", 5);
            assertThat(hits.get(0).memory().getMemoryId()).isEqualTo(fourYears.getMemoryId());
            assertThat(hits).noneMatch(h -> h.memory().getMemoryId().equals(threeYears.getMemoryId()));
        }
    }

    @Test
    void shouldArchiveTheOldLikeAndKeepTheNewDislike_case03() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation("t1", "u-rosa", "c-301",
                user("Sushi is my all-time favourite food.", "2025-03-01T19:00:00Z")));
            final Memory liked = pipeline.retriever().active("t1/u-rosa").get(0);
            pipeline.publish(conversation("t1", "u-rosa", "c-302",
                user("I've totally gone off sushi, can't stand it anymore.", "2025-03-20T19:00:00Z")));

            final List<Memory> aboutSushi = pipeline.retriever().active("t1/u-rosa").stream().filter(m -> mentions(m, "sushi")).toList();
            assertThat(aboutSushi).hasSize(1);
            final Memory disliked = aboutSushi.get(0);
            assertThat(disliked.getKey()).isEqualTo("preference:sushi");
            assertThat(disliked.getValue()).isEqualTo("dislike");
            final Memory old = pipeline.retriever().memories("t1/u-rosa").stream()
                .filter(m -> m.getMemoryId().equals(liked.getMemoryId())).findFirst().orElseThrow();
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            assertThat(old.getSupersededBy()).isEqualTo(disliked.getMemoryId());
            assertThat(pipeline.updates()).extracting(u -> u.getOperation()).doesNotContain(UpdateOperation.DELETED);

            assertThat(pipeline.retrieve("t1/u-rosa", "does she like sushi?", 3).get(0).memory().getMemoryId())
                .isEqualTo(disliked.getMemoryId());
            assertThat(pipeline.retrieve("t1/u-rosa", "what should I suggest for dinner tonight?", 5))
                .noneMatch(h -> "like".equals(h.memory().getValue()) && mentions(h.memory(), "sushi"));
        }
    }

    @Test
    void shouldLetTheNewerDietWinOverAHeavilyReinforcedOldOne_case04() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(
                conversation("t1", "u-sam", "c-401", user("I've been vegan for two years.", "2025-04-02T12:00:00Z")),
                conversation("t1", "u-sam", "c-402", user("still vegan, going strong", "2025-05-10T12:00:00Z")),
                conversation("t1", "u-sam", "c-403", user("vegan potluck was great", "2025-06-15T12:00:00Z")));
            final Memory vegan = withKey(pipeline.retriever().active("t1/u-sam"), "diet").get(0);
            assertThat(vegan.getValue()).isEqualTo("vegan");
            assertThat(vegan.getReinforcementCount()).isEqualTo(3);

            pipeline.publish(conversation("t1", "u-sam", "c-420",
                user("Started eating fish again; being vegan wasn't working for me.", "2025-09-15T12:00:00Z")));

            final List<Memory> diets = withKey(pipeline.retriever().active("t1/u-sam"), "diet");
            assertThat(diets).hasSize(1);
            assertThat(diets.get(0).getValue()).isEqualTo("pescatarian");
            final Memory old = pipeline.retriever().memories("t1/u-sam").stream()
                .filter(m -> m.getMemoryId().equals(vegan.getMemoryId())).findFirst().orElseThrow();
            assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            final UserProfile profile = pipeline.retriever().profile("t1/u-sam");
            assertThat(profile.getFacts()).containsKey("diet");
            assertThat(profile.getFacts().get("diet").getValue()).isEqualTo("pescatarian");
            assertThat(pipeline.retriever().active("t1/u-sam")).noneMatch(m -> mentions(m, "vegan") && !"pescatarian".equals(m.getValue()));

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-sam", "what should I cook for him tonight?", 5);
            assertThat(hits).isNotEmpty();
            assertThat(hits.get(0).memory().getValue()).isEqualTo("pescatarian");
        }
    }

    @Test
    void shouldScopeRetrievalToTheUserWhenConversationIdsCollide_case05() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(
                conversation("t1", "u-ana", "c-1", user("My gym locker code is 4417.", "2025-04-01T07:00:00Z")),
                conversation("t1", "u-ben", "c-1", user("What was my locker code again?", "2025-04-01T07:05:00Z")));

            assertThat(pipeline.retrieve("t1/u-ben", "locker code", 5)).isEmpty();
            final List<ScoredMemory> ana = pipeline.retrieve("t1/u-ana", "locker code", 5);
            assertThat(ana).isNotEmpty();
            assertThat(ana.get(0).memory().getContent()).contains("4417");
            assertThat(pipeline.retriever().memories("t1/u-ben")).noneMatch(m -> m.getContent().contains("4417"));
            assertThatThrownBy(() -> new UserKey("t1", " ")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new UserKey("t1", null)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static final String[][] GUS = {
        {"I live in Lyon.", "2025-12-01T10:00:00Z"},
        {"I use IntelliJ for everything.", "2025-12-02T10:00:00Z"},
        {"I'm vegetarian.", "2025-12-03T10:00:00Z"},
        {"I work at Ferrovia Labs.", "2025-12-04T10:00:00Z"},
        {"My daughter started school today and she loved her new teacher.", "2025-12-05T10:00:00Z"},
        {"I use IntelliJ for everything, as always.", "2025-12-06T10:00:00Z"},
        {"I love hiking in the Alps.", "2025-12-07T10:00:00Z"},
        {"We moved to Nantes last week.", "2025-12-08T10:00:00Z"},
        {"Please keep your answers short.", "2025-12-09T10:00:00Z"},
        {"We adopted a rescue dog called Biscuit on Saturday.", "2025-12-10T10:00:00Z"},
    };

    private static ConversationCompleted gus(final int day) {
        return conversation("t1", "u-gus", "c-gus-" + (day + 1), user(GUS[day][0], GUS[day][1]));
    }

    @Test
    void shouldRebuildIdenticalStateWhenAnEventIsRedeliveredOrAllAreReplayed_case10() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (int day = 0; day < GUS.length; day++) {
                pipeline.publish(gus(day));
            }
            final Map<String, Memory> s1 = pipeline.consolidator().memoriesStore();
            final List<Memory> s1ReadModel = pipeline.retriever().memories("t1/u-gus");
            final UserProfile s1Profile = pipeline.retriever().profile("t1/u-gus");
            final int s1Events = pipeline.updates().size();
            assertThat(withKey(pipeline.retriever().active("t1/u-gus"), "city")).extracting(Memory::getValue).containsExactly("Nantes");
            assertThat(withKey(pipeline.retriever().active("t1/u-gus"), "ide").get(0).getReinforcementCount()).isEqualTo(2);

            pipeline.publish(gus(4)); // (a) event 5 redelivered byte for byte
            assertThat(pipeline.consolidator().memoriesStore()).isEqualTo(s1);
            assertThat(pipeline.updates()).hasSize(s1Events);

            for (int day = 0; day < GUS.length; day++) { // (b) consumer group reset to earliest
                pipeline.publish(gus(day));
            }
            assertThat(pipeline.consolidator().memoriesStore()).isEqualTo(s1);
            assertThat(pipeline.retriever().memories("t1/u-gus")).containsExactlyInAnyOrderElementsOf(s1ReadModel);
            assertThat(pipeline.retriever().profile("t1/u-gus")).isEqualTo(s1Profile);
            assertThat(pipeline.updates()).hasSize(s1Events);
        }
        try (PipelineHarness reversed = new PipelineHarness()) { // Nantes arrives before Lyon: event time decides
            for (int day = GUS.length - 1; day >= 0; day--) {
                reversed.publish(gus(day));
            }
            assertThat(withKey(reversed.retriever().active("t1/u-gus"), "city")).extracting(Memory::getValue).containsExactly("Nantes");
            assertThat(withKey(reversed.retriever().memories("t1/u-gus"), "city"))
                .filteredOn(m -> "Lyon".equals(m.getValue())).singleElement()
                .satisfies(m -> assertThat(m.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED));
        }
    }

    @Test
    void shouldKeepOneMemoryAndTheLatestCityWhenUpdatesArriveTogether_case11() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (int run = 0; run < 100; run++) {
                final String jon = "u-jon-" + run;
                pipeline.publish(
                    conversation("t1", jon, "c-a", user("I use IntelliJ for everything.", "2025-07-07T10:00:00.000Z")),
                    conversation("t1", jon, "c-b", user("I use IntelliJ for everything.", "2025-07-07T10:00:00.010Z")));
                final List<Memory> ide = withKey(pipeline.retriever().active("t1/" + jon), "ide");
                assertThat(ide).as("run %d", run).hasSize(1);
                assertThat(ide.get(0).getReinforcementCount()).as("run %d", run).isEqualTo(2);

                final String city = "u-jon-city-" + run;
                pipeline.publish(conversation("t1", city, "c-0", user("I live in Bergen.", "2025-07-01T10:00:00Z")));
                final ConversationCompleted oslo = conversation("t1", city, "c-oslo",
                    user("We relocated to Oslo", "2025-07-07T10:00:00.000Z"));
                final ConversationCompleted trondheim = conversation("t1", city, "c-trondheim",
                    user("Now living in Trondheim", "2025-07-07T10:00:00.050Z"));
                if (run % 2 == 0) {
                    pipeline.publish(oslo, trondheim);
                } else {
                    pipeline.publish(trondheim, oslo);
                }
                assertThat(withKey(pipeline.retriever().active("t1/" + city), "city")).as("run %d", run)
                    .extracting(Memory::getValue).containsExactly("Trondheim");
                final List<Memory> cities = withKey(pipeline.retriever().memories("t1/" + city), "city");
                assertThat(cities).filteredOn(m -> m.getStatus() == MemoryStatus.ARCHIVED)
                    .extracting(Memory::getValue).containsExactlyInAnyOrder("Bergen", "Oslo");
                final Memory bergen = cities.stream().filter(m -> "Bergen".equals(m.getValue())).findFirst().orElseThrow();
                final Memory osloMemory = cities.stream().filter(m -> "Oslo".equals(m.getValue())).findFirst().orElseThrow();
                assertThat(pipeline.archived()).as("Bergen archived exactly once, run %d", run)
                    .filteredOn(r -> r.value().getMemoryId().equals(bergen.getMemoryId())).hasSize(1);
                // the chain a time-ordered replay gives in both orders: Bergen until Oslo, Oslo until Trondheim (Oslo
                // arriving after Trondheim, inside Bergen's interval, re-dates Bergen: a second SUPERSEDED update)
                assertThat(bergen.getSupersededBy()).as("run %d", run).isEqualTo(osloMemory.getMemoryId());
                assertThat(pipeline.updates()).as("run %d", run)
                    .filteredOn(u -> u.getUserId().equals(city) && u.getOperation() == UpdateOperation.SUPERSEDED
                        && "Bergen".equals(u.getMemory().getValue()))
                    .hasSize(run % 2 == 0 ? 1 : 2);
            }
        }
    }

    @Test
    void shouldRememberThePreferenceAndStoreNoTokenPasswordOrKeyAnywhere_case17() {
        final List<String> secrets = List.of("ghp_FAKE1234567890abcdefghijklmnopqrstuvwx", "hunter2-fake",
            "AKIAFAKE0000EXAMPLE1", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(
                conversation("t1", "u-oli", "c-170", user("The staging token is ghp_FAKE1234567890abcdefghijklmnopqrstuvwx"
                    + " and the DB password is hunter2-fake; I prefer Postgres over MySQL.", "2025-06-01T10:00:00Z")),
                conversation("t1", "u-oli", "c-171", user("My AWS key is AKIAFAKE0000EXAMPLE1 and its secret is"
                    + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, please remember I deploy with Terraform.",
                    "2025-06-02T10:00:00Z")));

            assertThat(pipeline.retriever().active("t1/u-oli")).anyMatch(m -> mentions(m, "postgres"));
            final StringBuilder everything = new StringBuilder();
            pipeline.candidates().forEach(r -> everything.append(r.value()).append('\n'));
            pipeline.updates().forEach(u -> everything.append(u).append('\n'));
            pipeline.retriever().memories("t1/u-oli").forEach(m -> everything.append(m).append('\n'));
            pipeline.consolidator().memories("t1/u-oli").forEach(m -> everything.append(m).append('\n'));
            assertThat(everything).contains("Postgres");
            for (final String secret : secrets) {
                assertThat(everything.toString()).doesNotContain(secret);
            }
        }
    }

    /** Unrelated conversations every 30 days: they move stream time, so the daily lifecycle pass runs. */
    private static final String[][] IDA_LATER = {
        {"My sister Lena visited us in Porto for the weekend.", "2024-02-10T18:00:00Z"},
        {"We painted the kitchen a pale green colour on Sunday.", "2024-03-11T18:00:00Z"},
        {"I started learning the cello with a teacher in April.", "2024-04-10T18:00:00Z"},
        {"Our team shipped the new billing dashboard yesterday.", "2024-05-10T18:00:00Z"},
        {"I ran the Lisbon half marathon in 1:52 this morning.", "2024-06-09T18:00:00Z"},
        {"My daughter Mia turned seven and we had a picnic.", "2024-07-09T18:00:00Z"},
        {"I booked a trip to Kyoto for October with my partner.", "2024-08-08T18:00:00Z"},
        {"The garage door broke again and the repair took 3 hours.", "2024-09-01T18:00:00Z"},
    };

    @Test
    void shouldArchiveAStaleRemarkWithTheDefaultsKeepAReinforcedFactAndReviveTheRemarkWhenRestated_case16() {
        try (PipelineHarness pipeline = new PipelineHarness()) { // the default EngramConfig: no override
            pipeline.publish(conversation("t1", "u-ida", "c-ida-1",
                user("Had a sandwich at the station.", "2024-01-10T12:00:00Z")));
            final List<Memory> first = pipeline.retriever().active("t1/u-ida");
            assertThat(first).as("the remark is stored").singleElement();
            final Memory sandwich = first.get(0);
            assertThat(mentions(sandwich, "sandwich")).isTrue();
            pipeline.publish(
                conversation("t1", "u-ida", "c-ida-2", user("I'm allergic to cats.", "2024-01-10T12:05:00Z")),
                conversation("t1", "u-ida", "c-ida-3", user("I'm allergic to cats.", "2024-02-01T12:00:00Z")),
                conversation("t1", "u-ida", "c-ida-4", user("I'm allergic to cats.", "2024-03-01T12:00:00Z")));
            final Memory allergy = pipeline.retriever().active("t1/u-ida").stream().filter(m -> mentions(m, "cat"))
                .findFirst().orElseThrow();
            assertThat(allergy.getReinforcementCount()).isEqualTo(3);
            for (int i = 0; i < IDA_LATER.length - 1; i++) { // up to 2024-08-08: before 2024-09-01
                pipeline.publish(conversation("t1", "u-ida", "c-ida-later-" + i, user(IDA_LATER[i][0], IDA_LATER[i][1])));
            }

            final Memory stale = byId(pipeline.retriever().memories("t1/u-ida"), sandwich.getMemoryId());
            assertThat(stale.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(stale.getArchiveReason()).isEqualTo(ArchiveReason.STALE);
            assertThat(pipeline.retrieve("t1/u-ida", "where did I have a sandwich?", 5))
                .noneMatch(h -> h.memory().getMemoryId().equals(sandwich.getMemoryId()));
            assertThat(byId(pipeline.retriever().memories("t1/u-ida"), allergy.getMemoryId()).getStatus())
                .as("reinforcement counts as use").isEqualTo(MemoryStatus.ACTIVE);
            pipeline.publish(conversation("t1", "u-ida", "c-ida-later-last",
                user(IDA_LATER[IDA_LATER.length - 1][0], IDA_LATER[IDA_LATER.length - 1][1])));

            pipeline.publish(conversation("t1", "u-ida", "c-ida-5",
                user("Had a sandwich at the station again.", "2024-09-15T12:00:00Z")));

            final List<Memory> sandwiches = pipeline.retriever().memories("t1/u-ida").stream().filter(m -> mentions(m, "sandwich")).toList();
            assertThat(sandwiches).as("revived, not copied").singleElement();
            final Memory revived = sandwiches.get(0);
            assertThat(revived.getMemoryId()).isEqualTo(sandwich.getMemoryId());
            assertThat(revived.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(revived.getArchiveReason()).isNull();
            assertThat(revived.getReinforcementCount()).isEqualTo(2);
            assertThat(conversationsOf(revived)).containsExactlyInAnyOrder("c-ida-1", "c-ida-5");
            assertThat(revived.getLastConfirmedAt()).isEqualTo(Instant.parse("2024-09-15T12:00:00Z"));
            assertThat(pipeline.updates()).filteredOn(u -> u.getMemoryId().equals(sandwich.getMemoryId()))
                .extracting(u -> u.getOperation() + "/" + u.getMemory().getStatus())
                .containsExactly("CREATED/ACTIVE", "ARCHIVED/ARCHIVED", "REINFORCED/ACTIVE");
            assertThat(pipeline.retrieve("t1/u-ida", "where did I have a sandwich?", 5).get(0).memory().getMemoryId())
                .isEqualTo(sandwich.getMemoryId());
        }
    }

    private static Memory byId(final List<Memory> memories, final String memoryId) {
        return memories.stream().filter(m -> m.getMemoryId().equals(memoryId)).findFirst().orElseThrow();
    }
}
