package dev.engram.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** case-06 (a)–(f), retries on 429 / 500 / timeouts, validation and chunking, against {@link StubChatServer}. */
class LlmMemoryExtractorTest {

    private static final String FACTS = "{\"memories\":["
        + "{\"type\":\"SEMANTIC\",\"category\":\"TECHNICAL\",\"key\":\"preferred_language\",\"value\":\"Python\","
        + "\"content\":\"Prefers Python for scripting\",\"importance\":0.8,\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0]},"
        + "{\"type\":\"SEMANTIC\",\"category\":\"CONTEXT\",\"key\":\"office_city\",\"value\":\"Berlin\","
        + "\"content\":\"Works from the Berlin office\",\"importance\":0.7,\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0]}]}";

    /** The client's timeout in every test but the one about timeouts. */
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    /** The timeout of the test about timeouts, and the delay that exceeds it. */
    private static final Duration SHORT_TIMEOUT = Duration.ofSeconds(2);

    private StubChatServer server;
    private SimpleMeterRegistry registry;
    private LlmMemoryExtractor extractor;

    @BeforeEach
    void start() throws Exception {
        server = StubChatServer.start(8);
        registry = new SimpleMeterRegistry();
        // a timeout far above any loaded machine's local round trip: at 500 ms a stub reply slowed by load (CI at load 47)
        // timed out, its scripted answer was spent on the abandoned attempt and the retry got the default responder's
        extractor = extractor(LlmSettings.of(server.baseUrl(), "stub-model")
            .withResilience(TIMEOUT, 3, Duration.ofMillis(5), Duration.ofSeconds(1)));
    }

    private LlmMemoryExtractor extractor(final LlmSettings settings) {
        return new LlmMemoryExtractor(new ChatCompletionsClient(settings, registry, "test"), registry, "test");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ConversationCompleted lee(final String... texts) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            messages.add(Message.newBuilder().setIndex(i).setRole(i % 2 == 0 ? "user" : "assistant")
                .setContent(texts[i]).setTimestamp(Instant.parse("2025-05-02T10:00:00Z").plusSeconds(i)).build());
        }
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u-lee").setConversationId("c-501")
            .setMessages(messages).setCompletedAt(Instant.parse("2025-05-02T10:05:00Z")).build();
    }

    private static ConversationCompleted case06() {
        return lee("I prefer Python for scripting and I work from the Berlin office.");
    }

    private static Map<String, String> facts(final List<ExtractedMemory> memories) {
        final Map<String, String> out = new HashMap<>();
        memories.forEach(m -> out.put(m.key(), m.value()));
        return out;
    }

    private double parseFailures() {
        return registry.counter("engram.llm.parse.failures", "application", "test").count();
    }

    @Test
    void shouldExtractExactlyTheFactsWhenTheJsonIsInAFenceWithLanguageTag_case06a() {
        server.script(StubChatServer.Reply.content("```json\n" + FACTS + "\n```"));

        assertThat(facts(extractor.extract(case06(), null)))
            .containsExactlyInAnyOrderEntriesOf(Map.of("preferred_language", "Python", "office_city", "Berlin"));
        assertThat(parseFailures()).isZero();
    }

    @Test
    void shouldExtractExactlyTheFactsWhenTheJsonIsWrappedInProse_case06b() {
        server.script(StubChatServer.Reply.content("Sure! Here you go:\n" + FACTS + "\nHope this helps."));

        final List<ExtractedMemory> memories = extractor.extract(case06(), null);

        assertThat(facts(memories))
            .containsExactlyInAnyOrderEntriesOf(Map.of("preferred_language", "Python", "office_city", "Berlin"));
        assertThat(memories).allSatisfy(m -> {
            assertThat(m.sourceMessageIndexes()).containsExactly(0);
            assertThat(m.eventTime()).isEqualTo(Instant.parse("2025-05-02T10:00:00Z"));
        });
    }

    @Test
    void shouldKeepBackticksInsideAValueWhenTheFencedJsonContainsThem_case06c() {
        server.script(StubChatServer.Reply.content("```json\n{\"memories\":[{\"type\":\"PROCEDURAL\",\"category\":\"PREFERENCE\","
            + "\"key\":\"response_style\",\"value\":\"uses ``` blocks\",\"content\":\"Wants code in ``` blocks\","
            + "\"importance\":0.6,\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0]}]}\n```"));

        final List<ExtractedMemory> memories = extractor.extract(case06(), null);

        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.value()).isEqualTo("uses ``` blocks");
            assertThat(m.content()).isEqualTo("Wants code in ``` blocks");
        });
    }

    @Test
    void shouldFailAfterRetriesAndCountParseFailuresWhenTheFenceIsEmpty_case06d() {
        final StubChatServer.Reply empty = StubChatServer.Reply.content("```json\n```");
        server.script(empty, empty, empty);

        assertThatThrownBy(() -> extractor.extract(case06(), null))
            .isInstanceOf(MemoryExtractor.ExtractionException.class).hasMessageContaining("unusable after 3 attempts");
        assertThat(parseFailures()).isEqualTo(3);
        assertThat(server.requestCount()).isEqualTo(3);
    }

    @Test
    void shouldFailWhenContentIsEmptyOrTheJsonIsOnlyInAReasoningField_case06e() {
        server.script(StubChatServer.Reply.content(""), StubChatServer.Reply.completion(null, FACTS, "stop"),
            StubChatServer.Reply.completion(null, FACTS, "stop"));

        assertThatThrownBy(() -> extractor.extract(case06(), null))
            .isInstanceOf(MemoryExtractor.ExtractionException.class).hasMessageContaining("reasoning field");
        assertThat(parseFailures()).isEqualTo(3);
    }

    @Test
    void shouldFailWhenTheJsonIsTruncated_case06f() {
        final StubChatServer.Reply truncated = StubChatServer.Reply.completion("{\"facts\":[{\"key\":\"preferred_lang",
            null, "length");
        server.script(truncated, truncated, truncated);

        assertThatThrownBy(() -> extractor.extract(case06(), null))
            .isInstanceOf(MemoryExtractor.ExtractionException.class).hasMessageContaining("finish_reason=length");
        assertThat(parseFailures()).isEqualTo(3);
    }

    @Test
    void shouldRecoverOnTheNextAttemptWhenOneAnswerIsUnusable() {
        server.script(StubChatServer.Reply.content("```json\n```"), StubChatServer.Reply.content(FACTS));

        assertThat(facts(extractor.extract(case06(), null))).containsEntry("preferred_language", "Python");
        assertThat(parseFailures()).isEqualTo(1);
    }

    @Test
    void shouldHonourRetryAfterWhenRateLimited() {
        server.script(StubChatServer.Reply.error(429, "1"), StubChatServer.Reply.content(FACTS));
        final long start = System.nanoTime();

        assertThat(facts(extractor.extract(case06(), null))).hasSize(2);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(server.requestCount()).isEqualTo(2);
        assertThat(registry.counter("engram.llm.calls", "application", "test", "outcome", "rate_limited").count())
            .isEqualTo(1);
    }

    @Test
    void shouldRetryWhenTheServerAnswers500OrTimesOut() {
        final LlmMemoryExtractor hasty = extractor(LlmSettings.of(server.baseUrl(), "stub-model")
            .withResilience(SHORT_TIMEOUT, 3, Duration.ofMillis(5), Duration.ofSeconds(1)));
        server.script(StubChatServer.Reply.error(500, null),
            StubChatServer.Reply.content(FACTS).delayed(SHORT_TIMEOUT.toMillis() * 4), StubChatServer.Reply.content(FACTS));

        assertThat(facts(hasty.extract(case06(), null))).hasSize(2);
        assertThat(registry.counter("engram.llm.calls", "application", "test", "outcome", "server_error").count())
            .isEqualTo(1);
        assertThat(registry.counter("engram.llm.calls", "application", "test", "outcome", "timeout").count())
            .isEqualTo(1);
    }

    @Test
    void shouldFailWithTheReasonWhenEveryAttemptIsA500AndTheBreakerStaysClosed() {
        final LlmMemoryExtractor patient = extractor(LlmSettings.of(server.baseUrl(), "stub-model")
            .withResilience(TIMEOUT, 2, Duration.ofMillis(1), Duration.ofSeconds(1)));
        server.script(StubChatServer.Reply.error(500, null), StubChatServer.Reply.error(500, null),
            StubChatServer.Reply.error(500, null), StubChatServer.Reply.error(500, null));

        assertThatThrownBy(() -> patient.extract(case06(), null))
            .isInstanceOf(MemoryExtractor.ExtractionException.class).hasMessageContaining("HTTP 500");
    }

    @Test
    void shouldDropInvalidItemsOneByOneWithACountedReason() {
        server.script(StubChatServer.Reply.content("{\"memories\":["
            + "{\"type\":\"SEMANTIC\",\"key\":\"city\",\"value\":\"Berlin\",\"content\":\"Lives in Berlin\",\"importance\":80,"
            + "\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0, 7]},"
            + "{\"type\":\"SEMANTIC\",\"key\":\"ide\",\"value\":\"Vim\",\"content\":\"Uses Vim\",\"importance\":-2,"
            + "\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0]},"
            + "{\"type\":\"MEMORY\",\"content\":\"x\",\"importance\":0.5,\"confidence\":0.9,\"evidence\":[0]},"
            + "{\"type\":\"SEMANTIC\",\"content\":\"Made up\",\"importance\":0.5,\"confidence\":0.9,\"evidence\":[42]},"
            + "{\"type\":\"SEMANTIC\",\"key\":\"diet\",\"content\":\"Vegan\",\"importance\":0.5,\"confidence\":0.9,\"evidence\":[0]}"
            + "]}"));

        final List<ExtractedMemory> memories = extractor.extract(case06(), null);

        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.key()).isEqualTo("city");
            assertThat(m.importance()).isEqualTo(0.8);
            assertThat(m.sourceMessageIndexes()).containsExactly(0);
        });
        assertThat(registry.find("engram.llm.items.dropped").counters()).extracting(c -> c.getId().getTag("reason"))
            .containsExactlyInAnyOrder("importance_out_of_range", "bad_type", "no_valid_evidence", "key_without_value");
    }

    @Test
    void shouldMakeNoCallWhenTheUserTurnedMemoryOff() {
        final UserProfile off = UserProfile.newBuilder().setTenantId("t1").setUserId("u-lee").setFacts(Map.of())
            .setMemoryEnabled(false).build();

        assertThat(extractor.extract(case06(), off)).isEmpty();
        assertThat(server.requestCount()).isZero();
    }

    @Test
    void shouldChunkALongConversationByTheTokenBudgetAndSummarizeIt() {
        final LlmMemoryExtractor small = extractor(LlmSettings.of(server.baseUrl(), "stub-model").withContextTokens(200)
            .withResilience(TIMEOUT, 2, Duration.ofMillis(1), Duration.ofSeconds(1)));
        final String[] texts = new String[8];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = "Message number " + i + " says something about hiking trips and camping gear. ".repeat(4);
        }

        final List<ExtractedMemory> memories = small.extract(lee(texts), null);

        assertThat(server.requestCount()).isGreaterThan(1);
        for (final var request : server.requests()) {
            final String prompt = request.path("messages").path(1).path("content").asText();
            assertThat(ConversationChunker.tokens(prompt)).isLessThanOrEqualTo(200 + 40);
            assertThat(request.path("messages").path(0).path("content").asText()).contains("\"summary\"");
            assertThat(request.path("response_format").path("type").asText()).isEqualTo("json_schema");
        }
        assertThat(memories).extracting(ExtractedMemory::sourceMessageIndexes).flatExtracting(l -> l)
            .contains(0, 2, 4, 6);
        assertThat(small.name()).isEqualTo("llm:stub-model:" + LlmMemoryExtractor.PROMPT_VERSION);
    }

    @Test
    void shouldCutAMessageAboveTheBudgetIntoPiecesThatKeepItsIndex() {
        final List<List<ConversationChunker.Part>> chunks = ConversationChunker.chunks(
            lee("x".repeat(4000), "short").getMessages(), 300);

        assertThat(chunks).hasSizeGreaterThan(3);
        assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.stream()
            .mapToInt(p -> ConversationChunker.tokens(p.content()) + ConversationChunker.MESSAGE_OVERHEAD_TOKENS).sum())
            .isLessThanOrEqualTo(300));
        assertThat(chunks.get(0).get(0).index()).isZero();
        assertThat(chunks.get(chunks.size() - 1)).extracting(ConversationChunker.Part::index).contains(1);
    }

    @Test
    void shouldPutKnownProfileFactsInThePrompt() {
        server.script(StubChatServer.Reply.content("{\"memories\":[]}"));
        final UserProfile profile = UserProfile.newBuilder().setTenantId("t1").setUserId("u-lee")
            .setFacts(Map.of("city", dev.engram.avro.ProfileFact.newBuilder().setKey("city").setValue("Berlin")
                .setMemoryId("m1").setConfidence(0.9).setSource(dev.engram.avro.MemorySource.EXPLICIT)
                .setUpdatedAt(Instant.EPOCH).build()))
            .setMemoryEnabled(true).build();

        assertThat(extractor.extract(case06(), profile)).isEmpty();
        assertThat(server.requests().get(0).path("messages").path(1).path("content").asText())
            .contains("Already known about the user:\n- city = Berlin");
    }
}
