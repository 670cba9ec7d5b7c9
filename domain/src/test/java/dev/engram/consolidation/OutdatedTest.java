package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutdatedTest {

    private static final Instant T0 = Instant.parse("2024-01-08T09:00:00Z");
    private static final Instant CHANGE = T0.plusSeconds(86_400 * 30L);

    @BeforeAll
    static void trustRecords() {
        // Builders deep-copy enums through Avro's class allow-list; trust our package before any copy.
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private static Memory memory(final String id, final String key, final String value, final String content,
                                 final String conversation, final Instant at) {
        return Memory.newBuilder().setMemoryId(id).setTenantId("t1").setUserId("u1")
            .setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setCategory(key == null ? null : FactCategory.PERSONAL).setKey(key).setValue(value).setDisplayName(null)
            .setContent(content).setImportance(0.5).setConfidence(0.9).setSource(MemorySource.EXPLICIT)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at)
            .setLastConfirmedAt(at).setAccessCount(0).setReinforcementCount(1).setExpiresAt(null).setValidFrom(at)
            .setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(SourceRef.newBuilder().setConversationId(conversation).setMessageIndexes(List.of(0))
                .setObservedAt(at).build()))
            .setEmbedding(List.of()).setEmbeddingModel("m").build();
    }

    @Test
    void shouldMarkTheEpisodesStatingTheOldValueButNotTheChangeNorLaterNorOtherWords() {
        final Memory lisbon = memory("f1", "city", "Lisbon", "Lives in Lisbon", "c1", T0);
        final Memory said = memory("e1", null, null, "I live in Lisbon and cycle to work.", "c1", T0);
        final Memory tram = memory("e2", null, null, "The tram in Lisbon was packed.", "c2", T0.plusSeconds(3600));
        final Memory change = memory("e3", null, null, "I moved from Lisbon to Porto.", "c3", CHANGE);
        final Memory unrelated = memory("e4", null, null, "Lisbonne is how my French friend says it.", "c2", T0);
        final Memory later = memory("e5", null, null, "I miss Lisbon sometimes.", "c4", CHANGE.plusSeconds(86_400));
        final SourceRef changedBy = SourceRef.newBuilder().setConversationId("c3").setMessageIndexes(List.of(0))
            .setObservedAt(CHANGE).build();

        final List<Consolidator.Change> marks = Outdated.mark(lisbon, "Porto", "f2", changedBy, CHANGE,
            List.of(lisbon, said, tram, change, unrelated, later), "candidate:x");

        assertThat(marks).extracting(c -> c.after().getMemoryId()).containsExactly("e1", "e2");
        assertThat(marks).allSatisfy(c -> {
            assertThat(c.after().getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(c.after().getValidTo()).isEqualTo(CHANGE);
            assertThat(c.after().getSupersededBy()).isEqualTo("f2");
            assertThat(c.event().getOperation()).isEqualTo(UpdateOperation.SUPERSEDED);
            assertThat(Outdated.isOutdated(c.after())).isTrue();
        });
        assertThat(Outdated.mark(lisbon, "Porto", "f2", changedBy, CHANGE, List.of(marks.get(0).after()), "again"))
            .as("marked once").isEmpty();
    }

    @Test
    void shouldKeepCurrentTheClausesOfAMarkedEpisodeThatStateNoOldValue() {
        final Memory lisbon = memory("f1", "city", "Lisbon", "Lives in Lisbon", "c1", T0);
        final Memory sushi = Memory.newBuilder(memory("x1", null, null,
                "User: I love sushi, any good places in Lisbon? \u2014 Assistant: Try Sushi Caf\u00e9 Avenida.", "c2", T0))
            .setDisplayName(dev.engram.port.ExtractedMemory.EXCHANGE_RECOMMENDATION).build();
        final Memory hooli = memory("e1", null, null, "Big week: I moved to Lisbon, I work at Hooli now; it is sunny there.",
            "c3", T0);
        final Memory leaning = memory("e2", null, null, "I live in Lisbon, I love it.", "c4", T0);

        final List<Consolidator.Change> marks = Outdated.mark(lisbon, "Porto", "f2", null, CHANGE,
            List.of(lisbon, sushi, hooli, leaning), "candidate:x");

        assertThat(marks).extracting(c -> c.after().getOutdatedValues()).containsOnly(List.of("Lisbon"));
        assertThat(marks).extracting(c -> OutdatedPart.currentPart(c.after())).as("the reply answered the outdated turn;"
            + " a clause leaning on the one before, or not of the user, says nothing alone")
            .containsExactly("I love sushi.", "I work at Hooli now.", null);
        assertThat(OutdatedPart.currentPart(sushi)).as("not outdated").isNull();
        assertThat(OutdatedPart.currentPart(Memory.newBuilder(marks.get(0).after()).setOutdatedValues(List.of()).build()))
            .as("outdated whole").isNull();

        final Memory employer = memory("f3", "employer", "Hooli", "Works at Hooli", "c3", T0);
        final Instant later = CHANGE.plusSeconds(86_400);
        final List<Memory> marked = List.of(employer, marks.get(0).after(), marks.get(1).after(), marks.get(2).after());
        final List<Consolidator.Change> again = Outdated.mark(employer, "Initech", "f4", null, later, marked, "candidate:y");
        assertThat(again).as("a later change reaches what an episode still says as current").hasSize(1);
        final Memory twice = again.get(0).after();
        assertThat(twice.getMemoryId()).isEqualTo("e1");
        assertThat(twice.getOutdatedValues()).containsExactly("Lisbon", "Hooli");
        assertThat(OutdatedPart.currentPart(twice)).isNull();
        assertThat(twice.getValidTo()).as("the first mark's time and memory").isEqualTo(CHANGE);
        assertThat(twice.getSupersededBy()).isEqualTo("f2");

        final Memory read = Memory.newBuilder(lisbon).setSources(sushi.getSources()).build();
        final List<Consolidator.Change> cited = Outdated.mark(read, "Porto", "f1", null, later,
            List.of(read, marks.get(0).after()), "command:k1", Outdated.Reach.CITED_SOURCES);
        assertThat(cited).as("a correction of the fact read from it makes it past whole").singleElement()
            .satisfies(c -> assertThat(c.after().getOutdatedValues()).isEmpty())
            .satisfies(c -> assertThat(c.after().getValidTo()).isEqualTo(CHANGE));
    }

    @Test
    void shouldKeepNoClauseCurrentThatNamesAValueTheKeyHeldBefore() {
        final Memory longName = Memory.newBuilder(memory("f1", "employer", "International Business Machines",
            "Works at International Business Machines", "c1", T0)).setStatus(MemoryStatus.ARCHIVED).build();
        final Memory ibm = memory("f2", "employer", "IBM", "Works at IBM", "c2", T0.plusSeconds(86_400));
        final Memory exchange = Memory.newBuilder(memory("x1", null, null, "User: I work at International Business"
                + " Machines, in the consulting arm. \u2014 Assistant: Consulting at IBM covers a lot.", "c1", T0))
            .setDisplayName(dev.engram.port.ExtractedMemory.EXCHANGE_REPLY).build();

        final List<Consolidator.Change> marks = Outdated.mark(ibm, "Accenture", "f3", null, CHANGE,
            List.of(longName, ibm, exchange), "candidate:x");

        assertThat(marks).singleElement().satisfies(c -> {
            assertThat(c.after().getOutdatedValues()).containsExactly("IBM", "International Business Machines");
            assertThat(OutdatedPart.currentPart(c.after())).isNull();
        });
    }

    @Test
    void shouldReadAShortNumberOnlyAsTheUsersAge() {
        assertThat(Outdated.states("My dog Rex is 3 years old. I'm 29.", "29")).isTrue();
        assertThat(Outdated.states("I am 29 years old and I live in Graz.", "29")).isTrue();
        assertThat(Outdated.states("I turned 29 in May.", "29")).isTrue();
        assertThat(Outdated.states("My dog Rex is 3 years old. I'm 29.", "3")).as("the dog's age").isFalse();
        assertThat(Outdated.states("I'm 29 minutes away.", "29")).isFalse();
        assertThat(Outdated.states("We were 29 at the party.", "29")).isFalse();
    }

    @Test
    void shouldReadAToolValueInAnyOfItsNames() {
        assertThat(Outdated.states("I code in vscode all day.", "VS Code")).isTrue();
        assertThat(Outdated.states("Visual Studio Code keeps crashing on me.", "vscode")).isTrue();
        assertThat(Outdated.states("Visual Studio keeps crashing on me.", "VS Code")).as("another IDE").isFalse();
    }

    @Test
    void shouldReadAStanceByItsSubjectAndHanValuesAsWords() {
        final Memory likes = memory("f1", "preference:horror_movies", "like", "Likes horror movies", "c1", T0);
        final Memory loved = memory("e1", null, null, "I love horror movies, the scarier the better.", "c1", T0);
        final Memory other = memory("e2", null, null, "I'd like a quiet weekend.", "c2", T0);
        assertThat(Outdated.mark(likes, "dislike", "f2", null, CHANGE, List.of(loved, other), "c"))
            .extracting(c -> c.after().getMemoryId()).containsExactly("e1");

        final Memory beijing = memory("f3", "city", "北京", "住在北京", "c1", T0);
        final Memory zh = memory("e3", null, null, "我住在北京，在一家游戏公司工作。", "c1", T0);
        assertThat(Outdated.mark(beijing, "上海", "f4", null, CHANGE, List.of(zh), "c")).hasSize(1);
    }

    @Test
    void shouldAlsoMarkTheEpisodesCitingTheFactsSourceOnlyWhenTheReachAsksForThem() {
        final Memory style = memory("f1", "response_style", "concise", "Prefers concise answers", "c1", T0);
        final Memory cited = memory("e1", null, null, "Please keep answers short and give me code first.", "c1", T0);
        final Memory named = memory("e2", null, null, "Concise code reviews please.", "c2", T0);
        final Memory elsewhere = memory("e3", null, null, "Keep it short, I am busy.", "c3", T0);
        final List<Memory> userMemories = List.of(style, cited, named, elsewhere);

        final List<Consolidator.Change> marks = Outdated.mark(style, "detailed", "f1", null, CHANGE, userMemories,
            "command:k1", Outdated.Reach.CITED_SOURCES);

        assertThat(marks).as("the value rule's marks first, then the cited episodes")
            .extracting(c -> c.after().getMemoryId()).containsExactly("e2", "e1");
        final Consolidator.Change citing = marks.get(1);
        assertThat(citing.before()).isEqualTo(cited);
        assertThat(citing.after().getValidTo()).isEqualTo(CHANGE);
        assertThat(citing.after().getSupersededBy()).isEqualTo("f1");
        assertThat(citing.after().getUpdatedAt()).isEqualTo(CHANGE);
        assertThat(citing.event().getOperation()).isEqualTo(UpdateOperation.SUPERSEDED);
        assertThat(citing.event().getEventId()).as("the id a command first wrote it with")
            .isEqualTo(dev.engram.core.MemoryIds.eventId("e1", "SUPERSEDED", "command:k1"));
        assertThat(citing.event().getCause()).isEqualTo("command:k1");
        assertThat(citing.event().getPreviousValue()).isNull();
        assertThat(citing.event().getMemoryEnabled()).isNull();
        assertThat(citing.event().getEventTime()).isEqualTo(CHANGE);
        assertThat(citing.event().getTenantId()).isEqualTo("t1");
        assertThat(citing.event().getUserId()).isEqualTo("u1");

        assertThat(Outdated.mark(style, "detailed", "f1", null, CHANGE, userMemories, "candidate:c"))
            .as("a supersede reaches what states the value only").extracting(c -> c.after().getMemoryId())
            .containsExactly("e2");
        assertThat(Outdated.mark(style, "detailed", "f1", null, CHANGE, userMemories, "candidate:c",
            Outdated.Reach.STATED_VALUE)).extracting(c -> c.after().getMemoryId()).containsExactly("e2");
        final Memory keyless = Memory.newBuilder(style).setKey(null).setValue(null).build();
        assertThat(Outdated.mark(keyless, null, null, null, CHANGE, userMemories, "command:k2",
            Outdated.Reach.CITED_SOURCES)).as("a fact without a key marks nothing").isEmpty();
    }

    @Test
    void shouldOutdateOnlyACurrentTurnEpisodeCitingTheFactsMessageAndNotNamingTheNewValue() {
        final Memory fact = memory("f1", "response_style", "concise", "Prefers concise answers", "c1", T0);
        final Memory episode = memory("e1", null, null, "Please keep answers short.", "c1", T0);
        assertThat(Outdated.citesSourceOf(episode, fact, "detailed", "f1", CHANGE)).isTrue();
        assertThat(Outdated.citesSourceOf(episode, fact, null, null, CHANGE)).as("a deletion").isTrue();

        assertThat(Outdated.citesSourceOf(memory("e2", null, null, "Please keep answers short.", "c2", T0), fact,
            "detailed", "f1", CHANGE)).as("another conversation").isFalse();
        final Memory otherMessage = Memory.newBuilder(episode).setSources(List.of(SourceRef.newBuilder()
            .setConversationId("c1").setMessageIndexes(List.of(1, 2)).setObservedAt(T0).build())).build();
        assertThat(Outdated.citesSourceOf(otherMessage, fact, "detailed", "f1", CHANGE)).as("another message")
            .isFalse();
        assertThat(Outdated.citesSourceOf(memory("e3", null, null, "Give me detailed answers.", "c1", T0), fact,
            "detailed", "f1", CHANGE)).as("names the new value").isFalse();
        assertThat(Outdated.citesSourceOf(Memory.newBuilder(episode).setValidFrom(CHANGE.plusSeconds(1)).build(), fact,
            "detailed", "f1", CHANGE)).as("said after the change").isFalse();
        assertThat(Outdated.citesSourceOf(Memory.newBuilder(episode).setValidTo(T0.plusSeconds(60)).build(), fact,
            "detailed", "f1", CHANGE)).as("outdated already").isFalse();
        assertThat(Outdated.citesSourceOf(Memory.newBuilder(episode).setStatus(MemoryStatus.ARCHIVED).build(), fact,
            "detailed", "f1", CHANGE)).as("not ACTIVE").isFalse();
        assertThat(Outdated.citesSourceOf(Memory.newBuilder(episode)
            .setDisplayName(dev.engram.port.ExtractedMemory.SUMMARY_DISPLAY_NAME).build(), fact, "detailed", "f1",
            CHANGE)).as("a summary holds more than the message").isFalse();
        assertThat(Outdated.citesSourceOf(Memory.newBuilder(episode).setType(MemoryType.SEMANTIC).build(), fact,
            "detailed", "f1", CHANGE)).as("not an episode").isFalse();
        assertThat(Outdated.citesSourceOf(memory("f1", null, null, "Please keep answers short.", "c1", T0), fact,
            "detailed", "f2", CHANGE)).as("the fact's own id").isFalse();
        assertThat(Outdated.citesSourceOf(episode, fact, "detailed", "e1", CHANGE)).as("the new value's memory")
            .isFalse();
    }

    @Test
    void shouldRewriteTheValueWhereTheContentNamesIt() {
        assertThat(Outdated.withValue("Lives in Graz", "Graz", "Linz")).isEqualTo("Lives in Linz");
        assertThat(Outdated.withValue("Eats a vegan diet", "vegan", "pescatarian")).isEqualTo("Eats a pescatarian diet");
        assertThat(Outdated.withValue("住在北京", "北京", "上海")).isEqualTo("住在上海");
        assertThat(Outdated.withValue("Home town", "Graz", "Linz")).isNull();
        assertThat(Outdated.withValue("Lives in Grazer Strasse", "Graz", "Linz")).as("a word, not a part").isNull();
        assertThat(Outdated.withValue("Main programming language is Go", "Go", "Rust"))
            .as("a short value is a word too").isEqualTo("Main programming language is Rust");
        assertThat(Outdated.withValue("Goes to Gothenburg", "Go", "Rust")).as("not a part of a word").isNull();
        assertThat(Outdated.withValue("Works in IT", "IT", "HR")).isEqualTo("Works in HR");
    }

    @Test
    void shouldReadAnEndingOnlyRightAtTheValue() {
        assertThat(Outdated.ends("Marco and I broke up last week.", "Marco")).isTrue();
        assertThat(Outdated.ends("I finally broke up with Marco.", "Marco")).isTrue();
        assertThat(Outdated.ends("Biscuit died last night.", "Biscuit")).isTrue();
        assertThat(Outdated.ends("I left IBM and now I work at Accenture.", "IBM")).isTrue();
        assertThat(Outdated.ends("We moved away from Lisbon in May.", "Lisbon")).isTrue();
        assertThat(Outdated.ends("I left my keys at IBM.", "IBM")).isFalse();
        assertThat(Outdated.ends("Marco loves climbing.", "Marco")).isFalse();
    }

    @Test
    void shouldConfirmAFactOnlyWhereASentenceNamesItWithoutEndingIt() {
        assertThat(Facts.restates("Still at NASA, fighting our build system.", "NASA")).isTrue();
        assertThat(Facts.restates("I left NASA last month.", "NASA")).isFalse();
        assertThat(Facts.restates("I'm not at NASA any more.", "NASA")).isFalse();
        assertThat(Facts.restates("The museum had a nasa poster.", "NASA")).as("a name is matched as written").isFalse();
    }

    @Test
    void shouldReadAValueWithoutRegardToAccentsOrCaseButNotANameAsACommonWord() {
        assertThat(Outdated.states("i live in oslo", "Oslo")).as("a lowercase typist").isTrue();
        assertThat(Outdated.states("I LIVE IN OSLO", "Oslo")).isTrue();
        assertThat(Outdated.states("I live in Sao Paulo.", "São Paulo")).isTrue();
        assertThat(Outdated.states("I live in SÃO PAULO.", "Sao Paulo")).isTrue();
        assertThat(Outdated.states("Zu\u0308rich was lovely.", "Z\u00fcrich")).isTrue();
        assertThat(Outdated.states("I paid the bill at dinner.", "Bill")).as("a common word, not the name").isFalse();
        assertThat(Outdated.states("Oslofjord views", "Oslo")).isFalse();
        assertThat(Outdated.ends("i moved away from são paulo", "Sao Paulo")).isTrue();
    }
}
