package dev.engram.retriever;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.MemoryTime;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The five reproductions of issue 26 ("memories that stay true") on the real pipeline: conversations through the
 * rule-based extractor, the default embedding model, the consolidator and the retriever's read model
 * ({@link PipelineHarness}), commands as {@code PUT .../memories/{id}} builds them ({@link Corrections}), and the
 * context block as {@code GET .../context} builds it ({@link ContextBlock}); and the README trial's text-form defects:
 * a value restated in other case, accents or Unicode form is one value, a lowercase statement of a superseded value is
 * past, an assistant repeating an old value is not served; and a change reaches the sentence naming the old value, not
 * the rest of the episode; and a later trial's (t14) retractions: a withdrawn allergy's sentence is past in the
 * episode that said it, the message that made a change stays current, an unnamed pet the user no longer has is
 * retracted, and a retraction of nothing keeps the message.
 */
class KnowledgeUpdateReproductionsTest {

    private static final String T = "t1";
    private static final Instant T0 = Instant.parse("2024-03-04T09:00:00Z");
    /** The retriever's JSON mapper, as its routes write their bodies. */
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = dev.engram.runtime.AppHttpServer.objectMapper();
    private static Embedder embedder;

    @BeforeAll
    static void loadModel() {
        embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());
    }

    @AfterAll
    static void closeModel() throws Exception {
        embedder.close();
    }

    /** @return the ISO instant {@code day} days after {@link #T0}, as the reproductions date their messages */
    static String day(final int day) {
        return T0.plus(Duration.ofDays(day)).toString();
    }

    private static String day(final int day, final int seconds) {
        return T0.plus(Duration.ofDays(day)).plusSeconds(seconds).toString();
    }

    private static String context(final PipelineHarness pipeline, final String userKey, final String message) {
        return context(embedder, pipeline, userKey, message);
    }

    /** The context block for a message, as {@code GET .../context} packs the retriever's ranking. */
    static String context(final Embedder embedder, final PipelineHarness pipeline, final String userKey,
                          final String message) {
        final HybridScorer scorer = new HybridScorer(embedder, EngramConfig.defaults());
        final List<Memory> memories = pipeline.retriever().memories(userKey);
        return ContextBlock.build(scorer.rank(RankRequest.of(message, EngramConfig.defaults().getInt(DomainConfig.MAX_K)).memories(memories)), 512)
            .text();
    }

    /** The lines of a context block that are not told as past (before its "Earlier, no longer current" section). */
    static String current(final String block) {
        final int past = block.indexOf(ContextBlock.EARLIER);
        return past < 0 ? block : block.substring(0, past);
    }

    /** A correction as {@code PUT .../memories/{id}} issues it. */
    private static MemoryCommand correction(final Memory target, final String content, final String value,
                                            final Instant at) {
        final Corrections.Correction c = Corrections.resolve(target, content, value);
        final MemoryCommand.Builder command = MemoryCommand.newBuilder().setCommandId(UUID.randomUUID().toString())
            .setTenantId(target.getTenantId()).setUserId(target.getUserId()).setKind(CommandKind.CORRECT)
            .setMemoryId(target.getMemoryId()).setContent(c.content()).setValue(c.value()).setMemoryEnabled(null)
            .setActor("test").setIssuedAt(at);
        if (c.content() != null) {
            command.setEmbedding(Vectors.toList(embedder.embed(c.content()))).setEmbeddingModel(embedder.modelFor(c.content()));
        }
        return command.build();
    }

    private static Memory fact(final PipelineHarness pipeline, final String userKey, final String key) {
        return pipeline.consolidator().active(userKey).stream().filter(m -> key.equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no ACTIVE " + key + " among " + pipeline.consolidator().active(userKey)));
    }

    @Test
    void shouldTellTheOldEmployerOnlyAsPastWhenTheEmployerIsCorrectedThroughTheApi() {
        final String u = T + "/u-dana";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-dana", "c-1",
                user("My name is Dana Whitfield and I work at Umbrella Labs.", day(0)),
                assistant("Nice to meet you, Dana.", day(0, 30))));
            final Memory employer = fact(pipeline, u, "employer");
            final Memory episode = pipeline.consolidator().active(u).stream()
                .filter(m -> m.getKey() == null && m.getContent().contains("Umbrella Labs")).findFirst()
                .orElseThrow(() -> new AssertionError("the turn's episode: " + pipeline.consolidator().active(u)));

            pipeline.command(correction(employer, null, "Cyberdyne Systems", T0.plus(Duration.ofDays(6))));

            final Memory marked = pipeline.retriever().memory(u, episode.getMemoryId());
            assertThat(marked.getStatus()).as("still what the user said").isEqualTo(MemoryStatus.ACTIVE);
            assertThat(marked.getValidTo()).isEqualTo(T0.plus(Duration.ofDays(6)));
            assertThat(marked.getSupersededBy()).isEqualTo(employer.getMemoryId());
            final String block = context(pipeline, u, "Where does Dana work?");
            assertThat(current(block)).contains("Cyberdyne Systems").doesNotContain("Umbrella");
            assertThat(block).contains(ContextBlock.EARLIER);
            assertThat(MemoryTime.validAt(marked, T0.plus(Duration.ofDays(1)))).as("asOf before the change").isTrue();
            assertThat(MemoryTime.validAt(marked, T0.plus(Duration.ofDays(7)))).as("asOf after it").isFalse();
        }
    }

    @Test
    void shouldTellTheOldCityAsPastWhenTheUserMovesInChinese() {
        final String u = T + "/u-zh";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-zh", "c-1", user("我住在北京，在一家游戏公司工作。", day(0))));
            pipeline.publish(conversation(T, "u-zh", "c-2", user("我搬到上海了，新公司离家很近。我住在上海。", day(30))));

            assertThat(fact(pipeline, u, "city").getValue()).isEqualTo("上海");
            assertThat(pipeline.retriever().memories(u)).filteredOn(m -> m.getContent().contains("北京")
                    && m.getStatus() == MemoryStatus.ACTIVE)
                .isNotEmpty().allSatisfy(m -> assertThat(m.getValidTo()).isEqualTo(Instant.parse(day(30))));
            assertThat(current(context(pipeline, u, "我住在哪里？"))).contains("上海").doesNotContain("北京");
        }
    }

    @Test
    void shouldRetractAPartnerAndAPetWhenTheUserSaysTheyEnded() {
        final String u = T + "/u-ends";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-ends", "c-1",
                user("My boyfriend Marco and I are planning a trip to Sicily. My dog Biscuit hates the rain.", day(0))));
            assertThat(pipeline.consolidator().active(u)).extracting(Memory::getValue).contains("Marco", "Biscuit");

            pipeline.publish(conversation(T, "u-ends", "c-2",
                user("Marco and I broke up last week. Biscuit died too, it was a hard month.", day(30))));

            assertThat(pipeline.consolidator().active(u)).filteredOn(m -> m.getKey() != null)
                .extracting(Memory::getValue).doesNotContain("Marco", "Biscuit");
            assertThat(current(context(pipeline, u, "Who is my partner?"))).doesNotContain("boyfriend named Marco");
        }
    }

    /**
     * A fresh user's trial: "My cat is now called Jerry, not Tom" made no fact ("is now called" was not read as a
     * name), so Tom stayed the cat's current name in the context block.
     */
    @Test
    void shouldTellTheOldNameOnlyAsPastWhenThePetIsNowCalledSomethingElse() {
        final String u = T + "/u-tom";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-tom", "c-1", user("I have a cat named Tom.", day(0))));
            pipeline.publish(conversation(T, "u-tom", "c-2", user("My cat is now called Jerry, not Tom.", day(3))));

            assertThat(pipeline.consolidator().active(u)).filteredOn(m -> m.getKey() != null)
                .extracting(Memory::getValue).containsExactly("Jerry");
            final String block = context(pipeline, u, "What is my cat called?");
            assertThat(current(block)).contains("Has a cat named Jerry").doesNotContain("named Tom");
        }
    }

    /**
     * A fresh user's trial: "I meant Lisbon, not Lisbn" named no fact slot, so the misspelled city stayed the fact and
     * the correction one more episode. The user's correction corrects the fact in place, as {@code PUT
     * .../memories/{id}} does: same id, the value and content corrected, the old value a version, not an earlier city.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I meant Lisbon, not Lisbn.
        Sorry, I meant Lisbon.
        oops i meant lisbon
        """)
    void shouldCorrectTheMisspelledCityInPlaceWhenTheUserSaysWhatTheyMeant(final String correction) {
        final String u = T + "/u-typo";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-typo", "c-1", user("I live in Lisbn.", day(0))));
            final Memory typo = fact(pipeline, u, "city");
            pipeline.publish(conversation(T, "u-typo", "c-2", user(correction, day(0, 60))));

            assertThat(cities(pipeline, u)).as("one city, the same id").singleElement().satisfies(city -> {
                assertThat(city.getMemoryId()).isEqualTo(typo.getMemoryId());
                assertThat(city.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                assertThat(city.getValue()).isEqualTo("Lisbon");
                assertThat(city.getContent()).isEqualTo("Lives in Lisbon");
            });
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Lisbon");
            assertThat(context(pipeline, u, "Where do I live?")).contains("Lives in Lisbon").doesNotContain("Lives in Lisbn");
        }
    }

    @Test
    void shouldCorrectNothingWhenWhatTheUserMeantIsNoTypoOfAKnownValue() {
        final String u = T + "/u-meant";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-meant", "c-1", user("I live in Porto.", day(0))));
            pipeline.publish(conversation(T, "u-meant", "c-2", user("Sorry, I meant Lisbon.", day(1))));
            pipeline.publish(conversation(T, "u-meant", "c-3", user("I'm vegan, not vegetarian, and I meant it.", day(2))));

            assertThat(fact(pipeline, u, "city").getValue()).isEqualTo("Porto");
        }
    }

    /**
     * A fresh user's trial: "Where did I live before Lisbon?" is answered by a superseded fact, which the ranking of
     * the ACTIVE memories never reached. The question's "before" reaches it, told as earlier, never as current; a
     * question without such a cue still gets the current value alone.
     */
    @Test
    void shouldTellTheSupersededCityAsEarlierWhenTheQuestionAsksWhatWasBefore() {
        final String u = T + "/u-before";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-before", "c-1", user("I live in Porto.", day(0))));
            pipeline.publish(conversation(T, "u-before", "c-2", user("I work at Initech as a developer.", day(1))));
            pipeline.publish(conversation(T, "u-before", "c-3", user("I moved to Lisbon.", day(20))));

            final String before = context(pipeline, u, "Where did I live before Lisbon?");
            assertThat(current(before)).contains("Lives in Lisbon").doesNotContain("Porto");
            assertThat(before).contains(ContextBlock.EARLIER);
            assertThat(before.substring(before.indexOf(ContextBlock.EARLIER))).contains("Lives in Porto (2024-03-04 until 2024-03-24)");
            assertThat(pipeline.retrieve(u, "Where did I live previously?", 5)).extracting(h -> h.memory().getValue())
                .contains("Porto");
            assertThat(context(pipeline, u, "Where do I live?")).doesNotContain("Porto");
        }
    }

    /** One history with a move, an echo and a correction of the value alone; the memory-updated events it gives. */
    private static List<MemoryUpdated> replayOnce() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-replay", "c-1",
                user("I live in Lisbon and I work at Initech as a developer.", day(0)),
                assistant("Lisbon is lovely, and Initech sounds interesting.", day(0, 30))));
            pipeline.publish(conversation(T, "u-replay", "c-2",
                user("I moved to Porto last weekend, the river view is amazing.", day(20)),
                assistant("As you told me, you work at Initech and live in Braga.", day(20, 30))));
            final Memory employer = fact(pipeline, T + "/u-replay", "employer");
            final MemoryCommand corrected = correction(employer, null, "Hooli", T0.plus(Duration.ofDays(25)));
            pipeline.command(MemoryCommand.newBuilder(corrected).setCommandId("fixed-command-id").build());
            pipeline.advanceTo(T0.plus(Duration.ofDays(40)));
            return pipeline.updates().stream().filter(e -> e.getUserId().equals("u-replay")).toList();
        }
    }

    @Test
    void shouldMarkTheSameMemoriesWhenTheSameHistoryIsReplayed() {
        final List<MemoryUpdated> first = replayOnce();
        assertThat(first).as("the marks are there to compare").anyMatch(e -> e.getMemory() != null
            && e.getMemory().getStatus() == MemoryStatus.ACTIVE && e.getMemory().getValidTo() != null);
        assertThat(replayOnce()).isEqualTo(first);
    }

    @Test
    void shouldNeverServeACityOnlyTheAssistantSaidWhenItEchoesTheUser() {
        final String u = T + "/u-echo";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-echo", "c-1",
                user("I'm vegan and I love cooking curries.", day(0)),
                assistant("Chickpea and spinach curry is a great vegan dish.", day(0, 30))));
            pipeline.publish(conversation(T, "u-echo", "c-2",
                user("Can you plan my meals for the week?", day(7)),
                assistant("As you told me, you're vegan and live in Paris, so I picked dishes from Paris markets.",
                    day(7, 30))));

            final List<Memory> memories = pipeline.retriever().memories(u);
            assertThat(memories).as("no memory cites the echo").noneMatch(m -> m.getSources().stream()
                .anyMatch(s -> s.getConversationId().equals("c-2") && s.getMessageIndexes().contains(1)));
            assertThat(memories).noneMatch(m -> m.getContent().contains("Paris"));
            assertThat(context(pipeline, u, "Where do I live?")).doesNotContain("Paris");
            assertThat(fact(pipeline, u, "diet").getReinforcementCount()).as("an echo is no reinforcement").isEqualTo(1);
        }
    }

    @Test
    void shouldKeepOneReinforcedEmployerFactWhenTheAcronymIsRestatedInOtherWords() {
        final String u = T + "/u-nasa";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-nasa", "c-1",
                user("I work at NASA on flight software for small satellites.", day(0))));
            pipeline.publish(conversation(T, "u-nasa", "c-2",
                user("Still at NASA, still fighting with our build system, the usual.", day(50))));
            pipeline.publish(conversation(T, "u-nasa", "c-3",
                user("Our team at NASA has a launch review next week.", day(100))));

            final Memory employer = fact(pipeline, u, "employer");
            assertThat(employer.getValue()).isEqualTo("NASA");
            assertThat(employer.getReinforcementCount()).isEqualTo(3);
            assertThat(employer.getLastConfirmedAt()).isEqualTo(Instant.parse(day(100)));
            assertThat(pipeline.consolidator().active(u).stream().filter(m -> m.getKey() != null)).hasSize(1);

            pipeline.advanceTo(T0.plus(Duration.ofDays(135))); // 120-day ROLE expiry, had it counted from day 0
            assertThat(pipeline.consolidator().memory(u, employer.getMemoryId()).getStatus())
                .as("expiry counts from the last confirmation").isEqualTo(MemoryStatus.ACTIVE);
            assertThat(pipeline.consolidator().profile(u).getFacts()).containsKey("employer");
        }
    }

    /**
     * README trial, session 9: correcting "Prefers concise answers" ({@code response_style = concise}, read from "Please
     * keep answers short …") to "detailed" left that sentence current beside "Prefers detailed answers": it names the
     * value in other words ("short"), so the value rule did not mark it; it cites the message the fact was read from.
     */
    @Test
    void shouldTellTheSentenceAFactWasReadFromAsPastWhenTheFactIsCorrectedAndTheSentenceWordsTheValueOtherwise() {
        final String u = T + "/u-mira";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-mira", "mira-3",
                user("Big news: we moved to Lisbon last week.", day(0)),
                assistant("Congratulations on the move!", day(0, 20)),
                user("Please keep answers short and give me code first.", day(0, 40))));
            final Memory style = fact(pipeline, u, "response_style");
            final Memory episode = pipeline.consolidator().active(u).stream()
                .filter(m -> m.getKey() == null && m.getContent().contains("keep answers short")).findFirst()
                .orElseThrow(() -> new AssertionError("the turn's episode: " + pipeline.consolidator().active(u)));

            pipeline.command(correction(style, null, "detailed", T0.plus(Duration.ofDays(3))));

            final Memory marked = pipeline.retriever().memory(u, episode.getMemoryId());
            assertThat(marked.getStatus()).as("still what the user said").isEqualTo(MemoryStatus.ACTIVE);
            assertThat(marked.getValidTo()).isEqualTo(T0.plus(Duration.ofDays(3)));
            assertThat(marked.getSupersededBy()).isEqualTo(style.getMemoryId());
            assertThat(pipeline.retriever().memories(u).stream().filter(m -> !m.getMemoryId().equals(episode.getMemoryId())))
                .as("the rest of the conversation stays current").isNotEmpty()
                .allSatisfy(m -> assertThat(m.getValidTo()).as(m.getContent()).isNull());
            // asked in the episode's own words, so that it is surely retrieved: told as past, not as current
            final String block = context(pipeline, u, "Please keep answers short and give me code first");
            assertThat(block).contains(ContextBlock.EARLIER);
            assertThat(block.substring(block.indexOf(ContextBlock.EARLIER))).contains("keep answers short");
            assertThat(current(block)).doesNotContain("keep answers short");
        }
    }

    @Test
    void shouldRewriteTheContentCoherentlyWhenOnlyTheValueIsCorrected() {
        final String u = T + "/u-graz";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-graz", "c-1",
                user("I live in Graz, it's a small city in Austria.", day(0))));
            final Memory city = fact(pipeline, u, "city");

            pipeline.command(correction(city, null, "Linz", T0.plus(Duration.ofDays(3))));

            final Memory corrected = pipeline.retriever().memory(u, city.getMemoryId());
            assertThat(corrected.getValue()).isEqualTo("Linz");
            assertThat(corrected.getContent()).contains("Linz").doesNotContain("Graz");
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Linz");
            assertThat(pipeline.retrieve(u, "Which city do I live in?", 5)).extracting(h -> h.memory().getContent())
                .anyMatch(c -> c.contains("Linz")).noneMatch(c -> c.contains("Graz") && !c.contains("until"));
            assertThat(current(context(pipeline, u, "Which city do I live in?"))).contains("Linz").doesNotContain("Graz");

            final Memory episodeLike = Memory.newBuilder(corrected).setKey(null).setValue(null).build();
            assertThatThrownBy(() -> Corrections.resolve(episodeLike, null, "Vienna"))
                .isInstanceOf(ApiProblem.class).hasMessageContaining("\"content\"");
            final Memory unnamed = Memory.newBuilder(corrected).setContent("Home town").build();
            assertThatThrownBy(() -> Corrections.resolve(unnamed, null, "Vienna"))
                .isInstanceOf(ApiProblem.class).hasMessageContaining("\"content\"");
        }
    }

    /**
     * README trial, session 8: a correction was undone by a conversation that reached Engram after it but was dated
     * between the fact's first statement and the correction ("I live in Lodz" at 10:05, corrected to Lublin days
     * later, then the 10:05 conversation arrives): the old value came back ACTIVE and into the profile.
     */
    @Test
    void shouldKeepTheCorrectedValueWhenAConversationDatedBeforeTheCorrectionArrivesAfterIt() {
        final String u = T + "/u-lodz";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-lodz", "c-1", user("I live in Lodz.", day(0))));
            final Memory city = fact(pipeline, u, "city");
            pipeline.command(correction(city, null, "Lublin", T0.plus(Duration.ofDays(4))));

            pipeline.publish(conversation(T, "u-lodz", "c-late", user("My home is in Lodz, I live in Lodz.", day(0, 300))));

            assertThat(fact(pipeline, u, "city").getMemoryId()).as("the corrected fact stays the current one")
                .isEqualTo(city.getMemoryId());
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Lublin");
            assertThat(current(context(pipeline, u, "Which city do I live in?"))).contains("Lublin").doesNotContain("Lodz");
            assertThat(pipeline.retriever().memories(u)).as("no second city: the late statement of the value the fact "
                + "held at 10:05 is evidence of its history, as a replay (in time order, before the correction) reads it")
                .filteredOn(m -> "city".equals(m.getKey())).extracting(Memory::getMemoryId).containsExactly(city.getMemoryId());
            assertThat(fact(pipeline, u, "city").getSources()).extracting(SourceRef::getConversationId).contains("c-late");
            assertThat(pipeline.retriever().memories(u)).as("nothing current states Lodz")
                .filteredOn(m -> m.getStatus() == MemoryStatus.ACTIVE && m.getValidTo() == null)
                .noneMatch(m -> m.getContent().contains("Lodz"));

            pipeline.publish(conversation(T, "u-lodz", "c-moved", user("I moved, I live in Gdansk now.", day(5))));
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue())
                .as("a statement after the correction still supersedes it").isEqualTo("Gdansk");
        }
    }

    /**
     * User trial, session 12: a city corrected through the API (Graz → Vienna), then a conversation dated before the
     * correction arrives ("Greetings from Graz, where I live"): the late episode named the value the fact had before the
     * PUT, which nothing kept, so it was served as current beside Vienna. The corrected fact keeps its former value and
     * when it was corrected ({@code formerValues}); the late episode is born outdated at the correction, by the fact.
     */
    @Test
    void shouldTellALateConversationNamingTheValueBeforeAnApiCorrectionAsPast() {
        final String u = T + "/u-graz";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final Memory city = graz(pipeline, true);

            final Memory corrected = fact(pipeline, u, "city");
            assertThat(corrected.getValue()).isEqualTo("Vienna");
            assertThat(corrected.getFormerValues()).singleElement().satisfies(f -> {
                assertThat(f.getValue()).isEqualTo("Graz");
                assertThat(f.getCorrectedAt()).isEqualTo(T0.plus(Duration.ofDays(6)));
            });
            // and the API shows what the correction replaced (list, history, export, MCP), as the server writes it
            final com.fasterxml.jackson.databind.JsonNode view = JSON.valueToTree(ApiViews.MemoryView.of(corrected));
            assertThat(view.get("value").asText()).isEqualTo("Vienna");
            assertThat(view.get("formerValues")).singleElement().satisfies(f -> {
                assertThat(f.get("value").asText()).isEqualTo("Graz");
                assertThat(f.get("content").asText()).isEqualTo(city.getContent());
                assertThat(f.get("correctedAt").asText()).isEqualTo(day(6));
            });
            assertThat(pipeline.retriever().profile(u).getFacts().get("city").getValue()).isEqualTo("Vienna");
            final Memory late = pipeline.retriever().memories(u).stream()
                .filter(m -> m.getContent().contains("Greetings")).findFirst()
                .orElseThrow(() -> new AssertionError("the late episode: " + pipeline.retriever().memories(u)));
            assertThat(late.getStatus()).as("what the user said").isEqualTo(MemoryStatus.ACTIVE);
            assertThat(late.getValidTo()).as("born outdated at the correction").isEqualTo(T0.plus(Duration.ofDays(6)));
            assertThat(late.getSupersededBy()).isEqualTo(city.getMemoryId());
            assertThat(late.getOutdatedValues()).containsExactly("Graz");
            final String block = context(pipeline, u, "Where do I live?");
            assertThat(current(block)).contains("Vienna").doesNotContain("Graz");
            assertThat(block).contains(ContextBlock.EARLIER);
        }
    }

    /**
     * User trial, session 12: after "I love steak", "I no longer eat meat" or "I'm vegetarian now" left "Likes steak"
     * current beside the diet. A diet or a food given up takes back the likes it rules out ({@code FoodGroups}); a like
     * it does not rule out stays.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I no longer eat meat.
        I'm vegetarian now.
        I've gone vegan, it feels great.
        """)
    void shouldTakeBackAFoodLikeWhenTheUserStopsEatingIt(final String change) {
        final String u = T + "/u-steak";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-steak", "c-1", user("I love steak.", day(0)),
                user("I love chocolate too.", day(0, 60))));
            final Memory steak = fact(pipeline, u, "preference:steak");
            pipeline.publish(conversation(T, "u-steak", "c-2", user(change, day(5))));

            final Memory diet = pipeline.consolidator().active(u).stream()
                .filter(m -> "diet".equals(m.getKey()) || "avoids:meat".equals(m.getKey())).findFirst()
                .orElseThrow(() -> new AssertionError("the diet: " + pipeline.consolidator().active(u)));
            final Memory taken = pipeline.retriever().memory(u, steak.getMemoryId());
            assertThat(taken.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(taken.getSupersededBy()).isEqualTo(diet.getMemoryId());
            assertThat(taken.getValidTo()).isEqualTo(Instant.parse(day(5)));
            assertThat(pipeline.retriever().profile(u).getFacts()).doesNotContainKey("preference:steak")
                .containsKey("preference:chocolate");
            assertThat(current(context(pipeline, u, "What food do I like?"))).doesNotContain("steak");
        }
    }

    /**
     * A replay (bin/engram rebuild) orders candidates and commands by time: the late conversation before the
     * correction. The memories must come out the same as live, where it arrived after.
     */
    @Test
    void shouldEndWithTheSameMemoriesWhenTheLateConversationIsAppliedBeforeTheCorrectionAsAReplayDoes() {
        final String u = T + "/u-graz";
        final List<Memory> live;
        final List<Memory> replayed;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            graz(pipeline, true);
            live = pipeline.consolidator().memories(u);
        }
        try (PipelineHarness pipeline = new PipelineHarness()) {
            graz(pipeline, false);
            replayed = pipeline.consolidator().memories(u);
        }
        assertThat(live).as("the fact and the late episode").hasSizeGreaterThanOrEqualTo(2);
        assertThat(replayed).containsExactlyInAnyOrderElementsOf(live);
    }

    /**
     * "I live in Graz." on day 0, corrected to Vienna through the API on day 6, and a conversation of day 3 naming Graz,
     * which arrives after the correction ({@code late}) or before it (time order, as a replay applies them).
     *
     * @return the city fact as the first conversation made it
     */
    private static Memory graz(final PipelineHarness pipeline, final boolean late) {
        pipeline.publish(conversation(T, "u-graz", "c-1", user("I live in Graz.", day(0))));
        final Memory city = fact(pipeline, T + "/u-graz", "city");
        final MemoryCommand put = correction(city, null, "Vienna", T0.plus(Duration.ofDays(6)));
        if (late) {
            pipeline.command(put);
        }
        pipeline.publish(conversation(T, "u-graz", "c-late",
            user("Greetings from Graz, where I live. The weather is lovely today.", day(3)),
            user("I live in Graz, by the way.", day(3, 60))));
        if (!late) {
            pipeline.command(put);
        }
        return city;
    }

    @Test
    void shouldWriteOneUpdatePerRestatementWhenATurnMakesBothAFactAndAnEpisode() {
        final String u = T + "/u-olaf";
        final int conversations = 8;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (int d = 0; d < conversations; d++) {
                pipeline.publish(conversation(T, "u-olaf", "c-" + d,
                    user("My dog Olaf loves the beach, he runs after every wave.", day(d)),
                    assistant("Thanks, noted!", day(d, 30))));
            }
            final Memory pet = pipeline.consolidator().active(u).stream()
                .filter(m -> m.getKey() != null && m.getKey().startsWith("pet:")).findFirst()
                .orElseThrow(() -> new AssertionError("no pet fact: " + pipeline.consolidator().active(u)));
            final Memory episode = pipeline.consolidator().active(u).stream()
                .filter(m -> m.getKey() == null && m.getContent().contains("every wave")).findFirst()
                .orElseThrow(() -> new AssertionError("the turn's episode: " + pipeline.consolidator().active(u)));
            assertThat(pet.getReinforcementCount()).as("every restatement counts, on the fact").isEqualTo(conversations);
            final List<MemoryUpdated> events = pipeline.updates().stream().filter(e -> e.getUserId().equals("u-olaf"))
                .toList();
            assertThat(events.stream().filter(e -> e.getMemoryId().equals(episode.getMemoryId())))
                .as("the episode is written once, not once more per restatement").hasSize(1);
            assertThat(events.stream().filter(e -> e.getMemoryId().equals(pet.getMemoryId()))).hasSize(conversations);
        }
    }

    @Test
    void shouldKeepOneIdPerFactAndAboutOneUpdatePerConversationWhenFactsAreRestatedForFiftyDays() {
        final String u = T + "/u-churn";
        final List<List<String>> facts = List.of(
            List.of("I live in Utrecht.", "I live in Utrecht, near the canals."),
            List.of("I work at Philips.", "I work at Philips in the health division."),
            List.of("I'm vegetarian.", "I'm vegetarian, so no meat in suggestions."));
        try (PipelineHarness pipeline = new PipelineHarness()) {
            int conversations = 0;
            for (int d = 0; d < 50; d++) {
                for (int f = 0; f < facts.size(); f++) {
                    final List<String> said = facts.get(f);
                    pipeline.publish(conversation(T, "u-churn", "c-" + d + "-" + f,
                        user(said.get(d % said.size()), day(d, 3600 * f)),
                        assistant("Thanks, noted!", day(d, 3600 * f + 30))));
                    conversations++;
                }
            }
            final List<MemoryUpdated> events = pipeline.updates().stream()
                .filter(e -> e.getUserId().equals("u-churn")).toList();
            for (final String key : List.of("city", "employer", "diet")) {
                final Set<String> ids = new HashSet<>();
                events.stream().filter(e -> e.getMemory() != null && key.equals(e.getMemory().getKey()))
                    .forEach(e -> ids.add(e.getMemoryId()));
                assertThat(ids).as("ids of " + key).hasSize(1);
                assertThat(fact(pipeline, u, key).getReinforcementCount()).isEqualTo(50);
            }
            assertThat((double) events.size() / conversations).as("memory-updated per conversation").isLessThanOrEqualTo(1.2);
            assertThat(pipeline.consolidator().active(u).stream().filter(m -> m.getType() == MemoryType.EPISODIC))
                .as("a restated fact makes no episodes").isEmpty();
            assertThat(pipeline.consolidator().active(u).stream().flatMap(m -> m.getSources().stream())
                .map(SourceRef::getConversationId)).isNotEmpty();
        }
    }

    // README trial (session 9): a value differing only by case, accents, Unicode form or a zero-width character is the
    // same value; an episode naming a superseded value is past whatever its case; an assistant restating a fact is no evidence

    private static List<Memory> cities(final PipelineHarness pipeline, final String userKey) {
        return pipeline.retriever().memories(userKey).stream().filter(m -> "city".equals(m.getKey())).toList();
    }

    @Test
    void shouldKeepOneCityWhenItIsRestatedWithoutAccentsOrInCapitals() {
        final String u = T + "/u-sp";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-sp", "c-1", user("I live in São Paulo.", day(0))));
            pipeline.publish(conversation(T, "u-sp", "c-2", user("I live in Sao Paulo.", day(1))));
            pipeline.publish(conversation(T, "u-sp", "c-3", user("I live in SÃO PAULO.", day(2))));

            assertThat(cities(pipeline, u)).as("one id, reinforced").hasSize(1)
                .allSatisfy(m -> assertThat(m.getContent()).isEqualTo("Lives in São Paulo"));
        }
    }

    @Test
    void shouldReadADecomposedOrZeroWidthSplitCityAsTheComposedOne() {
        final String u = T + "/u-zh";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-zh", "c-1", user("I live in Z\u00fcrich.", day(0))));
            pipeline.publish(conversation(T, "u-zh", "c-2", user("I live in Zu\u0308rich.", day(1))));
            pipeline.publish(conversation(T, "u-zh", "c-3", user("I live in Zu\u200brich.", day(2))));

            assertThat(cities(pipeline, u)).hasSize(1).allSatisfy(m -> {
                assertThat(m.getValue()).isEqualTo("Z\u00fcrich");
                assertThat(m.getContent()).isEqualTo("Lives in Z\u00fcrich");
            });
        }
    }

    @Test
    void shouldTellTheRestOfAnEpisodeAsCurrentWhenAMoveOutdatesTheCityItNames() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            final String u = T + "/u-sushi";
            pipeline.publish(conversation(T, "u-sushi", "c-1", user("Hi, I live in Lisbon.", day(0))));
            pipeline.publish(conversation(T, "u-sushi", "c-2", user("I love sushi, any good places in Lisbon?", day(3)),
                assistant("Try Sushi Café Avenida near Marquês de Pombal.", day(3, 30))));
            pipeline.publish(conversation(T, "u-sushi", "c-3", user("I moved to Porto last week.", day(20))));

            final Memory exchange = pipeline.retriever().memories(u).stream()
                .filter(m -> m.getContent().contains("sushi")).findFirst().orElseThrow();
            assertThat(exchange.getValidTo()).as("marked by the move").isNotNull();
            assertThat(exchange.getOutdatedValues()).containsExactly("Lisbon");

            final String block = context(pipeline, u, "What food do I love?");
            assertThat(current(block)).as("the change reaches the sentence naming Lisbon, not the sushi")
                .contains("- I love sushi.\n").doesNotContain("Lisbon");
            assertThat(block.substring(block.indexOf(ContextBlock.EARLIER)))
                .contains("I love sushi, any good places in Lisbon?", "Sushi Café Avenida");

            // the API's views say the same: a search hit and the listed memory (list, panel, export, MCP) name the
            // old value and the part still current, as the server writes them
            final HybridScorer scorer = new HybridScorer(embedder, EngramConfig.defaults());
            final dev.engram.scoring.ScoredMemory hit = scorer.rank(RankRequest.of("What food do I love?", 5)
                .memories(pipeline.retriever().memories(u))).stream()
                .filter(h -> h.memory().getMemoryId().equals(exchange.getMemoryId())).findFirst().orElseThrow();
            for (final Object view : List.of(ApiViews.Hit.of(hit), ApiViews.MemoryView.of(exchange))) {
                final com.fasterxml.jackson.databind.JsonNode json = JSON.valueToTree(view);
                assertThat(json.get("outdatedValues")).as("%s", view.getClass().getSimpleName())
                    .containsExactly(JSON.getNodeFactory().textNode("Lisbon"));
                assertThat(json.get("currentPart").asText()).isEqualTo("I love sushi.");
                assertThat(json.get("validTo").isNull()).isFalse();
                assertThat(json.get("content").asText()).as("the content stays what was said")
                    .isEqualTo(exchange.getContent());
            }
            final Memory city = fact(pipeline, u, "city");
            final com.fasterxml.jackson.databind.JsonNode current = JSON.valueToTree(ApiViews.MemoryView.of(city));
            assertThat(current.get("outdatedValues")).as("a current memory").isEmpty();
            assertThat(current.get("currentPart").isNull()).isTrue();
            assertThat(current.get("formerValues")).as("never corrected in place").isEmpty();
        }
    }

    @Test
    void shouldTellALowercaseStatementOfTheOldCityAsPast() {
        final String u = T + "/u-oslo";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-oslo", "c-1", user("I live in Oslo.", day(0))));
            pipeline.publish(conversation(T, "u-oslo", "c-2", user("i live in oslo", day(1))));
            pipeline.publish(conversation(T, "u-oslo", "c-3", user("I moved to Bergen.", day(8))));

            final String block = context(pipeline, u, "Where do I live?");
            assertThat(current(block)).contains("Bergen").doesNotContainIgnoringCase("oslo");

            pipeline.publish(conversation(T, "u-oslo", "c-4", user("I no longer live in Bergen.", day(9))));
            assertThat(current(context(pipeline, u, "Where do I live?"))).doesNotContainIgnoringCase("oslo");
        }
    }

    @Test
    void shouldNotServeTheAssistantRepeatingTheOldCityAsCurrent() {
        final String u = T + "/u-berlin";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-berlin", "c-1", user("I live in Berlin.", day(0))));
            pipeline.publish(conversation(T, "u-berlin", "c-2", user("I moved to Hamburg.", day(2))));
            pipeline.publish(conversation(T, "u-berlin", "c-3", user("What should I do this weekend?", day(5)),
                assistant("You live in Berlin, so visit the Pergamon Museum.", day(5, 30))));

            assertThat(current(context(pipeline, u, "Where do I live?"))).contains("Hamburg").doesNotContain("Berlin");
            assertThat(current(context(pipeline, u, "What should I do this weekend?"))).doesNotContain("Berlin");
        }
    }

    @Test
    void shouldRetractACityTheUserTakesBackWithoutItsAccents() {
        final String u = T + "/u-sp2";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-sp2", "c-1", user("I live in São Paulo.", day(0))));
            pipeline.publish(conversation(T, "u-sp2", "c-2", user("I no longer live in Sao Paulo.", day(3))));

            assertThat(pipeline.consolidator().active(u)).noneMatch(m -> "city".equals(m.getKey()));
            assertThat(current(context(pipeline, u, "Where do I live?"))).doesNotContain("Lives in São Paulo");
        }
    }

    /**
     * A fresh user's trial: a change said as a move "from … to …", as leaving one employer and joining another, or as
     * "my new employer is …" lost the new value (the move even left no city at all). The new value is the fact served,
     * the old one history: valid until the change, superseded by the new one.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I moved from Vienna to Graz.     | city     | Graz  | Vienna  | Where do I live?
        I left Siemens and joined Bosch. | employer | Bosch | Siemens | Where do I work?
        My new employer is Bosch.        | employer | Bosch | Siemens | Where do I work?
        """)
    void shouldKeepTheNewValueAndTellTheOldAsEarlierWhenTheUserSaysAChangeInOtherWords(
        final String change, final String key, final String now, final String before, final String question) {
        final String u = T + "/u-trial";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-trial", "c-1",
                user("I live in Vienna and I work at Siemens.", T0.plus(Duration.ofHours(8)).toString())));
            pipeline.publish(conversation(T, "u-trial", "c-2", user(change, T0.plus(Duration.ofHours(9)).toString())));

            final Memory fact = fact(pipeline, u, key);
            assertThat(fact.getValue()).isEqualTo(now);
            assertThat(pipeline.retriever().memories(u)).filteredOn(m -> key.equals(m.getKey()) && before.equals(m.getValue()))
                .as("the old value is history: valid until the change, superseded by the new one").singleElement()
                .satisfies(old -> {
                    assertThat(old.getSupersededBy()).isEqualTo(fact.getMemoryId());
                    assertThat(old.getValidTo()).isEqualTo(T0.plus(Duration.ofHours(9)));
                    assertThat(MemoryTime.validAt(old, T0.plus(Duration.ofMinutes(8 * 60 + 30)))).as("asOf 08:30").isTrue();
                });
            assertThat(current(context(pipeline, u, question))).contains(now).doesNotContain(before);
        }
    }

    // A fresh user's trial (session 12): an old or unconfirmed value served as current

    /**
     * After a move, the assistant's reply names the old city ("close to your home in Lisbon") where the user did not:
     * the exchange is born outdated, told under "Earlier", never as a current past conversation.
     */
    @Test
    void shouldTellAnExchangeWhoseReplyNamesTheOldCityAsEarlierWhenItIsSaidAfterTheMove() {
        final String u = T + "/u-cafe";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-cafe", "c-1", user("I live in Lisbon.", day(0))));
            pipeline.publish(conversation(T, "u-cafe", "c-2", user("I moved to Porto last week.", day(10))));
            pipeline.publish(conversation(T, "u-cafe", "c-3", user("Can you recommend a cafe near my place?", day(15)),
                assistant("Sure, try Cafe A Brasileira in Lisbon, close to your home in Lisbon.", day(15, 30))));

            final Memory exchange = pipeline.retriever().memories(u).stream()
                .filter(m -> m.getContent().contains("Brasileira")).findFirst()
                .orElseThrow(() -> new AssertionError("the exchange: " + pipeline.retriever().memories(u)));
            assertThat(exchange.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(exchange.getOutdatedValues()).containsExactly("Lisbon");
            assertThat(exchange.getValidTo()).as("born outdated: never current").isEqualTo(exchange.getValidFrom());
            final String block = context(pipeline, u, "where do I live?");
            assertThat(current(block)).contains("Lives in Porto").doesNotContain("Lisbon");
        }
    }

    /**
     * A conversation dated before a move that arrives after it is history, not current (docs/api.md): the late episode
     * ends up as if it had come in order, outdated at the move by the newer city.
     */
    @Test
    void shouldMarkALateConversationAsItWouldHaveBeenMarkedInOrderWhenANewerConversationMovedTheUser() {
        final List<String> conversations = List.of("c-1", "c-late", "c-2");
        final Memory inOrder = lateEpisode(List.of("c-1", "c-late", "c-2"));
        final Memory late = lateEpisode(List.of("c-1", "c-2", "c-late"));
        assertThat(inOrder.getValidTo()).isEqualTo(Instant.parse(day(5)));
        assertThat(late).as("arrival order " + conversations).isEqualTo(inOrder);
    }

    private static Memory lateEpisode(final List<String> order) {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (final String c : order) {
                pipeline.publish(switch (c) {
                    case "c-1" -> conversation(T, "u-vie", c, user("I live in Vienna.", day(0)));
                    case "c-2" -> conversation(T, "u-vie", c, user("I moved to Salzburg.", day(5)));
                    default -> conversation(T, "u-vie", c, user("Greetings from Vienna, where I live.", day(2)));
                });
            }
            final String u = T + "/u-vie";
            assertThat(current(context(pipeline, u, "Where do I live?"))).contains("Salzburg").doesNotContain("Vienna");
            return pipeline.retriever().memories(u).stream().filter(m -> m.getContent().contains("Greetings"))
                .findFirst().orElseThrow(() -> new AssertionError("the late episode: " + pipeline.retriever().memories(u)));
        }
    }

    /**
     * The assistant's claim about the user ("Noted: you work at SAP …") is not the user's fact, confirmed or not: it
     * was stored as the user's exchange and was the only answer to "Where do I work?".
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        Yes, that is right.
        Hmm, what time is it?
        """)
    void shouldNotServeTheAssistantsClaimAboutTheUserAsTheUsersWords(final String answer) {
        final String u = T + "/u-sap";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-sap", "c-1",
                user("Please remember a few things about me.", day(0)),
                assistant("Noted: you work at SAP and you are allergic to peanuts.", day(0, 20)),
                user(answer, day(0, 40))));

            assertThat(pipeline.retriever().memories(u)).as("nothing cites the claim")
                .noneMatch(m -> m.getContent().contains("SAP"));
            assertThat(context(pipeline, u, "Where do I work?")).doesNotContain("SAP");
        }
    }

    private static Memory episode(final PipelineHarness pipeline, final String userKey, final String content) {
        return pipeline.retriever().memories(userKey).stream()
            .filter(m -> m.getKey() == null && m.getContent().equals(content)).findFirst()
            .orElseThrow(() -> new AssertionError("no episode '" + content + "' among " + pipeline.retriever().memories(userKey)));
    }

    private static List<String> activeKeys(final PipelineHarness pipeline, final String userKey) {
        return pipeline.consolidator().active(userKey).stream().map(Memory::getKey).filter(k -> k != null).toList();
    }


    /**
     * "I'm not allergic to peanuts anymore" negated {@code allergy:peanut}, but the episode saying "I'm allergic to
     * peanuts" was served as current, its current part dropping only the outdated age: the fact keeps the item in
     * the singular, the user said it in the plural.
     */
    @Test
    void shouldTellAWithdrawnAllergyOnlyAsPastInTheEpisodeThatSaidIt() {
        final String u = T + "/u-peanuts";
        final String said = "I have a dog. I'm allergic to peanuts. I'm 30 years old. I work at Erste Bank.";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-peanuts", "c-1", user(said, day(0))));
            pipeline.publish(conversation(T, "u-peanuts", "c-2", user("I'm 31 now.", day(2))));
            pipeline.publish(conversation(T, "u-peanuts", "c-3", user("I'm not allergic to peanuts anymore.", day(4))));

            assertThat(activeKeys(pipeline, u)).doesNotContain("allergy:peanut").contains("employer", "pet:dog");
            final Memory episode = episode(pipeline, u, said);
            assertThat(episode.getStatus()).as("still what the user said").isEqualTo(MemoryStatus.ACTIVE);
            assertThat(episode.getOutdatedValues()).contains("30", "peanut");
            final String block = context(pipeline, u, "What am I allergic to?");
            assertThat(current(block)).as(block).doesNotContain("I'm allergic to peanuts").contains("I work at Erste Bank")
                .contains("I'm not allergic to peanuts anymore");
            assertThat(block).contains(ContextBlock.EARLIER);
        }
    }

    /**
     * "My doctor stopped the metformin, I take insulin now. …" was born outdated (validFrom = validTo, listed under
     * "Earlier, no longer current (2026-11-28 until 2026-11-28)"): a negation has no new fact citing its message, so
     * the message that made it was marked for naming the value it took back.
     */
    @Test
    void shouldKeepTheMessageThatMadeTheChangesCurrent() {
        final String u = T + "/u-insulin";
        final String change = "My doctor stopped the metformin, I take insulin now. Sadly Rex died; we adopted a cat called Luna.";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-insulin", "c-1", user("I take metformin. I have a dog named Rex.", day(0))));
            pipeline.publish(conversation(T, "u-insulin", "c-2", user(change, day(8))));

            assertThat(activeKeys(pipeline, u)).contains("medication:insulin", "pet:luna")
                .doesNotContain("medication:metformin", "pet:rex");
            final Memory told = episode(pipeline, u, change);
            assertThat(told.getValidTo()).as("the message telling the change is current").isNull();
            assertThat(told.getOutdatedValues()).isEmpty();
            final String block = context(pipeline, u, "What medication do I take?");
            assertThat(block.substring(block.indexOf(ContextBlock.EARLIER) + 1)).as(block).doesNotContain("I take insulin now");
            assertThat(episode(pipeline, u, "I take metformin. I have a dog named Rex.").getValidTo())
                .as("the earlier message is past").isEqualTo(Instant.parse(day(8)));
        }
    }

    /** "I have a dog." then "I don't have a dog anymore." left {@code pet:dog} "Has a pet dog" ACTIVE. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"I don't have a dog anymore.", "I no longer have a dog.", "Our old dog died last winter."})
    void shouldRetractAnUnnamedPetTheUserNoLongerHas(final String gone) {
        final String u = T + "/u-dog";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-dog", "c-1", user("I have a dog.", day(0))));
            assertThat(activeKeys(pipeline, u)).contains("pet:dog");
            pipeline.publish(conversation(T, "u-dog", "c-2", user(gone, day(3))));

            assertThat(activeKeys(pipeline, u)).doesNotContain("pet:dog");
            assertThat(current(context(pipeline, u, "Do I have any pets?"))).doesNotContain("Has a pet dog");
            assertThat(episode(pipeline, u, gone).getValidTo()).as("what the user said of it stays current").isNull();
        }
    }

    /**
     * "I'm no longer allergic to penicillin. I stopped taking aspirin." as a first message stored nothing: every
     * sentence was a retraction, which made no episode, and retracted nothing. The words are kept as an episode; no
     * negated fact is (a "not allergic to penicillin" in the allergy's slot could be read as the value a later "I'm
     * allergic to penicillin" restates, and hide it), so the later allergy is a fact.
     */
    @Test
    void shouldKeepTheMessageWhenARetractionHasNothingToRetract() {
        final String u = T + "/u-first";
        final String said = "I'm no longer allergic to penicillin. I stopped taking aspirin.";
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation(T, "u-first", "c-1", user(said, day(0))));

            final Memory kept = episode(pipeline, u, said);
            assertThat(kept.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            assertThat(kept.getValidTo()).isNull();
            assertThat(activeKeys(pipeline, u)).isEmpty();
            assertThat(current(context(pipeline, u, "Am I allergic to penicillin?"))).contains(said);

            pipeline.publish(conversation(T, "u-first", "c-2", user("I'm allergic to penicillin after all.", day(5))));
            assertThat(activeKeys(pipeline, u)).contains("allergy:penicillin");
        }
    }

    /**
     * A wished-for or hypothetical place became a place visited: "If I moved to Paris I would learn French." and "I
     * would love to visit Tokyo someday, and maybe Seoul if I ever get the time." gave "Places visited: Paris, Tokyo."
     * (INFERRED) for "Have I been to Paris?", and a move gave "Munich, Paris".
     */
    @Test
    void shouldListNoPlaceVisitedThatTheUserOnlyWishedForOrMovedTo() {
        final String u = T + "/u-paris";
        try (PipelineHarness pipeline = PipelineHarness.builder().observations(embedder).build()) {
            pipeline.publish(conversation(T, "u-paris", "c-1", user("If I moved to Paris I would learn French.", day(0))));
            pipeline.publish(conversation(T, "u-paris", "c-2",
                user("I would love to visit Tokyo someday, and maybe Seoul if I ever get the time.", day(1))));
            pipeline.publish(conversation(T, "u-paris", "c-3", user("I moved to Munich.", day(2))));
            pipeline.advanceTo(Instant.parse(day(3))); // the observations and topic lists regrouped
            assertThat(context(pipeline, u, "Have I been to Paris?")).doesNotContain("Places visited");

            pipeline.publish(conversation(T, "u-paris", "c-4", user("I was in Vienna last week and we went to Prague.", day(3))));
            pipeline.advanceTo(Instant.parse(day(4)));
            assertThat(pipeline.retriever().memories(u)).filteredOn(m -> m.getContent().startsWith("Places visited"))
                .extracting(Memory::getContent).as("the visited fact first, then the episode's place")
                .containsExactly("Places visited: Prague, Vienna.");
        }
    }
}
