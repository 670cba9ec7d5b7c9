package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.Message;
import dev.engram.avro.SourceRef;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.embedded.MiniLmEmbedder;
import dev.engram.embedded.RuleBasedExtractor;
import dev.engram.serde.AvroSerdes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@code ../shared/cases} with nothing fed: the case's conversations go into the
 * extraction topology (rule-based extractor, real MiniLM), its {@code memory-candidates} records go
 * as they are (key, value, timestamp) into the consolidation topology, and the outcomes written in
 * the case are checked on the consolidator's stores and topics. {@link ConsolidationCasesTest} checks
 * the same cases with fed candidates; this test fails when the extractor stops understanding a
 * case's statements.
 */
class ExtractedCasesTest {

    private Path stateDir;
    private TopologyTestDriver extraction;
    private TestInputTopic<String, ConversationCompleted> conversations;
    private TestOutputTopic<String, MemoryCandidate> candidates;
    private ConsolidationDriver consolidation;

    @BeforeEach
    void start() throws Exception {
        stateDir = Files.createTempDirectory("engram-extracted-cases");
        final EngramConfig config = EngramConfig.defaults().with(Map.of(EngramConfig.STATE_DIR, stateDir.toString()));
        extraction = new TopologyTestDriver(ExtractionTopology.build(config, new RuleBasedExtractor(),
            MiniLmEmbedder.shared(), new SimpleMeterRegistry()), ExtractionTopology.config(config));
        conversations = extraction.createInputTopic(Topics.CONVERSATIONS_COMPLETED, Serdes.String().serializer(),
            AvroSerdes.serde(ConversationCompleted.class).serializer());
        candidates = extraction.createOutputTopic(Topics.MEMORY_CANDIDATES, Serdes.String().deserializer(),
            AvroSerdes.serde(MemoryCandidate.class).deserializer());
        consolidation = new ConsolidationDriver();
    }

    @AfterEach
    void stop() {
        extraction.close();
        consolidation.close();
    }

    /** One user turn said at {@code time}, extracted and consolidated; returns the candidates. */
    private List<MemoryCandidate> say(final String user, final String conversationId, final String time,
                                      final String text) {
        final Instant at = Instant.parse(time);
        final String[] parts = user.split("/", 2);
        conversations.pipeInput(parts[0] + "/" + parts[1], ConversationCompleted.newBuilder().setTenantId(parts[0])
            .setUserId(parts[1]).setConversationId(conversationId).setCompletedAt(at)
            .setMessages(List.of(new Message(0, "user", text, at))).build(), at);
        final List<MemoryCandidate> out = new ArrayList<>();
        for (final TestRecord<String, MemoryCandidate> record : candidates.readRecordsToList()) {
            consolidation.pipe(record.key(), record.value(), record.getRecordTime());
            out.add(record.value());
        }
        return out;
    }

    private static String only(final List<MemoryCandidate> candidates) {
        assertThat(candidates).hasSize(1);
        return candidates.get(0).getCandidateId();
    }

    @Test
    void shouldReinforceKotlinWhenExtractedFromBothConversations_case01() {
        final String mira = "t1/u-mira";
        final String first = only(say(mira, "c-101", "2025-02-03T09:12:00Z",
            "These days I write almost everything in Kotlin."));
        final double confidenceAfterFirst = consolidation.active(mira).get(0).getConfidence();
        say(mira, "c-102", "2025-02-10T17:40:00Z", "As I said before, Kotlin is my main language.");

        assertThat(consolidation.active(mira)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(first);
            assertThat(m.getKey()).isEqualTo("preferred_language");
            assertThat(m.getValue()).isEqualTo("Kotlin");
            assertThat(m.getReinforcementCount()).isEqualTo(2);
            assertThat(m.getSources()).extracting(SourceRef::getConversationId).containsExactly("c-101", "c-102");
            assertThat(m.getLastConfirmedAt()).isEqualTo(Instant.parse("2025-02-10T17:40:00Z"));
            assertThat(m.getConfidence()).isGreaterThanOrEqualTo(confidenceAfterFirst);
        });
        assertThat(consolidation.memories(mira)).hasSize(1);
        assertThat(consolidation.updated()).extracting(r -> r.value().getOperation())
            .containsExactly(UpdateOperation.CREATED, UpdateOperation.REINFORCED);
    }

    @Test
    void shouldSupersedeThreeYearsByFourWhenExtractedFromConversations_case02() {
        final String omar = "t1/u-omar";
        final String three = only(say(omar, "c-110", "2025-01-10T08:00:00Z",
            "I've been at Ferrovia Labs for three years now."));
        say(omar, "c-111", "2025-01-11T08:00:00Z", "Three years at Ferrovia Labs, like I mentioned.");
        assertThat(consolidation.active(omar)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(three);
            assertThat(m.getContent()).isEqualTo("Has worked at Ferrovia Labs for 3 years");
            assertThat(m.getReinforcementCount()).isEqualTo(2);
        });

        final String four = only(say(omar, "c-140", "2026-01-14T08:00:00Z",
            "Four years at Ferrovia Labs as of this month."));

        assertThat(consolidation.active(omar)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(four);
            assertThat(m.getKey()).isEqualTo("employer");
            assertThat(m.getValue()).isEqualTo("Ferrovia Labs");
            assertThat(m.getContent()).isEqualTo("Has worked at Ferrovia Labs for 4 years");
        });
        final Memory old = consolidation.memory(omar, three);
        assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
        assertThat(old.getSupersededBy()).isEqualTo(four);
    }

    @Test
    void shouldKeepOnlyTheDislikeWhenExtractedFromConversations_case03() {
        final String rosa = "t1/u-rosa";
        final String like = only(say(rosa, "c-301", "2025-03-01T19:00:00Z", "Sushi is my all-time favourite food."));
        final String dislike = only(say(rosa, "c-302", "2025-03-20T19:00:00Z",
            "I've totally gone off sushi, can't stand it anymore."));

        assertThat(consolidation.active(rosa)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(dislike);
            assertThat(m.getKey()).isEqualTo("preference:sushi");
            assertThat(m.getValue()).isEqualTo("dislike");
        });
        final Memory old = consolidation.memory(rosa, like);
        assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
        assertThat(old.getSupersededBy()).isEqualTo(dislike);
        assertThat(consolidation.updated()).extracting(r -> r.value().getOperation())
            .doesNotContain(UpdateOperation.DELETED);
    }

    @Test
    void shouldSupersedeThriceSaidVeganByPescatarianWhenExtractedFromConversations_case04() {
        final String sam = "t1/u-sam";
        final String vegan = only(say(sam, "c-401", "2025-04-02T12:00:00Z", "I've been vegan for two years."));
        say(sam, "c-402", "2025-05-10T12:00:00Z", "still vegan, going strong");
        say(sam, "c-403", "2025-06-15T12:00:00Z", "vegan potluck was great");
        assertThat(consolidation.memory(sam, vegan).getReinforcementCount()).isEqualTo(3);

        final String pescatarian = only(say(sam, "c-420", "2025-09-15T12:00:00Z",
            "Started eating fish again; being vegan wasn't working for me."));

        assertThat(consolidation.active(sam)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(pescatarian);
            assertThat(m.getKey()).isEqualTo("diet");
            assertThat(m.getValue()).isEqualTo("pescatarian");
        });
        final Memory old = consolidation.memory(sam, vegan);
        assertThat(old.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(old.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
        assertThat(old.getSupersededBy()).isEqualTo(pescatarian);
        assertThat(consolidation.profile(sam).getFacts().get("diet").getValue()).isEqualTo("pescatarian");
    }

    @Test
    void shouldReinforceIntelliJOnceWhenExtractedFromTwoConversations10MsApart_case11() {
        final String jon = "t1/u-jon";
        say(jon, "c-a", "2025-07-07T10:00:00.000Z", "I use IntelliJ for everything.");
        say(jon, "c-b", "2025-07-07T10:00:00.010Z", "I use IntelliJ for everything.");

        assertThat(consolidation.active(jon)).singleElement().satisfies(m -> {
            assertThat(m.getKey()).isEqualTo("ide");
            assertThat(m.getValue()).isEqualTo("IntelliJ");
            assertThat(m.getReinforcementCount()).isEqualTo(2);
        });
    }

    @Test
    void shouldEndWithTrondheimOnlyWhenRelocationsAreExtracted_case11() {
        final String jon = "t1/u-jon";
        final String bergen = only(say(jon, "c-0", "2025-06-01T10:00:00Z", "I live in Bergen."));
        final String oslo = only(say(jon, "c-a", "2025-07-07T10:00:00.000Z", "We relocated to Oslo"));
        final String trondheim = only(say(jon, "c-b", "2025-07-07T10:00:00.050Z", "Now living in Trondheim"));

        assertThat(consolidation.active(jon)).singleElement().satisfies(m -> {
            assertThat(m.getMemoryId()).isEqualTo(trondheim);
            assertThat(m.getKey()).isEqualTo("city");
            assertThat(m.getValue()).isEqualTo("Trondheim");
        });
        assertThat(List.of(consolidation.memory(jon, bergen), consolidation.memory(jon, oslo)))
            .allSatisfy(m -> {
                assertThat(m.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
                assertThat(m.getArchiveReason()).isEqualTo(ArchiveReason.SUPERSEDED);
            });
        assertThat(consolidation.archived()).extracting(r -> r.value().getMemoryId())
            .containsExactly(bergen, oslo);
    }
}
