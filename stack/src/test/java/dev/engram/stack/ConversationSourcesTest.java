package dev.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.stack.ConversationSources.Format;
import dev.engram.stack.ConversationSources.Outcome;
import dev.engram.stack.ConversationSources.Problem;
import dev.engram.stack.ConversationSources.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConversationSourcesTest {

    private static final String LOCOMO_DEV = "../shared/data/locomo/locomo_dev_conv0-6.json";

    @TempDir
    Path dir;

    @Test
    void shouldReadCaseInputsWhenGivenJsonLines() throws IOException {
        final Path file = write("case.jsonl", """
            {"tenantId":"t1","userId":"u-mira","conversationId":"c-101","messages":[{"role":"user","content":"These days I write almost everything in Kotlin.","timestamp":"2025-02-03T09:12:00Z"},{"role":"assistant","content":"Noted, Kotlin it is.","timestamp":"2025-02-03T09:12:04Z"}]}

            {"tenantId":"t1","userId":"u-mira","conversationId":"c-102","completedAt":"2025-02-10T18:00:00+01:00","metadata":{"platform":"web"},"messages":[{"index":7,"role":"user","content":"As I said before, Kotlin is my main language.","timestamp":"2025-02-10T17:40:00Z"}]}
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);

        assertThat(read.getValue().format()).isEqualTo(Format.JSON_LINES);
        assertThat(read.getValue().problems()).isEmpty();
        assertThat(read.getValue().valid()).isEqualTo(2);
        final ConversationCompleted first = read.getKey().get(0);
        assertThat(first.getTenantId()).isEqualTo("t1");
        assertThat(first.getUserId()).isEqualTo("u-mira");
        assertThat(first.getConversationId()).isEqualTo("c-101");
        assertThat(first.getMessages()).extracting(Message::getIndex).containsExactly(0, 1);
        assertThat(first.getMessages()).extracting(Message::getRole).containsExactly("user", "assistant");
        assertThat(first.getMessages().get(1).getTimestamp()).isEqualTo(Instant.parse("2025-02-03T09:12:04Z"));
        assertThat(first.getCompletedAt()).as("defaults to the last message").isEqualTo(Instant.parse("2025-02-03T09:12:04Z"));
        final ConversationCompleted second = read.getKey().get(1);
        assertThat(second.getMessages().get(0).getIndex()).isEqualTo(7);
        assertThat(second.getCompletedAt()).isEqualTo(Instant.parse("2025-02-10T17:00:00Z"));
        assertThat(second.getMetadata()).containsEntry("platform", "web");
    }

    @Test
    void shouldReadEachElementAsAConversationWhenGivenAJsonArrayOfConversations() throws IOException {
        final Path file = write("export.json", """
            [
              {"tenantId":"t1","userId":"u-mira","conversationId":"c-101","messages":[{"role":"user","content":"I write Kotlin.","timestamp":"2025-02-03T09:12:00Z"}]},
              {"tenantId":"t1","userId":"u-mira","conversationId":"c-102","messages":[{"role":"robot","content":"Hi","timestamp":"2025-02-03T09:13:00Z"}]},
              "not a conversation",
              {"tenantId":"t1","userId":"u-mira","conversationId":"c-104","messages":[{"role":"user","content":"x","timestamp":"yesterday"}]}
            ]
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);

        assertThat(read.getValue().format()).isEqualTo(Format.JSON_ARRAY);
        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId).containsExactly("c-101", "c-102");
        assertThat(read.getValue().valid()).isEqualTo(1);
        assertThat(read.getValue().rejected()).isEqualTo(2);
        assertThat(read.getValue().problems()).extracting(Problem::location)
            .containsExactly("element 2", "element 3", "element 4");
        assertThat(read.getValue().problems().get(1).reason()).isEqualTo("not a JSON object");
    }

    @Test
    void shouldRefuseNamingTheFormatsWhenAJsonArrayHoldsNeitherConversationsNorLoCoMoSamples() throws IOException {
        final Path strings = write("strings.json", "[\"hello\", \"world\"]");
        final Path objects = write("objects.json", "[{\"title\": \"chat\", \"turns\": []}]");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConversationSources.readAll(strings))
            .isInstanceOf(ConversationSources.UnknownFormat.class).hasMessageContaining("not an object")
            .hasMessageContaining("JSON Lines").hasMessageContaining("a JSON array of such conversation objects")
            .hasMessageContaining("LoCoMo");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConversationSources.readAll(objects))
            .isInstanceOf(ConversationSources.UnknownFormat.class).hasMessageContaining("[title, turns]");
        assertThat(ConversationSources.readAll(write("empty.json", " [ ] ")).getValue().records()).isZero();
    }

    @Test
    void shouldReportALoCoMoSampleWithoutSessionsWhenItAddsNothing() throws IOException {
        final Path file = write("locomo-ish.json", "[{\"sample_id\": \"conv-x\", \"conversation\": {\"speaker_a\": \"A\"}}]");

        final Report report = ConversationSources.readAll(file).getValue();

        assertThat(report.format()).isEqualTo(Format.LOCOMO);
        assertThat(report.rejected()).isEqualTo(1);
        assertThat(report.problems()).extracting(Problem::location).containsExactly("conv-x");
    }

    /** README trial: epoch seconds, which many platforms send, were read as milliseconds and dated January 1970. */
    @Test
    void shouldRejectATimestampThatLooksLikeEpochSecondsNamingTheMillisecondsToSend() throws IOException {
        final Path file = write("seconds.jsonl", """
            {"tenantId":"t1","userId":"u1","conversationId":"c1","messages":[{"role":"user","content":"I live in Reykjavik.","timestamp":1764979200}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c2","messages":[{"role":"user","content":"I live in Oslo.","timestamp":1764979200000}]}
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);

        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId).containsExactly("c2");
        assertThat(read.getKey().get(0).getMessages().get(0).getTimestamp()).isEqualTo(Instant.parse("2025-12-06T00:00:00Z"));
        assertThat(read.getValue().problems()).singleElement().satisfies(p -> {
            assertThat(p.location()).isEqualTo("line 1");
            assertThat(p.outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(p.reason()).contains("messages[0].timestamp is 1764979200: epoch milliseconds are expected",
                "1970-01-21T10:16:19.200Z", "as epoch seconds it would be 2025-12-06T00:00:00Z", "send 1764979200000");
        });
    }

    @Test
    void shouldPublishInvalidRecordsAndRejectUnparseableLinesWithLineNumbersWhenInputIsBad() throws IOException {
        final Path file = write("bad.jsonl", """
            {"tenantId":"t1","userId":"u1","conversationId":"c1","messages":[{"role":"user","content":"I use IntelliJ.","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","conversationId":"c2","messages":[{"role":"user","content":"hi","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c3","completedAt":"2025-01-01T10:00:00Z","messages":[]}
            this is not json
            {"tenantId":"t1","userId":"u1","conversationId":"c4","messages":[{"role":"user","content":"x","timestamp":"yesterday"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c5","messages":[{"role":"user","content":"bad \\ud800 half","timestamp":"2025-01-01T10:00:00Z"}]}
            [1, 2]
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);
        final Report report = read.getValue();

        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId)
            .containsExactly("c1", "c2", "c3", "c5");
        assertThat(report.records()).isEqualTo(4);
        assertThat(report.valid()).isEqualTo(2);
        assertThat(report.rejected()).isEqualTo(3);
        assertThat(report.replaced()).isEqualTo(1);
        assertThat(report.problems()).extracting(Problem::location)
            .containsExactly("line 2", "line 3", "line 4", "line 5", "line 6", "line 7");
        assertThat(report.problems()).extracting(Problem::outcome).containsExactly(Outcome.DEAD_LETTER,
            Outcome.DEAD_LETTER, Outcome.REJECTED, Outcome.REJECTED, Outcome.REPLACED, Outcome.REJECTED);
        assertThat(report.problems().get(0).reason()).contains("userId");
        assertThat(report.problems().get(1).reason()).contains("no messages");
        assertThat(report.problems().get(3).reason()).contains("messages[0].timestamp");
        assertThat(report.problems().get(4).reason()).contains("replaced");
        // a lone surrogate is replaced, as invalid UTF-8 is, not refused
        assertThat(read.getKey().get(3).getMessages().get(0).getContent()).isEqualTo("bad \uFFFD half");
    }

    /**
     * A record the extractor's validation will dead-letter for what it holds (a role no extractor reads, blank
     * content) is named by line like a missing user: published, and not counted valid. The report used to say
     * nothing of a "robot" turn.
     */
    @Test
    void shouldFlagByLineARecordTheExtractorWillDeadLetterWhenARoleIsUnknownOrAContentBlank() throws IOException {
        final Path file = write("roles.jsonl", """
            {"tenantId":"t1","userId":"u1","conversationId":"c1","messages":[{"role":"user","content":"I use IntelliJ.","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c2","messages":[{"role":"user","content":"hi","timestamp":"2025-01-01T10:00:00Z"},{"role":"robot","content":"beep","timestamp":"2025-01-01T10:00:01Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c3","messages":[{"role":" Assistant ","content":"ok","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c4","messages":[{"role":"user","content":"   ","timestamp":"2025-01-01T10:00:00Z"}]}
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);
        final Report report = read.getValue();

        assertThat(report.records()).isEqualTo(4);
        assertThat(report.rejected()).isZero();
        assertThat(report.valid()).isEqualTo(2);
        assertThat(report.problems()).extracting(Problem::location).containsExactly("line 2", "line 4");
        assertThat(report.problems()).extracting(Problem::outcome).containsOnly(Outcome.DEAD_LETTER);
        assertThat(report.problems().get(0).toString()).contains("message 1 has the role 'robot'",
            "user, assistant, system, tool", "the extractor will dead-letter it");
        assertThat(report.problems().get(1).reason()).contains("message 0 has no content");
    }

    @Test
    void shouldReportEachBadLineByNumberAndReadOnWhenLinesHaveInvalidUtf8TwoObjectsOrTimestampsOutOfRange()
        throws IOException {
        final String ok = "{\"tenantId\":\"t1\",\"userId\":\"u1\",\"conversationId\":\"%s\",\"messages\":[{\"role\":\"user\","
            + "\"content\":\"%s\",\"timestamp\":%s}]}";
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        final java.util.function.Consumer<String> line = text -> bytes.writeBytes((text + "\n").getBytes(StandardCharsets.UTF_8));
        line.accept(String.format(ok, "c1", "I use IntelliJ.", "\"2025-01-01T10:00:00Z\""));
        // line 2: Latin-1 bytes in a UTF-8 file ("Caf\xe9") and a stray 0xFF
        bytes.writeBytes(String.format(ok, "c2", "Caf@ au lait #", "\"2025-01-01T10:00:00Z\"")
            .getBytes(StandardCharsets.UTF_8));
        final byte[] all = bytes.toByteArray();
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '@') {
                all[i] = (byte) 0xE9;
            } else if (all[i] == '#') {
                all[i] = (byte) 0xFF;
            }
        }
        bytes.reset();
        bytes.writeBytes(all);
        line.accept("");
        line.accept(String.format(ok, "c3", "one", "\"2025-01-01T10:00:00Z\"") + " "
            + String.format(ok, "c3b", "two", "\"2025-01-01T10:00:00Z\""));
        line.accept(String.format(ok, "c4", "far future", "\"+999999999-12-31T23:59:59Z\""));
        line.accept(String.format(ok, "c5", "huge millis", "100000000000000000000000000000"));
        line.accept(String.format(ok, "c6", "before 1970", "\"1969-12-31T23:59:59Z\""));
        line.accept(String.format(ok, "c7", "trailing", "\"2025-01-01T10:00:00Z\"") + " }");
        line.accept(String.format(ok, "c8", "still read", "\"2025-01-01T10:00:00Z\""));
        final Path file = dir.resolve("mixed.jsonl");
        Files.write(file, bytes.toByteArray());

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);
        final Report report = read.getValue();

        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId).containsExactly("c1", "c2", "c8");
        assertThat(read.getKey().get(1).getMessages().get(0).getContent()).isEqualTo("Caf\uFFFD au lait \uFFFD");
        assertThat(report.replaced()).isEqualTo(2);
        assertThat(report.rejected()).isEqualTo(5);
        assertThat(report.problems()).extracting(Problem::location)
            .containsExactly("line 2", "line 3", "line 4", "line 5", "line 6", "line 7");
        assertThat(report.problems()).extracting(Problem::outcome).containsExactly(Outcome.REPLACED,
            Outcome.REJECTED, Outcome.REJECTED, Outcome.REJECTED, Outcome.REJECTED, Outcome.REJECTED);
        assertThat(report.problems().get(0).reason()).contains("2 invalid UTF-8");
        assertThat(report.problems().get(1).reason()).contains("2 JSON values on one line");
        assertThat(report.problems().get(2).reason()).contains("messages[0].timestamp is out of range");
        assertThat(report.problems().get(3).reason()).contains("messages[0].timestamp is out of range");
        assertThat(report.problems().get(4).reason()).contains("out of range").contains("1970-01-01T00:00:00Z");
        assertThat(report.problems().get(5).reason()).contains("text after the JSON object");
    }

    /**
     * A text field that is not a JSON string is refused by line with the reason {@code POST …/conversations} gives
     * (a fresh user's trial: ingest published {@code "content": 5} as the text "5" and counted it valid).
     */
    @Test
    void shouldRefuseByLineATextFieldThatIsNotAStringWithTheReasonThePostRouteGives() throws IOException {
        final Path file = write("types.jsonl", """
            {"tenantId":"t1","userId":"u1","conversationId":"c1","messages":[{"role":"user","content":5,"timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c2","messages":[{"role":"user","content":"ok","timestamp":"2025-01-01T10:00:00Z"},{"role":true,"content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c3","metadata":{"platform":{"name":"web"}},"messages":[{"role":"user","content":"ok","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c4","messages":[{"role":"user","content":"I use IntelliJ.","timestamp":"2025-01-01T10:00:00Z"}]}
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);
        final Report report = read.getValue();

        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId).containsExactly("c4");
        assertThat(report.valid()).isEqualTo(1);
        assertThat(report.rejected()).isEqualTo(3);
        assertThat(report.problems()).extracting(Problem::location).containsExactly("line 1", "line 2", "line 3");
        assertThat(report.problems()).extracting(Problem::outcome).containsOnly(Outcome.REJECTED);
        assertThat(report.problems()).extracting(Problem::reason).containsExactly(
            "messages[0].content must be a string, not a number (5)",
            "messages[1].role must be a string, not a boolean (true)",
            "metadata.platform must be a string, not an object");
    }

    @Test
    void shouldRefuseALineWhoseIdentifierIsNotValidUtf8RatherThanRepairIt() throws IOException {
        final Path file = write("ids.jsonl", """
            {"tenantId":"t1","userId":"u\\udc00","conversationId":"c1","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            """);

        final Report report = ConversationSources.readAll(file).getValue();

        assertThat(report.records()).isZero();
        assertThat(report.problems()).singleElement().satisfies(p -> {
            assertThat(p.outcome()).isEqualTo(Outcome.REJECTED);
            assertThat(p.reason()).contains("userId").contains("not repaired");
        });
    }

    @Test
    void shouldRefuseATenantTheApiCannotAddressByLineAndRuleWhileBlankOnesStillGoToTheDeadLetterTopic()
        throws IOException {
        final Path file = write("tenants.jsonl", """
            {"tenantId":"acme/eu","userId":"u1","conversationId":"c1","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"u1","conversationId":"c2","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t\\u0007","userId":"u1","conversationId":"c3","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"","userId":"u1","conversationId":"c4","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"emoji\\ud83d\\ude00","conversationId":"c5","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            {"tenantId":"t1","userId":"lone\\ud83d","conversationId":"c6","messages":[{"role":"user","content":"x","timestamp":"2025-01-01T10:00:00Z"}]}
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);
        final Report report = read.getValue();

        // an emoji is a valid (paired) surrogate pair: the user is addressable; an unpaired surrogate is not text
        assertThat(read.getKey()).extracting(ConversationCompleted::getConversationId).containsExactly("c2", "c4", "c5");
        assertThat(read.getKey().get(2).getUserId()).isEqualTo("emoji\ud83d\ude00");
        assertThat(new dev.engram.core.UserKey("t1", "emoji\ud83d\ude00").wire()).isEqualTo("t1/emoji\ud83d\ude00");
        assertThat(report.rejected()).isEqualTo(3);
        assertThat(report.problems()).extracting(Problem::location).containsExactly("line 1", "line 3", "line 4", "line 6");
        assertThat(report.problems()).extracting(Problem::outcome)
            .containsExactly(Outcome.REJECTED, Outcome.REJECTED, Outcome.DEAD_LETTER, Outcome.REJECTED);
        // the same rule, in the same words, as the extractor's validation and the API's path check
        final String rule = assertThrowsMessage(() -> new dev.engram.core.UserKey("acme/eu", "u1"));
        assertThat(report.problems().get(0).reason()).contains("invalid user key").contains(rule);
        assertThat(report.problems().get(1).reason()).contains("control character or an unpaired surrogate");
    }

    private static String assertThrowsMessage(final Runnable r) {
        return org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void shouldMapEachSessionToOneConversationPerSpeakerWhenGivenLoCoMo() throws IOException {
        final Path file = write("mini-locomo.json", """
            [{"sample_id": "conv-x", "conversation": {
               "speaker_a": "Ann", "speaker_b": "Bob",
               "session_2_date_time": "10:04 am on 19 June, 2023",
               "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "Morning!"}],
               "session_1_date_time": "1:56 pm on 8 May, 2023",
               "session_1": [
                 {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob, I adopted a dog."},
                 {"speaker": "Bob", "dia_id": "D1:2", "text": "Look at this.", "img_url": ["u"], "blip_caption": "a photo of a cat"},
                 {"speaker": "Ann", "dia_id": "D1:3", "text": "Cute \\ud83d\\ude00"}],
               "session_9_date_time": "1:00 pm on 1 July, 2023"},
             "qa": []}]
            """);

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(file);

        assertThat(read.getValue().format()).isEqualTo(Format.LOCOMO);
        assertThat(read.getValue().problems()).isEmpty();
        final List<ConversationCompleted> records = read.getKey();
        assertThat(records).extracting(c -> c.getConversationId() + " " + c.getUserId()).containsExactly(
            "conv-x:session_1 conv-x:Ann", "conv-x:session_1 conv-x:Bob",
            "conv-x:session_2 conv-x:Ann", "conv-x:session_2 conv-x:Bob");
        final ConversationCompleted ann = records.get(0);
        assertThat(ann.getTenantId()).isEqualTo("locomo");
        assertThat(ann.getMessages()).extracting(Message::getIndex).containsExactly(0, 1, 2);
        assertThat(ann.getMessages()).extracting(Message::getRole).containsExactly("user", "assistant", "user");
        assertThat(ann.getMessages().get(1).getContent()).isEqualTo("Look at this. [image: a photo of a cat]");
        assertThat(ann.getMessages().get(2).getContent()).isEqualTo("Cute \uD83D\uDE00");
        assertThat(ann.getMessages()).extracting(Message::getTimestamp).containsExactly(
            Instant.parse("2023-05-08T13:56:00Z"), Instant.parse("2023-05-08T13:56:01Z"), Instant.parse("2023-05-08T13:56:02Z"));
        assertThat(ann.getCompletedAt()).isEqualTo(Instant.parse("2023-05-08T13:56:02Z"));
        assertThat(ann.getMetadata()).containsEntry(ConversationSources.DIA_IDS, "D1:1,D1:2,D1:3");
        assertThat(records.get(1).getMessages()).extracting(Message::getRole).containsExactly("assistant", "user", "assistant");
    }

    @Test
    void shouldGive374ConversationsWhenReadingTheLoCoMoDevSplit() throws IOException {
        final Optional<Path> dev = ProjectPaths.existing(LOCOMO_DEV);
        assumeTrue(dev.isPresent(), "Skipped: " + LOCOMO_DEV + " (next to the repository) is absent");

        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(dev.get());

        assertThat(read.getValue().problems()).isEmpty();
        assertThat(read.getKey()).hasSize(374);
        assertThat(read.getKey().stream().mapToInt(c -> c.getMessages().size()).sum()).isEqualTo(2 * 4124);
        final ConversationCompleted first = read.getKey().get(0);
        assertThat(first.getUserId()).isEqualTo("conv-26:Caroline");
        assertThat(first.getConversationId()).isEqualTo("conv-26:session_1");
        assertThat(first.getMessages().get(0).getTimestamp()).isEqualTo(Instant.parse("2023-05-08T13:56:00Z"));
        assertThat(first.getMetadata().get(ConversationSources.DIA_IDS)).startsWith("D1:1,D1:2,");
        assertThat(read.getKey()).filteredOn(c -> c.getUserId().startsWith("conv-26:"))
            .extracting(ConversationCompleted::getConversationId).doesNotContain("conv-26:session_20");
    }

    @Test
    void shouldFindTheShippedSampleWhenResolvingFromTheModuleDirectory() throws IOException {
        final Map.Entry<List<ConversationCompleted>, Report> read = ConversationSources.readAll(ProjectPaths.sample().orElseThrow());

        assertThat(read.getValue().rejected()).isZero();
        assertThat(read.getValue().problems()).hasSize(2).allMatch(Problem::published);
        assertThat(read.getValue().valid()).isBetween(20, 30);
    }

    private Path write(final String name, final String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }
}
