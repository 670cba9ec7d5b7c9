package dev.engram.topology;

import java.time.Clock;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.LlmUsage;
import dev.engram.config.EngramConfig;
import dev.engram.port.Extraction;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.AppIds;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Turns the LLM usage of one conversation's extraction into its cost-ledger record ({@code llm-usage}) and the per-tenant
 * meters. Estimated cost = promptTokens × {@code llm.price.prompt.per.million} / 10⁶ + completionTokens ×
 * {@code llm.price.completion.per.million} / 10⁶, in US dollars (the provider's list prices, as configured).
 *
 * <p>Meters (tags {@code application=engram-extractor}, {@code tenant} and {@code agent}, bounded by the deployment's
 * tenants and their agents; {@value #NO_AGENT} for a conversation without an agent):
 * {@value #METER_CALLS} (chat completion requests answered), {@value #METER_TOKENS} (tag {@code kind}: prompt,
 * completion) and {@value #METER_COST} (US dollars). They count what was extracted; the ledger counts what was committed
 * (a transaction aborted after the calls is counted by the meters only). Thread-safe.
 */
public final class UsageRecorder {

    /** Counter of LLM requests per tenant. */
    public static final String METER_CALLS = "engram.llm.tenant.calls";
    /** Counter of LLM tokens per tenant (tag {@code kind}). */
    public static final String METER_TOKENS = "engram.llm.tenant.tokens";
    /** The {@code agent} tag of a conversation without one. */
    public static final String NO_AGENT = "none";
    /** Counter of the estimated LLM cost per tenant, US dollars. */
    public static final String METER_COST = "engram.llm.tenant.cost";

    private final MeterRegistry registry;
    private final double promptPerMillion;
    private final double completionPerMillion;
    private final Clock clock;

    /**
     * @param config {@code llm.price.prompt.per.million}, {@code llm.price.completion.per.million}
     * @param registry where the per-tenant meters go
     * @param clock the ledger's {@code occurredAt} (the day a budget counts)
     */
    public UsageRecorder(final EngramConfig config, final MeterRegistry registry, final Clock clock) {
        this.registry = registry;
        this.promptPerMillion = config.getDouble(PipelineConfig.LLM_PRICE_PROMPT);
        this.completionPerMillion = config.getDouble(PipelineConfig.LLM_PRICE_COMPLETION);
        this.clock = clock;
    }

    /**
     * Counts one extraction's usage on the meters and makes its ledger record.
     *
     * @param conversation the conversation extracted
     * @param extraction what the extractor returned (its usage has at least one call)
     * @return the ledger record, keyed by the tenant on {@code llm-usage}
     */
    public LlmUsage record(final ConversationCompleted conversation, final Extraction extraction) {
        final Extraction.Usage usage = extraction.usage();
        final double cost = (usage.promptTokens() * promptPerMillion + usage.completionTokens() * completionPerMillion)
            / 1_000_000.0;
        final String tenant = conversation.getTenantId();
        final String agent = conversation.getAgentId() == null ? NO_AGENT : conversation.getAgentId();
        counter(METER_CALLS, "LLM requests answered for the tenant's extraction", tenant, agent).increment(usage.calls());
        Counter.builder(METER_TOKENS).description("LLM tokens spent on the tenant's extraction")
            .tag("application", AppIds.EXTRACTOR).tag("tenant", tenant).tag("agent", agent).tag("kind", "prompt")
            .register(registry).increment(usage.promptTokens());
        Counter.builder(METER_TOKENS).description("LLM tokens spent on the tenant's extraction")
            .tag("application", AppIds.EXTRACTOR).tag("tenant", tenant).tag("agent", agent).tag("kind", "completion")
            .register(registry).increment(usage.completionTokens());
        counter(METER_COST, "Estimated LLM cost of the tenant's extraction, US dollars", tenant, agent).increment(cost);
        return LlmUsage.newBuilder().setTenantId(tenant).setAgentId(conversation.getAgentId())
            .setConversationId(conversation.getConversationId()).setExtractor(extraction.extractor())
            .setCalls(usage.calls()).setPromptTokens(usage.promptTokens()).setCompletionTokens(usage.completionTokens())
            .setEstimatedCostUsd(cost).setOccurredAt(clock.instant()).setEventTime(conversation.getCompletedAt()).build();
    }

    private Counter counter(final String name, final String description, final String tenant, final String agent) {
        return Counter.builder(name).description(description).tag("application", AppIds.EXTRACTOR)
            .tag("tenant", tenant).tag("agent", agent).register(registry);
    }
}
