package dev.engram.topology;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static dev.engram.topology.FedCandidates.episodic;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.consolidation.Observations;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Observations of the consolidation pass ({@link Observations}) on TopologyTestDriver with the real default
 * embedder: a user's statements on one topic, said in different conversations, are stated together in one
 * observation citing all their messages; unrelated statements are not; the observation is rewritten when a
 * statement joins, left alone when nothing changed, rewritten at once without a statement the user deletes,
 * never a dedup target, and not written again after the user deleted it. Replay determinism: users whose statements
 * changed are regrouped on the wall clock without stream time advancing, and two interleavings of the same records
 * with a later-stamped access record end with identical memories.
 */
class ObservationsTest {

    private static final String MIRA = "t1/u-mira";
    private static final Instant T0 = Instant.parse("2025-03-01T09:00:00Z");
    private static final List<String> CAMPING = List.of(
        "Mira went camping at the beach with her kids.",
        "Mira camped in the mountains with her family last summer.",
        "Mira loves camping in the forest and sleeping in a tent.");
    private static final List<String> UNRELATED = List.of(
        "Mira works as a nurse at the city hospital.",
        "Mira is learning to bake sourdough bread.");

    private static String at(final int days) {
        return T0.plus(Duration.ofDays(days)).toString();
    }

    private static String hour(final int hours) {
        return T0.plus(Duration.ofHours(hours)).toString();
    }

    private static PipelineHarness harness() {
        return PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults()).build();
    }

    /** One statement per conversation, an hour apart on day 0: camping in c-0…c-2, the unrelated ones in c-3, c-4. */
    private static List<MemoryCandidate> said() {
        final List<MemoryCandidate> out = new java.util.ArrayList<>();
        for (int i = 0; i < CAMPING.size(); i++) {
            out.add(episodic(MIRA, "c-" + i, hour(i), CAMPING.get(i)));
        }
        for (int i = 0; i < UNRELATED.size(); i++) {
            out.add(episodic(MIRA, "c-" + (CAMPING.size() + i), hour(3 + i), UNRELATED.get(i)));
        }
        return out;
    }

    /** A grouped observation: not a topic list, which the same pass writes from the same statements (TopicLists). */
    private static boolean grouped(final Memory m) {
        return m != null && Observations.isObservation(m) && !ExtractedMemory.isTopicList(m.getType(), m.getDisplayName());
    }

    private static List<Memory> observations(final PipelineHarness driver) {
        return driver.consolidator().memories(MIRA).stream().filter(ObservationsTest::grouped).toList();
    }

    private static List<MemoryUpdated> observationEvents(final PipelineHarness driver) {
        return driver.updates().stream().filter(u -> grouped(u.getMemory()))
            .toList();
    }

    @Test
    void shouldStateTheStatementsOfOneTopicTogetherInOneObservationThatCitesEveryMessage() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            assertThat(observations(driver)).as("written by the daily pass, not at once").isEmpty();

            driver.advanceTo(T0.plus(Duration.ofDays(7)));

            assertThat(observations(driver)).singleElement().satisfies(o -> {
                assertThat(o.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
                assertThat(o.getType()).isEqualTo(MemoryType.SEMANTIC);
                assertThat(o.getSource()).isEqualTo(MemorySource.INFERRED);
                assertThat(o.getDisplayName()).isEqualTo(ExtractedMemory.OBSERVATION_DISPLAY_NAME);
                assertThat(o.getContent()).contains(CAMPING).doesNotContain(UNRELATED);
                assertThat(o.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1", "c-2");
                assertThat(o.getEmbedding()).hasSize(384);
                assertThat(o.getEmbeddingModel()).isEqualTo(ScriptRoutedEmbedder.defaults().modelName());
                assertThat(o.getCreatedAt()).isEqualTo(Instant.parse(hour(2)));
            });
            assertThat(driver.consolidator().active(MIRA)).filteredOn(m -> !ExtractedMemory.isTopicList(m.getType(), m.getDisplayName()))
                .as("the statements stay").hasSize(6);
            assertThat(driver.retriever().memories(MIRA)).filteredOn(ObservationsTest::grouped).hasSize(1);
            final List<ScoredMemory> hits = driver.retrieve(MIRA, "Where has Mira camped?", 3);
            assertThat(hits).extracting(h -> h.memory().getDisplayName()).contains(ExtractedMemory.OBSERVATION_DISPLAY_NAME);
        }
    }

    @Test
    void shouldGiveAnObservationTheCentroidOfItsStatementsVectorsWithoutEmbeddingItsTextWhenRegrouped() {
        final Embedder model = ScriptRoutedEmbedder.defaults();
        final List<String> embedded = new java.util.concurrent.CopyOnWriteArrayList<>();
        final Embedder recording = new Embedder() {
            @Override
            public String modelName() {
                return model.modelName();
            }

            @Override
            public int dimensions() {
                return model.dimensions();
            }

            @Override
            public List<String> models() {
                return model.models();
            }

            @Override
            public String modelFor(final String text) {
                return model.modelFor(text);
            }

            @Override
            public List<float[]> embedAll(final List<String> texts) {
                embedded.addAll(texts);
                return model.embedAll(texts);
            }
        };
        try (PipelineHarness driver = PipelineHarness.builder().observations(recording).build()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));

            final Memory observation = observations(driver).get(0);
            final double[] sum = new double[model.dimensions()];
            for (final Memory m : driver.consolidator().active(MIRA)) {
                if (CAMPING.contains(m.getContent())) {
                    final float[] v = Vectors.normalized(Vectors.toArray(m.getEmbedding()));
                    for (int i = 0; i < sum.length; i++) {
                        sum[i] += v[i];
                    }
                }
            }
            final float[] expected = new float[sum.length];
            for (int i = 0; i < sum.length; i++) {
                expected[i] = (float) sum[i];
            }
            final float[] actual = Vectors.toArray(observation.getEmbedding());
            assertThat(Vectors.cosine(actual, expected)).as("the direction of the statements' centroid")
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(Vectors.dot(actual, actual)).as("a unit vector").isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
            assertThat(Vectors.cosine(actual, model.embed(observation.getContent()))).as("not the model's vector of the text")
                .isLessThan(0.9999);
            assertThat(embedded).as("the consolidator embeds no observation text").doesNotContain(observation.getContent());
        }
    }

    @Test
    void shouldLeaveAnUnchangedObservationAloneAndRewriteItWhenAStatementJoins() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            final Memory first = observations(driver).get(0);
            driver.advanceTo(T0.plus(Duration.ofDays(9)));
            assertThat(observationEvents(driver)).as("two passes, one write").hasSize(1);

            final String more = "Mira went camping by the lake and cooked over a campfire.";
            driver.pipe(episodic(MIRA, "c-9", at(10), more));
            driver.advanceTo(T0.plus(Duration.ofDays(12)));

            assertThat(observationEvents(driver)).hasSize(2).last().satisfies(u -> {
                assertThat(u.getOperation()).isEqualTo(UpdateOperation.CREATED);
                assertThat(u.getMemoryId()).isEqualTo(first.getMemoryId());
                assertThat(u.getMemory().getContent()).contains(CAMPING).contains(more);
                assertThat(u.getMemory().getSources()).extracting(SourceRef::getConversationId).contains("c-9");
            });
        }
    }

    @Test
    void shouldRewriteTheObservationAtOnceWithoutAStatementTheUserDeletes() {
        try (PipelineHarness driver = harness()) {
            final String lake = "Mira went camping by the lake and cooked over a campfire.";
            final MemoryCandidate taken = episodic(MIRA, "c-9", hour(6), lake);
            final List<MemoryCandidate> said = new java.util.ArrayList<>(said());
            said.add(taken);
            driver.pipe(said.toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            final Memory observation = observations(driver).get(0);
            assertThat(observation.getContent()).contains(lake);

            driver.command(delete(taken.getCandidateId(), hour(7 * 24 + 1)));

            assertThat(driver.updates()).filteredOn(u -> u.getMemoryId().equals(observation.getMemoryId()))
                .extracting(MemoryUpdated::getOperation).containsExactly(UpdateOperation.CREATED, UpdateOperation.CREATED);
            assertThat(observations(driver)).as("rewritten by the command's own transaction").singleElement()
                .satisfies(o -> {
                    assertThat(o.getMemoryId()).isEqualTo(observation.getMemoryId());
                    assertThat(o.getContent()).contains(CAMPING).doesNotContain(lake);
                    assertThat(o.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1", "c-2");
                });
            assertThat(driver.retriever().memories(MIRA)).noneMatch(m -> m.getContent().contains(lake));
        }
    }

    @Test
    void shouldStateOnlyWhatIsStillCurrentOfAnEpisodeWhoseCityMovedAndNeverTheOldCityAsCurrent() {
        // an episode naming the city beside a lasting taste: after the move its observation (regrouped at once) keeps
        // the taste and no longer says the user lives in Porto
        final String porto = "I live in Porto. Old jazz records from the fifties keep me company every evening.";
        final List<String> jazz = List.of("I spend my evenings listening to old jazz records with my headphones.",
            "Coltrane's A Love Supreme was spinning on my record player all weekend.");
        try (PipelineHarness driver = harness()) {
            driver.publish(conversation("t1", "u-mira", "c-1", user(porto, hour(0))));
            for (int i = 0; i < jazz.size(); i++) {
                driver.publish(conversation("t1", "u-mira", "c-" + (2 + i), user(jazz.get(i), hour(1 + i))));
            }
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            assertThat(observations(driver)).as("the episode grouped whole while Porto is current")
                .anySatisfy(o -> assertThat(o.getContent()).contains(porto));

            driver.publish(conversation("t1", "u-mira", "c-9", user("I moved to Lisbon last month.", at(8))));

            final Memory episode = driver.consolidator().memories(MIRA).stream()
                .filter(m -> porto.equals(m.getContent())).findFirst().orElseThrow();
            assertThat(episode.getValidTo()).as("marked by the move").isNotNull();
            assertThat(episode.getOutdatedValues()).containsExactly("Porto");
            assertThat(observations(driver)).as("regrouped at once, the part still current kept")
                .allSatisfy(o -> assertThat(o.getContent()).doesNotContain("Porto"))
                .anySatisfy(o -> assertThat(o.getContent())
                    .contains("Old jazz records from the fifties keep me company every evening.").contains(jazz.get(0)));
            assertThat(driver.retriever().memories(MIRA)).filteredOn(m -> Observations.isObservation(m)
                && m.getStatus() == MemoryStatus.ACTIVE).noneMatch(m -> m.getContent().contains("Porto"));
            driver.advanceTo(T0.plus(Duration.ofDays(12)));
            assertThat(observations(driver)).as("and the next pass agrees")
                .noneMatch(o -> o.getContent().contains("Porto"));
        }
    }

    @Test
    void shouldNeverReinforceAnObservationWithACandidate() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            final Memory observation = observations(driver).get(0);

            // its whole content said again: the statements are the dedup targets, never the observation
            driver.pipe(episodic(MIRA, "c-20", at(8), observation.getContent()));

            assertThat(driver.updates()).filteredOn(u -> u.getMemoryId().equals(observation.getMemoryId()))
                .extracting(MemoryUpdated::getOperation).doesNotContain(UpdateOperation.REINFORCED);
            assertThat(driver.updates()).filteredOn(u -> u.getOperation() == UpdateOperation.REINFORCED)
                .allSatisfy(u -> assertThat(Observations.isObservation(u.getMemory())).isFalse());
        }
    }

    @Test
    void shouldRewriteTheObservationOnTheWallClockWithoutEmbeddingInThePassWhenThePassArchivesAStaleStatement() {
        try (PipelineHarness driver = harness()) {
            // two camping statements that stay, one unimportant remark that goes stale after 90 days unused
            driver.pipe(episodic(MIRA, "c-0", hour(0), CAMPING.get(0)), episodic(MIRA, "c-1", hour(1), CAMPING.get(1)),
                MemoryCandidate.newBuilder(episodic(MIRA, "c-2", hour(2), CAMPING.get(2))).setImportance(0.35).build());
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            final Memory before = observations(driver).get(0);
            assertThat(before.getContent()).contains(CAMPING);

            driver.access("t1/u-clock", T0.plus(Duration.ofDays(91))); // stream time only: the pass, no wall clock
            assertThat(driver.consolidator().memories(MIRA)).filteredOn(m -> m.getContent().equals(CAMPING.get(2)))
                .singleElement().extracting(Memory::getStatus).isEqualTo(MemoryStatus.ARCHIVED);
            assertThat(observations(driver)).as("the pass embeds nothing: the rewrite is left to the wall clock")
                .containsExactly(before);

            driver.advanceWallClock(Duration.ofMillis(EngramConfig.defaults().getLong(DomainConfig.OBSERVE_INTERVAL_MS)));
            assertThat(observations(driver)).singleElement().satisfies(o -> {
                assertThat(o.getMemoryId()).isEqualTo(before.getMemoryId());
                assertThat(o.getContent()).contains(CAMPING.get(0), CAMPING.get(1)).doesNotContain(CAMPING.get(2));
                assertThat(o.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-0", "c-1");
                assertThat(o.getEmbedding()).hasSize(384).isNotEqualTo(before.getEmbedding());
            });
        }
    }

    @Test
    void shouldRegroupOnceTheInputIsQuietWhenTheQuietTriggerIsSetAndEndWithTheSameObservations() {
        final Map<String, Object> slow = Map.of(DomainConfig.OBSERVE_INTERVAL_MS, 60_000L);
        final Map<String, Object> quietToo = Map.of(DomainConfig.OBSERVE_INTERVAL_MS, 60_000L,
            DomainConfig.OBSERVE_QUIET_MS, 200L);
        try (PipelineHarness onInterval = PipelineHarness.builder().config(slow)
                 .observations(ScriptRoutedEmbedder.defaults()).build();
             PipelineHarness onQuiet = PipelineHarness.builder().config(quietToo)
                 .observations(ScriptRoutedEmbedder.defaults()).build()) {
            for (final PipelineHarness driver : List.of(onInterval, onQuiet)) {
                driver.pipe(said().toArray(MemoryCandidate[]::new));
                driver.advanceWallClock(Duration.ofMillis(100));
                assertThat(observations(driver)).as("input quiet for 100 ms: not yet").isEmpty();
                driver.advanceWallClock(Duration.ofMillis(50));
                assertThat(observations(driver)).as("quiet for 150 ms, looked at every 50 ms: not yet").isEmpty();
                driver.advanceWallClock(Duration.ofMillis(50));
            }
            assertThat(observations(onQuiet)).as("the look at 200 ms (a quarter of lifecycle.observe.quiet.ms apart) finds "
                + "no record since the look before and the input quiet for lifecycle.observe.quiet.ms").hasSize(1);
            assertThat(observations(onInterval)).as("only on the 60-s interval").isEmpty();

            onInterval.advanceWallClock(Duration.ofSeconds(60));
            assertThat(observations(onInterval)).as("the same observation on either schedule")
                .isEqualTo(observations(onQuiet));
        }
    }

    /** Ten topics, three statements each: more groups than one capped regrouping rewrites. */
    private static final List<List<String>> TOPICS = List.of(
        List.of("Mira plays the piano every evening.", "Mira practices the piano every evening after dinner.",
            "Mira loves playing the piano in the evening."),
        List.of("Mira has a golden retriever named Max.", "Mira walks her golden retriever Max every morning.",
            "Mira's golden retriever Max loves the park."),
        List.of("Mira bakes sourdough bread on Sundays.", "Mira baked a loaf of sourdough bread this Sunday.",
            "Mira keeps a sourdough starter to bake bread on Sundays."),
        List.of("Mira is training for the Boston marathon.", "Mira ran twenty miles to train for the Boston marathon.",
            "Mira hopes to finish the Boston marathon in under four hours."),
        List.of("Mira paints watercolor landscapes.", "Mira painted a watercolor landscape of the lake.",
            "Mira sells her watercolor landscape paintings at the market."),
        List.of("Mira grows tomatoes in her vegetable garden.", "Mira harvested tomatoes from her vegetable garden.",
            "Mira waters the tomatoes in her vegetable garden daily."),
        List.of("Mira is learning Spanish with an online tutor.", "Mira takes Spanish lessons with her online tutor.",
            "Mira practiced Spanish conversation with her tutor online."),
        List.of("Mira reads mystery novels before bed.", "Mira finished another mystery novel before bed.",
            "Mira loves reading Agatha Christie mystery novels at night."),
        List.of("Mira cycles to work on her road bike.", "Mira rode her road bike to work in the rain.",
            "Mira commutes to work by road bike every day."),
        List.of("Mira collects vintage vinyl records.", "Mira bought a vintage vinyl record of Miles Davis.",
            "Mira's vintage vinyl record collection fills a shelf."));

    /** The TOPICS' statements, each in a conversation of its own, an hour apart. */
    private static MemoryCandidate[] manyTopics() {
        final List<MemoryCandidate> out = new java.util.ArrayList<>();
        for (int t = 0; t < TOPICS.size(); t++) {
            for (int i = 0; i < TOPICS.get(t).size(); i++) {
                final int n = t * TOPICS.get(t).size() + i;
                out.add(episodic(MIRA, "c-" + n, hour(n), TOPICS.get(t).get(i)));
            }
        }
        return out.toArray(MemoryCandidate[]::new);
    }

    private static boolean pending(final PipelineHarness driver) {
        return driver.consolidationDriver().<String, Long>getKeyValueStore(StoreNames.OBSERVATION_PENDING).get(MIRA) != null;
    }

    @Test
    void shouldRegroupAUserCompletelyInOneQuietPunctuationWhenMoreObservationsChangeThanOnePunctuationRewritesOtherwise() {
        final Map<String, Object> quietToo = Map.of(DomainConfig.OBSERVE_INTERVAL_MS, 60_000L,
            DomainConfig.OBSERVE_QUIET_MS, 200L);
        final Duration interval = Duration.ofMillis(EngramConfig.defaults().getLong(DomainConfig.OBSERVE_INTERVAL_MS));
        try (PipelineHarness onInterval = harness();
             PipelineHarness onQuiet = PipelineHarness.builder().config(quietToo)
                 .observations(ScriptRoutedEmbedder.defaults()).build()) {
            onInterval.pipe(manyTopics());
            onInterval.advanceWallClock(interval);
            final int firstRound = observations(onInterval).size();
            assertThat(pending(onInterval)).as("while records may still stream in, a punctuation rewrites at most "
                + ObservationRegroups.MAX_RETEXTED_PER_USER + " observations of a user and leaves the rest").isTrue();

            onQuiet.pipe(manyTopics());
            onQuiet.advanceWallClock(Duration.ofMillis(250)); // the first look after the last record is never quiet
            onQuiet.advanceWallClock(Duration.ofMillis(200));
            assertThat(pending(onQuiet)).as("quiet input: the user regrouped completely at once").isFalse();
            assertThat(observations(onQuiet).size()).isGreaterThan(firstRound);
            final long quietWrites = observationEvents(onQuiet).size();

            int rounds = 1;
            while (pending(onInterval) && rounds < 20) {
                onInterval.advanceWallClock(interval);
                rounds++;
            }
            assertThat(rounds).as("punctuations the capped schedule took").isGreaterThan(1);
            assertThat(observations(onInterval)).as("the same observations on either schedule")
                .isEqualTo(observations(onQuiet));
            assertThat(quietWrites).as("one write per observation, not one per round")
                .isEqualTo(observations(onQuiet).size());
        }
    }

    @Test
    void shouldNotWriteAnObservationTheUserDeletedAgain() {
        try (PipelineHarness driver = harness()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            final Memory observation = observations(driver).get(0);

            driver.command(delete(observation.getMemoryId(), at(8)));
            driver.pipe(episodic(MIRA, "c-9", at(10), "Mira went camping by the lake and cooked over a campfire."));
            driver.advanceTo(T0.plus(Duration.ofDays(12)));

            assertThat(driver.consolidator().memory(MIRA, observation.getMemoryId()).getStatus()).isEqualTo(MemoryStatus.DELETED);
            assertThat(driver.retriever().memories(MIRA)).filteredOn(ObservationsTest::grouped).isEmpty();
        }
    }

    @Test
    void shouldLeaveOutOfTheHitsAStatementThatAnObservationRankedAboveItStatesWordForWord() {
        try (PipelineHarness driver = harness();
             PipelineHarness keeping = PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults())
                 .config(Map.of(DomainConfig.OBSERVE_THRESHOLD, 0.48, DomainConfig.SKIP_OBSERVED, false)).build()) {
            for (final PipelineHarness d : List.of(driver, keeping)) {
                d.pipe(said().toArray(MemoryCandidate[]::new));
                d.advanceTo(T0.plus(Duration.ofDays(7)));
            }
            final String question = "Where did Mira go camping with her family?";

            final List<ScoredMemory> hits = driver.retrieve(MIRA, question, 4);
            final List<ScoredMemory> kept = keeping.retrieve(MIRA, question, 4);

            final int at = indexOfObservation(hits);
            assertThat(at).as("the observation is a hit").isNotNegative();
            final String stated = hits.get(at).memory().getContent();
            assertThat(hits.subList(at + 1, hits.size())).extracting(h -> h.memory().getContent())
                .noneMatch(stated::contains);
            final int keptAt = indexOfObservation(kept);
            assertThat(kept.subList(keptAt + 1, kept.size())).extracting(h -> h.memory().getContent())
                .as("with retrieval.skip.observed=false its statements follow it").anyMatch(stated::contains);
        }
    }

    @Test
    void shouldRankAnObservationAsItsBestMatchingStatementWhenItsAverageVectorMatchesTheQuestionLess() {
        final List<String> camping = List.of(
            "Mira went camping at the beach with her kids.",
            "Mira camped in the mountains with her family last summer.",
            "Mira loves camping in the forest and sleeping in a tent.",
            "Mira and her kids roasted marshmallows over the campfire while camping.",
            "Mira bought a new four-person tent for camping trips.");
        final String question = "What size of tent did Mira buy?";
        try (PipelineHarness driver = harness()) {
            for (int i = 0; i < camping.size(); i++) {
                driver.pipe(episodic(MIRA, "c-" + i, hour(i), camping.get(i)));
            }
            for (int i = 0; i < UNRELATED.size(); i++) {
                driver.pipe(episodic(MIRA, "c-" + (camping.size() + i), hour(camping.size() + i), UNRELATED.get(i)));
            }
            driver.advanceTo(T0.plus(Duration.ofDays(7)));
            assertThat(observations(driver)).singleElement().satisfies(o -> assertThat(o.getContent()).contains(camping));
            final List<Memory> memories = driver.retriever().memories(MIRA);
            final HybridScorer lifting = new HybridScorer(ScriptRoutedEmbedder.defaults(), EngramConfig.defaults());
            final HybridScorer averaging = new HybridScorer(ScriptRoutedEmbedder.defaults(),
                EngramConfig.defaults().with(Map.of(DomainConfig.OBSERVATION_LIFT, false)));

            final List<ScoredMemory> hits = lifting.rank(RankRequest.of(question, 10).memories(memories));
            final List<ScoredMemory> plain = averaging.rank(RankRequest.of(question, 10).memories(memories));

            final ScoredMemory statement = plain.stream().filter(h -> h.memory().getContent().equals(camping.get(4)))
                .findFirst().orElseThrow();
            final int at = indexOfObservation(hits);
            assertThat(at).as("the observation is a hit").isNotNegative();
            assertThat(hits.get(at).semantic()).as("its best statement's relevance").isEqualTo(statement.semantic());
            final int plainAt = indexOfObservation(plain);
            assertThat(plainAt).as("a hit without the lift too").isNotNegative();
            assertThat(plain.get(plainAt).semantic()).as("its own averaged vector matches the question less")
                .isLessThan(statement.semantic());
            assertThat(hits.get(at).score()).as("lifted, it scores higher").isGreaterThan(plain.get(plainAt).score());
            final List<ScoredMemory> context = lifting.rank(RankRequest.of(question, 10).memories(memories).forContext());
            assertThat(context.get(indexOfObservation(context)).semantic()).as("a context block ranks it as it is")
                .isEqualTo(plain.get(plainAt).semantic());
        }
    }

    private static int indexOfObservation(final List<ScoredMemory> hits) {
        for (int i = 0; i < hits.size(); i++) {
            if (grouped(hits.get(i).memory())) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void shouldWriteNoObservationsWhenTheThresholdIsOne() {
        try (PipelineHarness driver = PipelineHarness.builder().observations(ScriptRoutedEmbedder.defaults())
                .config(Map.of(DomainConfig.OBSERVE_THRESHOLD, 1.0)).build()) {
            driver.pipe(said().toArray(MemoryCandidate[]::new));
            driver.advanceTo(T0.plus(Duration.ofDays(7)));

            assertThat(observations(driver)).isEmpty();
        }
    }

    private static MemoryCommand delete(final String memoryId, final String issuedAt) {
        return MemoryCommand.newBuilder().setCommandId("delete-" + memoryId).setTenantId("t1").setUserId("u-mira")
            .setKind(CommandKind.DELETE).setMemoryId(memoryId).setContent(null).setValue(null)
            .setMemoryEnabled(null).setActor("test").setIssuedAt(Instant.parse(issuedAt)).build();
    }
}
