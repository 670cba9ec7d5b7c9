package dev.engram.extractor;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.LlmUsage;
import dev.engram.avro.TenantSettings;
import dev.engram.llm.BudgetedExtractor;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.LlmMemoryExtractor;
import dev.engram.llm.LlmSettings;
import dev.engram.llm.StubChatServer;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.PipelineHarness;
import dev.engram.topology.UsageLedger;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cost ledger per tenant on the extraction topology with the real LLM extractor against {@link StubChatServer}
 * (the remote LLM is the one thing that cannot run here): the {@code llm-usage} records add up to the usage the server
 * reported, priced by {@code llm.price.*}; a tenant's daily token budget, once spent, sends its conversations to the
 * offline extractor.
 */
class TenantCostLedgerTest {

    private static final Instant FROM_THE_START = Instant.EPOCH;

    private StubChatServer server;
    private final AtomicLong promptSent = new AtomicLong();
    private final AtomicLong completionSent = new AtomicLong();
    private final AtomicInteger answers = new AtomicInteger();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final UsageLedger ledger = new UsageLedger();
    private long ledgerSize;

    @BeforeEach
    void start() throws Exception {
        server = StubChatServer.start(2);
        // every answer reports a different usage, summed here as the server's side of the ledger
        server.responder(request -> {
            final int n = answers.incrementAndGet();
            final int prompt = 90 + n;
            final int completion = 20 + 3 * n;
            promptSent.addAndGet(prompt);
            completionSent.addAndGet(completion);
            final JsonNode echoed = json(StubChatServer.echoExtraction(request).body());
            final String content = echoed.path("choices").get(0).path("message").path("content").asText();
            return new StubChatServer.Reply(200, Map.of(),
                StubChatServer.Reply.completionBody(content, null, "stop", "stub", prompt, completion), 0);
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static JsonNode json(final String body) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private PipelineHarness pipeline() {
        final LlmMemoryExtractor llm = new LlmMemoryExtractor(new ChatCompletionsClient(
            LlmSettings.of(server.baseUrl(), "stub-model").withResilience(Duration.ofSeconds(10), 3, Duration.ofMillis(5),
                Duration.ofSeconds(1)), registry, "test"), registry, "test");
        return PipelineHarness.builder()
            .config(Map.of(PipelineConfig.LLM_PRICE_PROMPT, "2.5", PipelineConfig.LLM_PRICE_COMPLETION, "10"))
            .extractor(new BudgetedExtractor(llm, new RuleBasedExtractor(),
                (tenant, day) -> ledger.spentOn(tenant, day).tokens(), Clock.systemUTC(), registry, "test"))
            .build();
    }

    private static TenantSettings budget(final String tenant, final Long tokens) {
        return TenantSettings.newBuilder().setTenantId(tenant).setVersion(FROM_THE_START).setCategories(List.of())
            .setInstructions(null).setDisabledCategories(List.of()).setRetentionDays(null).setDailyTokenBudget(tokens)
            .setUpdatedBy("test").setUpdatedAt(FROM_THE_START).build();
    }

    @Test
    void shouldSumToTheUsageTheLlmReportedWhenConversationsAreExtracted() {
        try (PipelineHarness pipeline = pipeline()) {
            for (int i = 0; i < 3; i++) {
                pipeline.publish(conversation("health", "u" + i, "c-" + i,
                    user("I started a new running plan with three runs a week number " + i + ".",
                        "2025-03-0" + (i + 1) + "T08:00:00Z")));
            }
            pipeline.publish(conversation("shop", "u1", "c-9", user("I am looking for trail shoes in size 44.",
                "2025-03-05T08:00:00Z")));

            final List<LlmUsage> usage = pipeline.usage();
            assertThat(usage).hasSize(4);
            assertThat(usage.stream().mapToLong(LlmUsage::getCalls).sum()).isEqualTo(answers.get());
            assertThat(usage.stream().mapToLong(LlmUsage::getPromptTokens).sum()).isEqualTo(promptSent.get());
            assertThat(usage.stream().mapToLong(LlmUsage::getCompletionTokens).sum()).isEqualTo(completionSent.get());
            assertThat(usage).filteredOn(u -> "health".equals(u.getTenantId())).hasSize(3)
                .extracting(LlmUsage::getConversationId).containsExactly("c-0", "c-1", "c-2");
            final double expectedCost = (promptSent.get() * 2.5 + completionSent.get() * 10.0) / 1_000_000.0;
            assertThat(usage.stream().mapToDouble(LlmUsage::getEstimatedCostUsd).sum())
                .isCloseTo(expectedCost, org.assertj.core.data.Offset.offset(1e-12));
        }
    }

    @Test
    void shouldExtractOfflineWhenTheTenantsDailyTokenBudgetIsSpent() {
        try (PipelineHarness pipeline = pipeline()) {
            pipeline.settings(budget("health", 150L));
            pipeline.settings(budget("shop", null));
            for (int i = 0; i < 4; i++) {
                pipeline.publish(conversation("health", "u1", "c-" + i,
                    user("I walked my dog along the river for an hour on day " + i + ".", "2025-03-0" + (i + 1)
                        + "T08:00:00Z")));
                pipeline.usage().stream().skip(ledgerSize).forEach(ledger::add); // the ledger as read back
                ledgerSize = pipeline.usage().size();
            }
            pipeline.publish(conversation("shop", "u1", "c-s", user("I am looking for trail shoes in size 44.",
                "2025-03-05T08:00:00Z")));

            // each LLM answer costs more than 100 tokens: two conversations spend the 150, the rest go offline
            assertThat(pipeline.usage()).filteredOn(u -> "health".equals(u.getTenantId())).hasSize(2);
            assertThat(pipeline.candidates()).map(TestRecord::value)
                .filteredOn(c -> List.of("c-2", "c-3").contains(c.getConversationId()))
                .isNotEmpty().allMatch(c -> RuleBasedExtractor.NAME.equals(c.getExtractor()));
            assertThat(pipeline.candidates()).map(TestRecord::value)
                .filteredOn(c -> "c-s".equals(c.getConversationId()))
                .isNotEmpty().allMatch(c -> c.getExtractor().startsWith("llm:"));
            assertThat(registry.counter(BudgetedExtractor.METER_FALLBACKS, "application", "test", "tenant", "health")
                .count()).isEqualTo(2.0);
        }
    }
}
