package dev.engram.ops;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.extractor.ExtractorApp;
import dev.engram.retriever.RetrieverApp;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.stack.MemoryState;
import dev.engram.stack.TopicScan;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.testing.Waits;
import dev.engram.topics.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Replay determinism of the knowledge-update marks (issue 26): a history with a move, an assistant echo, a tool
 * switched, an employer corrected by value alone through {@code PUT .../memories/{id}}, a food like deleted through
 * {@code DELETE .../memories/{id}} and a late conversation dated before that correction and deletion naming the
 * employer's former value and saying the like again runs through the real
 * extractor, consolidator and retriever on an in-process broker; the memories that still state an old value are
 * marked ({@code validTo}, {@code supersededBy}). Then {@code bin/engram rebuild}'s path ({@link Rebuild}: Kafka's
 * StreamsResetter, local state deleted, {@code memory-candidates} and {@code memory-commands} replayed) rebuilds the
 * consolidator, and {@code verify} finds no difference: the same memories, marks included, byte for byte.
 *
 * <p>Event times are the weeks before the run, so the correction (stamped by the route with the wall clock) comes
 * after every conversation it follows, as on a live deployment, and the last conversation after it.
 */
class KnowledgeUpdateRebuildIT {

    private static final String TENANT = "t";
    private static final String USER = "u-rebuild";
    /** A second user: "I live in Lyon" deleted, then a late "I live in Paris" dated before Lyon (session 15 trial). */
    private static final String MOVER = "u-rebuild-paris";
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    @Test
    void shouldRebuildTheSameOutdatedMarksWhenTheConsolidatorReplaysCandidatesAndCommands() throws Exception {
        final Path work = Files.createTempDirectory("engram-rebuild-marks");
        final EngramConfig config = kafka.engramConfig(Map.of(RetrieverConfig.AUTH_ENABLED, false));
        final String bootstrap = kafka.bootstrapServers();
        final Instant t0 = Instant.now().minus(Duration.ofDays(60)).truncatedTo(ChronoUnit.SECONDS);
        final Map<String, List<Memory>> before;
        try (ExtractorApp extractor = ExtractorApp.start(config);
             ConsolidatorApp consolidator = ConsolidatorApp.start(config);
             RetrieverApp.Handle retriever = RetrieverApp.start(config)) {
            publish(config, conversation(TENANT, USER, "c-1",
                user("I live in Lisbon and I work at Initech as a developer.", at(t0, 0)),
                assistant("Lisbon is lovely, and Initech sounds interesting.", at(t0, 0, 30))),
                conversation(TENANT, USER, "c-2", user("I use Jira for all my project tracking at work.", at(t0, 2)),
                    user("I love steak.", at(t0, 2, 60))),
                conversation(TENANT, USER, "c-3",
                    user("I moved to Porto last weekend, the river view is amazing.", at(t0, 20)),
                    assistant("As you told me, you work at Initech and live in Braga.", at(t0, 20, 30))),
                conversation(TENANT, USER, "c-4",
                    user("I no longer use Jira, we switched to Linear and it's much faster.", at(t0, 30))),
                conversation(TENANT, MOVER, "c-lyon", user("I live in Lyon.", at(t0, 12))));
            settle(bootstrap, extractor);
            final Memory employer = activeFact(bootstrap, config, "employer");
            assertThat(employer.getValue()).isEqualTo("Initech");
            final HttpResponse<String> put = sendUntilServed("PUT", retriever.baseUrl() + "/v1/tenants/" + TENANT + "/users/"
                + USER + "/memories/" + employer.getMemoryId(), "{\"value\":\"Hooli\"}");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(202);
            final HttpResponse<String> delete = sendUntilServed("DELETE", retriever.baseUrl() + "/v1/tenants/" + TENANT
                + "/users/" + USER + "/memories/" + activeFact(bootstrap, config, "preference:steak").getMemoryId(), null);
            assertThat(delete.statusCode()).as(delete.body()).isEqualTo(202);
            final HttpResponse<String> deleteLyon = sendUntilServed("DELETE", retriever.baseUrl() + "/v1/tenants/" + TENANT
                + "/users/" + MOVER + "/memories/" + activeFact(bootstrap, config, MOVER, "city").getMemoryId(), null);
            assertThat(deleteLyon.statusCode()).as(deleteLyon.body()).isEqualTo(202);
            settle(bootstrap, extractor);
            // a conversation dated before the correction that reaches Engram after it (a late upload): it names the
            // value the fact held then, which a replay applies before the correction (candidates and commands in time
            // order), the live run after it
            publish(config, conversation(TENANT, USER, "c-late",
                user("Another long evening at Initech, where I work, the release slipped again.", at(t0, 10)),
                // and says again what the user deleted: older data of a deleted statement, not stored (DeletedStatements)
                user("I love steak.", at(t0, 10, 60))),
                // dated before the deleted Lyon began: Lyon superseded it in time order, so it is history, not current
                conversation(TENANT, MOVER, "c-paris", user("I live in Paris.", at(t0, 5))));
            settle(bootstrap, extractor);
            publish(config, conversation(TENANT, USER, "c-5",
                // after the correction in event time too: a replay orders the two topics by timestamp, and a
                // time truncated to the second could fall before the correction's own (wall-clock) stamp
                user("Busy week at Hooli, we shipped the new search page.", Instant.now().truncatedTo(ChronoUnit.SECONDS)
                    .plusSeconds(1).toString())));
            settle(bootstrap, extractor);
            assertThat(PendingObservations.awaitNone(TopicScan.client(bootstrap), WAIT)).isTrue();
            before = state(bootstrap, config);
        }
        final List<Memory> marked = before.get(TENANT + "/" + USER).stream()
            .filter(m -> m.getStatus() == MemoryStatus.ACTIVE && m.getValidTo() != null).toList();
        assertThat(marked).as("episodes that still state Lisbon or Initech are marked, not archived")
            .anyMatch(m -> m.getContent().contains("Lisbon") && m.getSupersededBy() != null)
            .anyMatch(m -> m.getContent().contains("Initech") && m.getSupersededBy() != null);
        final Memory corrected = before.get(TENANT + "/" + USER).stream()
            .filter(m -> "employer".equals(m.getKey()) && m.getStatus() == MemoryStatus.ACTIVE).findFirst().orElseThrow();
        assertThat(corrected.getFormerValues()).as("the value it held before the PUT, kept")
            .extracting(f -> f.getValue()).containsExactly("Initech");
        assertThat(before.get(TENANT + "/" + USER)).as("the late conversation naming Initech: history, not current")
            .filteredOn(m -> m.getContent().contains("Another long evening")).isNotEmpty().allSatisfy(m -> {
                assertThat(m.getValidTo()).isEqualTo(corrected.getFormerValues().get(0).getCorrectedAt());
                assertThat(m.getSupersededBy()).isEqualTo(corrected.getMemoryId());
            });
        assertThat(before.get(TENANT + "/" + USER)).as("the corrected fact, rewritten by value alone")
            .anyMatch(m -> "employer".equals(m.getKey()) && m.getStatus() == MemoryStatus.ACTIVE
                && m.getContent().contains("Hooli") && !m.getContent().contains("Initech"))
            .anyMatch(m -> "uses:jira".equals(m.getKey()) && m.getArchiveReason() == ArchiveReason.NEGATED)
            .as("the deleted steak fact, not back from the late conversation").noneMatch(m -> "preference:steak".equals(m.getKey()));
        assertThat(before.get(TENANT + "/" + MOVER)).as("Paris, said before the deleted Lyon began: history")
            .filteredOn(m -> "city".equals(m.getKey())).singleElement().satisfies(m -> {
                assertThat(m.getStatus()).isEqualTo(MemoryStatus.ARCHIVED);
                assertThat(m.getValidTo()).isEqualTo(Instant.parse(at(t0, 12)));
            });

        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final Rebuild.Report report = new Rebuild(config, Rebuild.App.CONSOLIDATOR, null, false, true, work, WAIT,
            new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        assertThat(report.differences()).as(printed.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(report.after().users()).isEqualTo(report.before().users());
        assertThat(report.updatesWritten()).as("the rebuild wrote its own events").isPositive();
        final Map<String, Memory> rebuilt = state(bootstrap, config).get(TENANT + "/" + USER).stream()
            .collect(Collectors.toMap(Memory::getMemoryId, Function.identity()));
        for (final Memory m : marked) {
            assertThat(rebuilt.get(m.getMemoryId())).as(m.getContent()).isNotNull().satisfies(r -> {
                assertThat(r.getValidTo()).isEqualTo(m.getValidTo());
                assertThat(r.getSupersededBy()).isEqualTo(m.getSupersededBy());
                assertThat(r.getStatus()).isEqualTo(MemoryStatus.ACTIVE);
            });
        }
        final int verify = new CommandLine(new VerifyCommand()).execute("--before", work.resolve("before.json").toString(),
            "--after", work.resolve("after.json").toString());
        assertThat(verify).as("bin/engram verify of the rebuild's snapshots").isZero();
    }

    private static String at(final Instant t0, final int day) {
        return at(t0, day, 0);
    }

    private static String at(final Instant t0, final int day, final int seconds) {
        return t0.plus(Duration.ofDays(day)).plusSeconds(seconds).toString();
    }

    private static void publish(final EngramConfig config, final ConversationCompleted... conversations) {
        kafka.send(Topic.CONVERSATIONS_COMPLETED.name(), Topic.CONVERSATIONS_COMPLETED.keySerializer(),
            Topic.CONVERSATIONS_COMPLETED.valueSerializer(config), java.util.Arrays.stream(conversations)
                .map(c -> new EmbeddedKafka.Record<>(c.getTenantId() + "/" + c.getUserId(), c, c.getCompletedAt()))
                .toList());
    }

    /** Waits until the extractor's candidates, then the consolidator's output, are committed and readable. */
    private static void settle(final String bootstrap, final ExtractorApp extractor) {
        OpsTestSupport.awaitExtracted(bootstrap, extractor::pendingConversations, WAIT);
        OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_COMMANDS.name()),
            WAIT);
    }

    private static Map<String, List<Memory>> state(final String bootstrap, final EngramConfig config) {
        return MemoryState.read(TopicScan.client(bootstrap), null, WAIT, Topic.MEMORY_UPDATED.valueDeserializer(config))
            .memories();
    }

    private static Memory activeFact(final String bootstrap, final EngramConfig config, final String key) {
        return activeFact(bootstrap, config, USER, key);
    }

    private static Memory activeFact(final String bootstrap, final EngramConfig config, final String userId,
                                     final String key) {
        return state(bootstrap, config).getOrDefault(TENANT + "/" + userId, List.of()).stream()
            .filter(m -> m.getStatus() == MemoryStatus.ACTIVE && key.equals(m.getKey())).findFirst()
            .orElseThrow(() -> new AssertionError("no ACTIVE " + key));
    }

    /** PUT or DELETE, asked again while the retriever answers 503 (it has not caught up with memory-updated yet). */
    private static HttpResponse<String> sendUntilServed(final String method, final String url, final String body)
        throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        return Waits.until(method + " " + url + " served (not 503/404)", WAIT, () -> http.send(HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
            .build(), HttpResponse.BodyHandlers.ofString()), r -> r.statusCode() != 503 && r.statusCode() != 404);
    }
}
