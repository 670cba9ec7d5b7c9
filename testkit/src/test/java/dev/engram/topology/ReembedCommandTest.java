package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.CommandKind;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.UserKey;
import dev.engram.embedder.OnnxEmbedder;
import dev.engram.embedder.OnnxModel;
import dev.engram.scoring.Vectors;
import dev.engram.testing.PipelineHarness;
import dev.engram.testing.RecordingVectorIndexFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The consolidator's REEMBED command ({@code bin/engram reembed}) on the pipeline harness with the real
 * models: the memory takes the new model's vector and nothing else, in the store, the vector index and the
 * retriever's read model; a stale, repeated or unusable command changes nothing and is counted.
 */
class ReembedCommandTest {

    private static final UserKey CARA = new UserKey("t1", "u-cara");
    private static final String NEW_MODEL = OnnxModel.MINILM.name();

    private final RecordingVectorIndexFactory index = new RecordingVectorIndexFactory();
    private final PipelineHarness driver = PipelineHarness.builder().vectorIndex(index).build();

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void shouldReplaceOnlyTheVectorAndItsModelWhenAMemoryIsReembedded() {
        final MemoryCandidate city = FedCandidates.fact(CARA.wire(), "c-1", "2025-05-02T10:00:01Z", "city", "Porto",
            "Lives in Porto");
        driver.pipe(city);
        final Memory before = driver.consolidator().memory(CARA.wire(), city.getCandidateId());
        assertThat(before.getEmbeddingModel()).isNotEqualTo(NEW_MODEL);
        final float[] vector = OnnxEmbedder.shared(OnnxModel.MINILM).embed("Lives in Porto");

        driver.command(reembed(city.getCandidateId(), "Lives in Porto", vector, "2025-05-02T10:00:01Z"));

        final Memory after = driver.consolidator().memory(CARA.wire(), city.getCandidateId());
        assertThat(after.getEmbeddingModel()).isEqualTo(NEW_MODEL);
        assertThat(after.getEmbedding()).isEqualTo(Vectors.toList(vector));
        assertThat(Memory.newBuilder(after).setEmbedding(before.getEmbedding()).setEmbeddingModel(before.getEmbeddingModel())
            .build()).as("nothing else changes").isEqualTo(before);
        assertThat(driver.retriever().memory(CARA.wire(), city.getCandidateId())).isEqualTo(after);
        assertThat(index.points(CARA)).singleElement().satisfies(m -> assertThat(m.getEmbeddingModel()).isEqualTo(NEW_MODEL));
        final MemoryUpdated event = driver.updates().get(driver.updates().size() - 1);
        assertThat(event.getOperation()).isEqualTo(UpdateOperation.REEMBEDDED);
        assertThat(event.getEventTime()).isEqualTo(Instant.parse("2025-05-02T10:00:01Z"));

        final int events = driver.updates().size();
        driver.command(reembed(city.getCandidateId(), "Lives in Porto", vector, "2025-05-02T10:00:02Z"));
        assertThat(driver.updates()).as("a repeated command changes nothing").hasSize(events);
        assertThat(skipped("already_reembedded")).isEqualTo(1.0);
    }

    @Test
    void shouldKeepTheCurrentVectorWhenTheCommandIsStaleOrItsVectorUnusable() {
        final MemoryCandidate city = FedCandidates.fact(CARA.wire(), "c-1", "2025-05-02T10:00:01Z", "city", "Porto",
            "Lives in Porto");
        driver.pipe(city);
        final Memory before = driver.consolidator().memory(CARA.wire(), city.getCandidateId());
        final int events = driver.updates().size();

        // embedded from content the memory no longer has (a correction in between)
        driver.command(reembed(city.getCandidateId(), "Lives in Braga",
            OnnxEmbedder.shared(OnnxModel.MINILM).embed("Lives in Braga"), "2025-05-03T00:00:00Z"));
        driver.command(reembed(city.getCandidateId(), "Lives in Porto", new float[384], "2025-05-03T00:00:01Z"));
        driver.command(reembed("no-such-memory", "Lives in Porto",
            OnnxEmbedder.shared(OnnxModel.MINILM).embed("Lives in Porto"), "2025-05-03T00:00:02Z"));

        assertThat(driver.consolidator().memory(CARA.wire(), city.getCandidateId())).isEqualTo(before);
        assertThat(driver.updates()).hasSize(events);
        assertThat(skipped("stale_reembed")).isEqualTo(1.0);
        assertThat(skipped("invalid_reembed")).as("the zero vector").isEqualTo(1.0);
        assertThat(skipped("gone_reembed")).as("the unknown memory").isEqualTo(1.0);
    }

    /**
     * The demo's "memory unknown" warnings after a reembed: {@code bin/engram reembed} lists a user's statements and
     * the topic list derived from them, and issues their commands in that order. The statements' commands mark the
     * user pending, the regrouping before the next command rewrites the derived memories per model, and a topic list's
     * id names its model: the old list is gone when its own command arrives. Expected, so counted ({@code
     * gone_reembed}), not warned about. The new model's list is written by that regrouping already, before the
     * consolidator follows the new model (reembed names it active after the commands; this harness's embedder stays on
     * the old one): a list's model is its statements', whichever model is active, so a user regrouped in between does
     * not lose the list until its next change.
     */
    @Test
    void shouldCountTheCommandOfATopicListThatTheRegroupingOfItsReembeddedStatementsReplaced() {
        try (PipelineHarness pipeline = observing()) {
            pipeline.pipe(FedCandidates.episodic(CARA.wire(), "c-1", "2025-05-02T10:00:00Z",
                    "We got another cat named Bailey, she is tiny."),
                FedCandidates.episodic(CARA.wire(), "c-2", "2025-05-02T11:00:00Z",
                    "Bailey and my dog Max played all day in the yard."));
            pipeline.advanceTo(Instant.parse("2025-05-09T10:00:00Z"));
            // the statements and the list (an observation of the two, if any, is another story: its group may survive)
            final List<Memory> listed = pipeline.consolidator().active(CARA.wire()).stream()
                .filter(m -> dev.engram.consolidation.Observations.isStatement(m) || topicList(m)).toList();
            final Memory list = listed.stream().filter(ReembedCommandTest::topicList).findFirst()
                .orElseThrow(() -> new AssertionError("no topic list among " + listed));

            // as the tool orders them: the statements first (they came first on memory-updated), then the list
            reembedAll(pipeline, listed.stream().sorted(java.util.Comparator.comparing(ReembedCommandTest::topicList))
                .toList());

            assertThat(pipeline.consolidatorMeters().get("engram.candidates.skipped").tag("reason", "gone_reembed")
                .counter().count()).isEqualTo(1.0);
            assertThat(pipeline.consolidator().memories(CARA.wire())).noneMatch(m -> m.getMemoryId().equals(list.getMemoryId()));
            pipeline.advanceWallClock(java.time.Duration.ofMinutes(1)); // the regrouping of the pending user
            final List<Memory> lists = pipeline.consolidator().active(CARA.wire()).stream()
                .filter(ReembedCommandTest::topicList).toList();
            assertThat(lists).as("the new model's list, not the old model's again").singleElement().satisfies(m -> {
                assertThat(m.getEmbeddingModel()).isEqualTo(NEW_MODEL);
                assertThat(m.getContent()).isEqualTo(list.getContent());
                assertThat(m.getSources()).isEqualTo(list.getSources());
            });
        }
    }

    /**
     * Why {@code bin/engram reembed} issues no command for an observation ({@code Observations#rebuiltByRegrouping}):
     * the commands of its statements alone move it to the new model, the regrouping they start writing it again with
     * the centroid of the statements' new vectors, and no command comes back as a memory gone. A command of its own
     * would give it its text's vector instead.
     */
    @Test
    void shouldMoveAnObservationToTheNewModelWithItsStatementsWhenOnlyTheStatementsAreReembedded() {
        try (PipelineHarness pipeline = observing()) {
            pipeline.pipe(FedCandidates.episodic(CARA.wire(), "c-1", "2025-05-02T09:00:00Z",
                    "Cara went camping at the beach with her kids."),
                FedCandidates.episodic(CARA.wire(), "c-2", "2025-05-02T10:00:00Z",
                    "Cara camped in the mountains with her family last summer."),
                FedCandidates.episodic(CARA.wire(), "c-3", "2025-05-02T11:00:00Z",
                    "Cara loves camping in the forest and sleeping in a tent."));
            pipeline.advanceTo(Instant.parse("2025-05-09T10:00:00Z"));
            final Memory observation = pipeline.consolidator().active(CARA.wire()).stream()
                .filter(m -> dev.engram.consolidation.Observations.isObservation(m) && !topicList(m)).findFirst()
                .orElseThrow(() -> new AssertionError("no observation among " + pipeline.consolidator().active(CARA.wire())));
            final List<Memory> statements = pipeline.consolidator().active(CARA.wire()).stream()
                .filter(m -> !dev.engram.consolidation.Observations.rebuiltByRegrouping(m)).toList();
            assertThat(statements).hasSize(3);

            reembedAll(pipeline, statements);
            pipeline.advanceWallClock(java.time.Duration.ofMinutes(1)); // the regrouping of the pending user

            final Memory after = pipeline.consolidator().memory(CARA.wire(), observation.getMemoryId());
            assertThat(after.getStatus()).isEqualTo(dev.engram.avro.MemoryStatus.ACTIVE);
            assertThat(after.getEmbeddingModel()).isEqualTo(NEW_MODEL);
            final float[] centroid = new float[384];
            for (final Memory m : statements) {
                final float[] v = Vectors.toArray(pipeline.consolidator().memory(CARA.wire(), m.getMemoryId()).getEmbedding());
                for (int i = 0; i < v.length; i++) {
                    centroid[i] += v[i];
                }
            }
            assertThat(Vectors.cosine(Vectors.toArray(after.getEmbedding()), centroid)).as("its statements' centroid")
                .isGreaterThan(0.9999);
            final var gone = pipeline.consolidatorMeters().find("engram.candidates.skipped").tag("reason", "gone_reembed")
                .counter();
            assertThat(gone == null ? 0.0 : gone.count()).as("no command of a memory gone").isZero();
        }
    }

    /** The harness with observations and topic lists on (the real default embedder). */
    private static PipelineHarness observing() {
        return PipelineHarness.builder().observations(dev.engram.embedder.ScriptRoutedEmbedder.defaults()).build();
    }

    /** One REEMBED command to MiniLM per memory, in order, a second apart from 2025-05-09T10:00:00Z. */
    private static void reembedAll(final PipelineHarness pipeline, final List<Memory> memories) {
        int second = 0;
        for (final Memory m : memories) {
            pipeline.command(reembed(m.getMemoryId(), m.getContent(), OnnxEmbedder.shared(OnnxModel.MINILM)
                .embed(m.getContent()), String.format(java.util.Locale.ROOT, "2025-05-09T10:00:%02dZ", second++)));
        }
    }

    private static boolean topicList(final Memory m) {
        return dev.engram.port.ExtractedMemory.isTopicList(m.getType(), m.getDisplayName());
    }

    @Test
    void shouldCompareEachCandidateWithItsOwnModelsMemoriesWhileAUserIsHalfReembedded() {
        final MemoryCandidate city = FedCandidates.episodic(CARA.wire(), "c-1", "2025-05-02T10:00:01Z",
            "Went hiking in the Geres mountains with my sister");
        final MemoryCandidate band = FedCandidates.episodic(CARA.wire(), "c-2", "2025-05-02T10:00:02Z",
            "Plays bass guitar in a jazz band on Fridays");
        driver.pipe(city, band);
        final String oldModel = driver.consolidator().memory(CARA.wire(), band.getCandidateId()).getEmbeddingModel();
        final float[] hikeNew = OnnxEmbedder.shared(OnnxModel.MINILM).embed(city.getContent());
        driver.command(reembed(city.getCandidateId(), city.getContent(), hikeNew, "2025-05-02T10:00:03Z"));

        // the new model's restatement reinforces the re-embedded memory, the old model's the other one
        driver.pipe(MemoryCandidate.newBuilder(city).setCandidateId("c-3-hike").setConversationId("c-3")
            .setEmbedding(Vectors.toList(hikeNew)).setEmbeddingModel(NEW_MODEL)
            .setEventTime(Instant.parse("2025-05-03T10:00:00Z")).build());
        driver.pipe(MemoryCandidate.newBuilder(band).setCandidateId("c-4-band").setConversationId("c-4")
            .setEventTime(Instant.parse("2025-05-04T10:00:00Z")).build());

        assertThat(driver.deadLetters()).isEmpty();
        assertThat(driver.consolidator().active(CARA.wire())).hasSize(2);
        assertThat(driver.consolidator().memory(CARA.wire(), city.getCandidateId()).getReinforcementCount()).isEqualTo(2);
        assertThat(driver.consolidator().memory(CARA.wire(), band.getCandidateId()).getReinforcementCount()).isEqualTo(2);
        assertThat(driver.consolidator().memory(CARA.wire(), band.getCandidateId()).getEmbeddingModel()).isEqualTo(oldModel);

        // once every memory is the new model's, an old-model candidate is dead-lettered with both names
        driver.command(reembed(band.getCandidateId(), band.getContent(),
            OnnxEmbedder.shared(OnnxModel.MINILM).embed(band.getContent()), "2025-05-04T10:00:01Z"));
        driver.pipe(MemoryCandidate.newBuilder(band).setCandidateId("c-5-band").setConversationId("c-5")
            .setEventTime(Instant.parse("2025-05-05T10:00:00Z")).build());
        assertThat(driver.deadLetters()).singleElement().satisfies(r -> assertThat(
            new String(r.headers().lastHeader("__streams.errors.message").value(), java.nio.charset.StandardCharsets.UTF_8))
            .contains(oldModel, NEW_MODEL));
    }

    private double skipped(final String reason) {
        return driver.consolidatorMeters().get("engram.candidates.skipped").tag("reason", reason).counter().count();
    }

    private static MemoryCommand reembed(final String memoryId, final String content, final float[] vector,
                                         final String issuedAt) {
        return MemoryCommand.newBuilder().setCommandId("reembed-" + issuedAt).setTenantId(CARA.tenantId())
            .setUserId(CARA.userId()).setKind(CommandKind.REEMBED).setMemoryId(memoryId).setContent(content)
            .setValue(null).setMemoryEnabled(null).setActor("test").setEmbedding(Vectors.toList(vector))
            .setEmbeddingModel(NEW_MODEL).setIssuedAt(Instant.parse(issuedAt)).build();
    }
}
