package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import dev.engram.profile.ProfileProjection;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.AppIds;
import dev.engram.topics.Topic;
import dev.engram.validation.ConversationValidator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ExtractionTopologyTest {

    private static final int MAX_MESSAGES = 5;
    private static final int MAX_CHARS = 500;
    private static final int MAX_RECORD_BYTES = 4096;
    private static final Instant SENT = Instant.parse("2025-02-03T09:13:00Z");

    @TempDir
    Path stateDir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> input;
    private TestOutputTopic<String, MemoryCandidate> candidates;
    private TestOutputTopic<String, byte[]> deadLetters;

    @BeforeEach
    void start() {
        start(new RuleBasedExtractor());
    }

    private void start(final MemoryExtractor extractor) {
        start(extractor, ScriptRoutedEmbedder.defaults());
    }

    private void start(final MemoryExtractor extractor, final dev.engram.port.Embedder embedder) {
        if (driver != null) {
            driver.close();
        }
        final EngramConfig config = EngramConfig.plain().with(Map.of(DomainConfig.MAX_MESSAGES, MAX_MESSAGES,
            DomainConfig.MAX_MESSAGE_CHARS, MAX_CHARS, CoreConfig.MAX_RECORD_BYTES, MAX_RECORD_BYTES,
            PipelineConfig.STATE_DIR, stateDir.toString()));
        final Properties props = ExtractionTopology.config(config);
        assertThat(props.get(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo(AppIds.EXTRACTOR);
        driver = new TopologyTestDriver(
            ExtractionTopology.build(config, extractor, embedder, registry, Runnable::run, 1, UserPartitions.fixed(1)), props);
        input = driver.createInputTopic(Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
        candidates = driver.createOutputTopic(Topic.MEMORY_CANDIDATES.name(), Serdes.String().deserializer(),
            AvroSerdes.serde(MemoryCandidate.class).deserializer());
        deadLetters = driver.createOutputTopic(Topic.deadLetters(AppIds.EXTRACTOR).name(), Serdes.String().deserializer(),
            Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void shouldExtractNothingWhileTheProfileFromUserProfilesSaysMemoryIsOff() {
        final TestInputTopic<String, UserProfile> profiles = driver.createInputTopic(Topic.USER_PROFILES.name(),
            Serdes.String().serializer(), AvroSerdes.serde(UserProfile.class).serializer());
        final UserProfile off = UserProfile.newBuilder(ProfileProjection.empty("t1", "u-mira"))
            .setMemoryEnabled(false).build();
        profiles.pipeInput("t1/u-mira", off, SENT);
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT);
        assertThat(candidates.readRecordsToList()).isEmpty();

        profiles.pipeInput("t1/u-mira", null, SENT); // the profile is gone (erased): extraction starts fresh
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT);
        assertThat(candidates.readRecordsToList()).isNotEmpty();
    }

    /** case-01's first conversation. */
    private static ConversationCompleted.Builder mira() {
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u-mira").setConversationId("c-101")
            .setCompletedAt(Instant.parse("2025-02-03T09:12:04Z"))
            .setMessages(new ArrayList<>(List.of(
                new Message(0, "user", "These days I write almost everything in Kotlin.",
                    Instant.parse("2025-02-03T09:12:00Z")),
                new Message(1, "assistant", "Noted, Kotlin it is.", Instant.parse("2025-02-03T09:12:04Z")))));
    }

    private static byte[] bytes(final ConversationCompleted conversation) {
        return AvroSerdes.serde(ConversationCompleted.class).serializer().serialize("test", conversation);
    }

    private static String header(final TestRecord<String, byte[]> record, final String name) {
        final Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private double count(final String meter) {
        return registry.get(meter).tag("application", AppIds.EXTRACTOR).counter().count();
    }

    @Test
    void shouldWriteEmbeddedCandidateKeyedByUserWhenConversationIsValid() {
        input.pipeInput("some-other-key", bytes(mira().build()), SENT);

        final List<TestRecord<String, MemoryCandidate>> out = candidates.readRecordsToList();
        assertThat(out).singleElement().satisfies(record -> {
            assertThat(record.key()).isEqualTo("t1/u-mira");
            assertThat(record.getRecordTime()).isEqualTo(Instant.parse("2025-02-03T09:12:04Z"));
            final MemoryCandidate c = record.value();
            assertThat(c.getCandidateId()).isEqualTo(
                MemoryIds.candidateId("t1", "u-mira", "c-101", "Main programming language is Kotlin"));
            assertThat(c.getType()).isEqualTo(MemoryType.SEMANTIC);
            assertThat(c.getKey()).isEqualTo("preferred_language");
            assertThat(c.getValue()).isEqualTo("Kotlin");
            assertThat(c.getSourceMessageIndexes()).containsExactly(0);
            assertThat(c.getEventTime()).isEqualTo(Instant.parse("2025-02-03T09:12:00Z"));
            assertThat(c.getEmbedding()).hasSize(384);
            assertThat(c.getEmbeddingModel()).isEqualTo(ScriptRoutedEmbedder.defaults().modelName());
            assertThat(c.getExtractor()).isEqualTo(RuleBasedExtractor.NAME);
        });
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(count(ExtractionTopology.METER_CONVERSATIONS)).isEqualTo(1.0);
        assertThat(count(ExtractionTopology.METER_CANDIDATES)).isEqualTo(1.0);
        assertThat(count(DeadLetters.METER)).isZero();
    }

    @Test
    void shouldEmbedTheCandidateContentWhenWritingIt() {
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT);
        final MemoryCandidate c = candidates.readValue();
        final float[] expected = ScriptRoutedEmbedder.defaults().embed(c.getContent());
        final float[] actual = new float[c.getEmbedding().size()];
        for (int i = 0; i < actual.length; i++) {
            actual[i] = c.getEmbedding().get(i);
        }
        assertThat(actual).containsExactly(expected);
    }

    @Test
    void shouldWriteIdenticalCandidatesWhenTheSameConversationIsReplayed() {
        final ConversationCompleted conversation = mira().setMessages(List.of(
            new Message(0, "user", "I live in Lyon. Last weekend my daughter Chloe won her first chess tournament!",
                Instant.parse("2025-12-01T10:00:00Z")),
            new Message(1, "user", "I use IntelliJ for everything.", Instant.parse("2025-12-01T10:01:00Z")))).build();
        input.pipeInput("t1/u-mira", bytes(conversation), SENT);
        final List<MemoryCandidate> first = candidates.readValuesToList();
        start();
        input.pipeInput("t1/u-mira", bytes(conversation), SENT.plusSeconds(3600));
        final List<MemoryCandidate> second = candidates.readValuesToList();

        assertThat(first).extracting(MemoryCandidate::getContent).containsExactly("Lives in Lyon",
            "Has a daughter named Chloe",
            "I live in Lyon. Last weekend (29–30 November 2025) my daughter Chloe won her first chess tournament!",
            "Uses IntelliJ as IDE");
        assertThat(second).isEqualTo(first);
        assertThat(first).extracting(MemoryCandidate::getCandidateId).doesNotHaveDuplicates();
    }

    @Test
    void shouldWriteNothingAndCountTheConversationWhenItHasOnlySmallTalk() {
        input.pipeInput("t1/u-mira", bytes(mira().setMessages(List.of(
            new Message(0, "user", "Hey! Thanks so much!", Instant.parse("2025-02-03T09:12:00Z")))).build()), SENT);
        assertThat(candidates.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(count(ExtractionTopology.METER_CONVERSATIONS)).isEqualTo(1.0);
    }

    @Test
    void shouldCountEveryConsumedConversationOnceByOutcomeAndReasonWhenSomeHaveNothingToRemember() {
        final Instant t = Instant.parse("2025-02-03T09:12:00Z");
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT);
        input.pipeInput("t1/u-mira", bytes(mira().setConversationId("c-emoji").setMessages(List.of(
            new Message(0, "user", "\uD83D\uDE00".repeat(200), t))).build()), SENT);
        input.pipeInput("t1/u-mira", bytes(mira().setConversationId("c-thanks").setMessages(List.of(
            new Message(0, "user", "Hey! Thanks so much!", t))).build()), SENT);
        input.pipeInput("t1/u-mira", bytes(mira().setConversationId("c-bad").setMessages(List.of()).build()), SENT);
        final TestInputTopic<String, UserProfile> profiles = driver.createInputTopic(Topic.USER_PROFILES.name(),
            Serdes.String().serializer(), AvroSerdes.serde(UserProfile.class).serializer());
        profiles.pipeInput("t1/u-off", UserProfile.newBuilder(ProfileProjection.empty("t1", "u-off"))
            .setMemoryEnabled(false).build(), SENT);
        input.pipeInput("t1/u-off", bytes(mira().setUserId("u-off").build()), SENT);

        assertThat(outcome(ExtractionTopology.OUTCOME_REMEMBERED, "")).isEqualTo(1.0);
        assertThat(outcome(ExtractionTopology.OUTCOME_NOTHING, ExtractionTopology.REASON_NO_WORDS)).isEqualTo(1.0);
        assertThat(outcome(ExtractionTopology.OUTCOME_NOTHING, ExtractionTopology.REASON_NOTHING_EXTRACTED)).isEqualTo(1.0);
        assertThat(outcome(ExtractionTopology.OUTCOME_NOTHING, ExtractionTopology.REASON_MEMORY_OFF)).isEqualTo(1.0);
        assertThat(outcome(ExtractionTopology.OUTCOME_DEAD_LETTERED, DeadLetters.STAGE_VALIDATION)).isEqualTo(1.0);
        assertThat(registry.get(ExtractionTopology.METER_OUTCOMES).counters().stream()
            .mapToDouble(io.micrometer.core.instrument.Counter::count).sum()).as("in = the sum of the outcomes").isEqualTo(5.0);
    }

    private double outcome(final String outcome, final String reason) {
        return registry.get(ExtractionTopology.METER_OUTCOMES).tag("outcome", outcome).tag("reason", reason).counter().count();
    }

    static Stream<Arguments> invalidConversations() {
        final Instant t = Instant.parse("2025-02-03T09:12:00Z");
        final List<Message> tooMany = new ArrayList<>();
        for (int i = 0; i <= MAX_MESSAGES; i++) {
            tooMany.add(new Message(i, "user", "I use IntelliJ.", t));
        }
        return Stream.of(
            Arguments.of("missing tenant", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setTenantId(""),
                "tenantId is missing or blank"),
            Arguments.of("blank user", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setUserId("   "),
                "userId is missing or blank"),
            Arguments.of("tenant with a slash", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setTenantId("a/b"),
                "tenantId must not contain '/'"),
            Arguments.of("blank conversation id",
                (UnaryOperator<ConversationCompleted.Builder>) b -> b.setConversationId(" "),
                "conversationId is missing or blank"),
            Arguments.of("no messages", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(List.of()),
                "conversation has no messages"),
            Arguments.of("too many messages", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(tooMany),
                "more than input.max.messages=" + MAX_MESSAGES),
            Arguments.of("a message too long", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(List.of(
                new Message(0, "user", "a".repeat(MAX_CHARS + 1), t))),
                "message 0 has " + (MAX_CHARS + 1) + " characters, more than input.max.message.chars=" + MAX_CHARS),
            // within the message and character limits, yet (3 bytes a character) over the record limit ingest applies:
            // the same number dead-letters whatever another producer sent
            Arguments.of("a record over input.max.record.bytes", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(
                List.of(new Message(0, "user", "日".repeat(450), t), new Message(1, "user", "本".repeat(450), t),
                    new Message(2, "user", "語".repeat(450), t), new Message(3, "user", "字".repeat(450), t))),
                "bytes is larger than input.max.record.bytes=" + MAX_RECORD_BYTES),
            // a turn no extractor reads, and one with nothing to read: neither a memory nor a dead letter before
            Arguments.of("an unknown role", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(List.of(
                new Message(0, "user", "I use IntelliJ.", t), new Message(1, "wizard", "I cast spells.", t))),
                "message 1 has the role 'wizard', not one of user, assistant, system, tool"),
            Arguments.of("a message without content", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(List.of(
                new Message(0, "user", "", t))), "message 0 has no content (missing or blank)"),
            Arguments.of("a blank role", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(List.of(
                new Message(0, " ", "I use IntelliJ.", t))), "message 0 has a missing or blank role"),
            Arguments.of("a timestamp before 1970", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(
                List.of(new Message(0, "user", "I use IntelliJ.", Instant.ofEpochMilli(-5)))),
                "message 0 has a timestamp missing or before 1970"),
            // a time ahead of the wall clock would be the consolidator's clock for every user of the partition
            Arguments.of("completedAt in year 9999", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setCompletedAt(
                Instant.parse("9999-12-31T00:00:00Z")), "completedAt 9999-12-31T00:00:00Z lies ahead of this receiver's"
                + " clock"),
            Arguments.of("a message two hours ahead", (UnaryOperator<ConversationCompleted.Builder>) b -> b.setMessages(
                List.of(new Message(0, "user", "I use IntelliJ.", t), new Message(1, "user", "I use Vim.",
                    Instant.now().plus(java.time.Duration.ofHours(2))))),
                "messages[1].timestamp "),
            Arguments.of("completedAt 400 days ahead", (UnaryOperator<ConversationCompleted.Builder>) b -> b
                .setCompletedAt(Instant.now().plus(java.time.Duration.ofDays(400))), "by more than input.max.future.ms="
                + DomainConfig.DEFAULT_MAX_FUTURE_MS + " ms: the latest event time accepted now is"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConversations")
    void shouldDeadLetterTheOriginalBytesAndGoOnWhenTheConversationIsInvalid(
        final String kind, final UnaryOperator<ConversationCompleted.Builder> breakIt, final String reason) {
        final byte[] invalid = bytes(breakIt.apply(mira()).build());
        input.pipeInput(new TestRecord<>("t1/u-mira", invalid,
            new RecordHeaders().add("trace-id", "abc".getBytes(StandardCharsets.UTF_8)), SENT));
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT.plusSeconds(1));

        final TestRecord<String, byte[]> dead = deadLetters.readRecord();
        assertThat(dead.key()).isEqualTo("t1/u-mira");
        assertThat(dead.value()).isEqualTo(invalid);
        assertThat(dead.getRecordTime()).isEqualTo(SENT);
        assertThat(header(dead, DeadLetters.HEADER_REASON)).contains(reason);
        assertThat(header(dead, DeadLetters.HEADER_STAGE)).isEqualTo("validation");
        assertThat(header(dead, DeadLetters.HEADER_CLASS)).isEqualTo("validation");
        assertThat(header(dead, DeadLetters.HEADER_SOURCE_TOPIC)).isEqualTo(Topic.CONVERSATIONS_COMPLETED.name());
        assertThat(header(dead, DeadLetters.HEADER_SOURCE_PARTITION)).isEqualTo("0");
        assertThat(header(dead, DeadLetters.HEADER_SOURCE_OFFSET)).isEqualTo("0");
        assertThat(header(dead, "trace-id")).isEqualTo("abc");
        assertThat(header(dead, "__streams.errors.message")).isEqualTo(header(dead, DeadLetters.HEADER_REASON));
        assertThat(header(dead, "__streams.errors.exception")).isEqualTo("validation");
        assertThat(header(dead, "__streams.errors.offset")).isEqualTo("0");
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(candidates.readValuesToList()).extracting(MemoryCandidate::getConversationId).containsExactly("c-101");
        assertThat(count(DeadLetters.METER)).isEqualTo(1.0);
        // conversations in = remembered + nothing to remember + dead-lettered
        assertThat(outcome(ExtractionTopology.OUTCOME_DEAD_LETTERED, DeadLetters.STAGE_VALIDATION)).isEqualTo(1.0);
        assertThat(outcome(ExtractionTopology.OUTCOME_REMEMBERED, "")).isEqualTo(1.0);
    }

    @Test
    void shouldDeadLetterAnInvalidConversationWithItsSecretsRedacted() {
        final Instant t = Instant.parse("2025-02-03T09:12:00Z");
        final ConversationCompleted invalid = mira().setMessages(List.of(
            new Message(0, "user", "My staging key is sk-test-51FAKEabcdefghijklmnop1234 and I use IntelliJ.", t),
            new Message(1, "wizard", "I cast spells.", t))).build();
        input.pipeInput("t1/u-mira", bytes(invalid), SENT);

        final TestRecord<String, byte[]> dead = deadLetters.readRecord();
        assertThat(header(dead, DeadLetters.HEADER_REASON)).contains("wizard");
        final String kept = new String(dead.value(), StandardCharsets.UTF_8);
        assertThat(kept).as("the dead letter keeps the conversation").contains("I use IntelliJ.", "I cast spells.")
            .doesNotContain("sk-test-51FAKEabcdefghijklmnop1234");
    }

    @Test
    void shouldExtractAndCountTheReplacementWhenALoneSurrogateArrivesOnTheWire() {
        // A producer that writes WTF-8 / CESU-8 sends U+D800 as ED A0 80 (Java's own encoder cannot):
        // decoded as U+FFFD, accepted and counted, as ingest and the HTTP API do with invalid UTF-8.
        final byte[] wire = bytes(mira().setMessages(List.of(new Message(0, "user", "I live in XYZ town.",
            Instant.parse("2025-02-03T09:12:00Z")))).build());
        final int at = indexOf(wire, "XYZ".getBytes(StandardCharsets.US_ASCII));
        wire[at] = (byte) 0xED;
        wire[at + 1] = (byte) 0xA0;
        wire[at + 2] = (byte) 0x80;
        input.pipeInput("t1/u-mira", wire, SENT);
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT.plusSeconds(1));

        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(candidates.readValuesToList()).isNotEmpty();
        assertThat(count(ExtractionTopology.METER_REPLACED)).isEqualTo(1.0);
    }

    @Test
    void shouldFindALoneSurrogateInDecodedText() {
        assertThat(ConversationValidator.malformed("ok \uD83C\uDF1F emoji")).isFalse();
        assertThat(ConversationValidator.malformed("high \uD83C alone")).isTrue();
        assertThat(ConversationValidator.malformed("low \uDF1F alone")).isTrue();
        assertThat(ConversationValidator.malformed("ends high \uD83C")).isTrue();
        assertThat(ConversationValidator.malformed("replacement \uFFFD")).isTrue();
        // in text: accepted and counted; in the conversation id: refused (ids are never repaired)
        final ConversationCompleted text = mira().setMessages(List.of(new Message(0, "user", "bad \uDC00 \uFFFD", Instant.EPOCH)))
            .build();
        assertThat(new ConversationValidator(5, 100).problem(text)).isEmpty();
        assertThat(ConversationValidator.replacements(text)).isEqualTo(2);
        assertThat(new ConversationValidator(5, 100).problem(mira().setConversationId("c-\uFFFD").build()))
            .contains("conversationId contains a lone surrogate or U+FFFD");
    }

    @Test
    void shouldDeadLetterCorruptBytesAndGoOnWhenTheValueDoesNotDecode() {
        final byte[] garbage = "not avro at all".getBytes(StandardCharsets.UTF_8);
        final byte[] valid = bytes(mira().build());
        final byte[] truncated = Arrays.copyOf(valid, valid.length - 20);
        input.pipeInput("t1/u-mira", garbage, SENT);
        input.pipeInput("t1/u-mira", truncated, SENT.plusSeconds(1));
        input.pipeInput("t1/u-mira", (byte[]) null, SENT.plusSeconds(2));
        input.pipeInput("t1/u-mira", valid, SENT.plusSeconds(3));

        final List<TestRecord<String, byte[]>> dead = deadLetters.readRecordsToList();
        assertThat(dead).extracting(TestRecord::value).containsExactly(garbage, truncated, null);
        assertThat(dead).extracting(r -> header(r, DeadLetters.HEADER_STAGE))
            .containsOnly("deserialization");
        assertThat(dead.subList(0, 2)).extracting(r -> header(r, DeadLetters.HEADER_CLASS))
            .containsOnly("org.apache.kafka.common.errors.SerializationException");
        assertThat(header(dead.get(2), DeadLetters.HEADER_REASON)).startsWith("null value");
        assertThat(dead).extracting(r -> header(r, DeadLetters.HEADER_SOURCE_OFFSET))
            .containsExactly("0", "1", "2");
        assertThat(candidates.readValuesToList()).hasSize(1);
        assertThat(count(DeadLetters.METER)).isEqualTo(3.0);
    }

    /**
     * README trial: 200,000 bad records gave 200,004 WARN lines (52 MB) in the demo's log. The first ones of a kind are
     * logged with their reason, the rest counted in a summary; every one is still on the topic and in the counter.
     */
    @Test
    void shouldLogTheFirstDeadLettersOfAKindThenSumUpTheRestWhenManyRecordsAreBad() {
        final String name = DeadLetters.class.getName();
        final org.apache.logging.log4j.core.LoggerContext context =
            (org.apache.logging.log4j.core.LoggerContext) org.apache.logging.log4j.LogManager.getContext(false);
        final org.apache.logging.log4j.core.config.Configuration configuration = context.getConfiguration();
        final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        final org.apache.logging.log4j.core.appender.AbstractAppender capture =
            new org.apache.logging.log4j.core.appender.AbstractAppender("dead-letter-capture", null, null, true,
                org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
                @Override
                public void append(final org.apache.logging.log4j.core.LogEvent event) {
                    lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
                }
            };
        capture.start();
        final org.apache.logging.log4j.core.config.LoggerConfig logger =
            new org.apache.logging.log4j.core.config.LoggerConfig(name, org.apache.logging.log4j.Level.WARN, true);
        logger.addAppender(capture, org.apache.logging.log4j.Level.WARN, null);
        configuration.addLogger(name, logger);
        context.updateLoggers();
        try {
            DeadLetterLog.summarizeAll(); // the counts of this JVM's earlier topologies out of the way
            lines.clear();
            for (int i = 0; i < 200; i++) {
                input.pipeInput("t1/u-mira", ("not avro " + i).getBytes(StandardCharsets.UTF_8), SENT.plusMillis(i));
            }
            for (int i = 0; i < 3; i++) {
                input.pipeInput("t1/u-mira", bytes(mira().setTenantId("").build()), SENT.plusSeconds(1));
            }
            DeadLetterLog.summarizeAll(); // what the timer does every 30 s

            assertThat(deadLetters.readRecordsToList()).hasSize(203);
            assertThat(count(DeadLetters.METER)).isEqualTo(203.0);
            final String output = String.join("\n", lines);
            assertThat(lines).as(output).allMatch(l -> l.startsWith("WARN "));
            assertThat(lines).as(output).filteredOn(l -> l.contains("(deserialization at conversations-completed-0@"))
                .hasSize(DeadLetterLog.FIRST_PER_KIND);
            assertThat(lines).as(output).filteredOn(l -> l.contains("(validation at conversations-completed-0@"))
                .hasSize(3);
            assertThat(lines).as(output).filteredOn(l -> l.contains("the next ones of this kind are counted"))
                .singleElement().asString().contains("'deserialization org.apache.kafka.common.errors.SerializationException'");
            final java.util.regex.Pattern summary = java.util.regex.Pattern.compile(
                "not logged one by one since the last summary: [\\d,]+ \\(deserialization "
                    + "org\\.apache\\.kafka\\.common\\.errors\\.SerializationException: ([\\d,]+)\\)");
            // the timer may have written one summary in between: the counts add up either way
            assertThat(lines.stream().map(summary::matcher).filter(java.util.regex.Matcher::find)
                .mapToLong(m -> Long.parseLong(m.group(1).replace(",", ""))).sum()).as(output)
                .isEqualTo(200 - DeadLetterLog.FIRST_PER_KIND);
            assertThat(lines).as(output).hasSizeLessThanOrEqualTo(DeadLetterLog.FIRST_PER_KIND + 3 + 1 + 2);
        } finally {
            configuration.removeLogger(name);
            context.updateLoggers();
            capture.stop();
        }
    }

    @Test
    void shouldEmbedEachDistinctTextOfAConversationOnceAndGiveRepeatsTheSameVector() {
        final dev.engram.port.Embedder model = ScriptRoutedEmbedder.defaults();
        final List<String> embedded = new ArrayList<>();
        final dev.engram.port.Embedder counting = new dev.engram.port.Embedder() {
            @Override
            public String modelName() {
                return model.modelName();
            }

            @Override
            public int dimensions() {
                return model.dimensions();
            }

            @Override
            public List<float[]> embedAll(final List<String> texts) {
                embedded.addAll(texts);
                return model.embedAll(texts);
            }
        };
        // as an LLM that repeats the user's words, next to the offline episodes of the same turns
        final RuleBasedExtractor offline = new RuleBasedExtractor();
        start(new MemoryExtractor() {
            @Override
            public List<ExtractedMemory> extract(final ConversationCompleted c, final UserProfile p) {
                final List<ExtractedMemory> once = offline.extract(c, p);
                final List<ExtractedMemory> twice = new ArrayList<>(once);
                twice.addAll(once);
                return twice;
            }

            @Override
            public String name() {
                return "twice";
            }
        }, counting);

        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT);

        final List<MemoryCandidate> out = candidates.readValuesToList();
        assertThat(out).hasSizeGreaterThanOrEqualTo(2).hasSize(2 * embedded.size());
        assertThat(embedded).doesNotHaveDuplicates();
        for (int i = 0; i < out.size() / 2; i++) {
            assertThat(out.get(i + out.size() / 2).getContent()).isEqualTo(out.get(i).getContent());
            assertThat(out.get(i + out.size() / 2).getEmbedding()).isEqualTo(out.get(i).getEmbedding());
            assertThat(Vectors.toArray(out.get(i).getEmbedding())).containsExactly(model.embed(out.get(i).getContent()));
        }
    }

    @Test
    void shouldDeadLetterTheConversationAndGoOnWhenExtractionFails() {
        start(new FailingFor("c-boom"));
        final byte[] boom = bytes(mira().setConversationId("c-boom").build());
        input.pipeInput("t1/u-mira", boom, SENT);
        input.pipeInput("t1/u-mira", bytes(mira().build()), SENT.plusSeconds(1));

        final TestRecord<String, byte[]> dead = deadLetters.readRecord();
        assertThat(dead.value()).isEqualTo(boom);
        assertThat(header(dead, DeadLetters.HEADER_STAGE)).isEqualTo("extraction");
        assertThat(header(dead, DeadLetters.HEADER_CLASS))
            .isEqualTo(MemoryExtractor.ExtractionException.class.getName());
        assertThat(header(dead, DeadLetters.HEADER_REASON)).isEqualTo("model refused c-boom");
        assertThat(candidates.readValuesToList()).hasSize(1);
    }

    private static int indexOf(final byte[] haystack, final byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    /** The real rule-based extractor, failing as an LLM extractor would for one conversation id. */
    private static final class FailingFor implements MemoryExtractor {
        private final String conversationId;
        private final RuleBasedExtractor delegate = new RuleBasedExtractor();

        FailingFor(final String conversationId) {
            this.conversationId = conversationId;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public List<ExtractedMemory> extract(final ConversationCompleted conversation, final UserProfile profile) {
            if (conversation.getConversationId().equals(conversationId)) {
                throw new ExtractionException("model refused " + conversationId);
            }
            return delegate.extract(conversation, profile);
        }
    }
}
