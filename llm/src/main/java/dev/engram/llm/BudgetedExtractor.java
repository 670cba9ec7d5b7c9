package dev.engram.llm;

import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.UserProfile;
import dev.engram.port.Extraction;
import dev.engram.port.MemoryExtractor;
import dev.engram.port.TenantPolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LLM extractor under each tenant's daily token budget ({@link TenantPolicy#dailyTokenBudget()}): once the tenant's
 * LLM tokens of the current UTC day (the cost ledger, {@code llm-usage}, as read back) reach its budget, its
 * conversations are extracted by the offline extractor until the day ends. Each such conversation counts on
 * {@value #METER_FALLBACKS} (tags {@code application}, {@code tenant}), and the first of a tenant's day is logged at WARN
 * (the rest at DEBUG). The candidates record the offline extractor's name, so the extraction log says which memories
 * the fallback made.
 *
 * <p>The ledger is read back from the topic, committed records only: calls in flight when the budget is reached, and
 * those of the last commit interval, are not counted yet, so a tenant may overshoot its budget by what its
 * concurrently extracted conversations spend (at most {@code llm.max.concurrency} conversations per extractor). The day
 * is the wall clock's: a budget caps spending, it does not decide what a replay of the extraction log gives (consolidation
 * replays the candidates as they were written). Thread-safe when both extractors are.
 */
public final class BudgetedExtractor implements MemoryExtractor {

    /** Counter of conversations extracted offline because the tenant's token budget of the day was spent. */
    public static final String METER_FALLBACKS = "engram.llm.budget.fallbacks";
    private static final Logger LOG = LoggerFactory.getLogger(BudgetedExtractor.class);

    private final MemoryExtractor llm;
    private final MemoryExtractor offline;
    private final BiFunction<String, LocalDate, Long> spent;
    private final Clock clock;
    private final MeterRegistry registry;
    private final String application;
    private final Map<String, LocalDate> warned = new ConcurrentHashMap<>();

    /**
     * @param llm the LLM extractor (with or without offline episodes)
     * @param offline the fallback, e.g. the rule-based extractor
     * @param spent tokens a tenant spent on a UTC day ({@code UsageLedger#spentOn})
     * @param clock the day's clock (UTC)
     * @param registry where {@value #METER_FALLBACKS} goes
     * @param application the {@code application} tag
     */
    public BudgetedExtractor(final MemoryExtractor llm, final MemoryExtractor offline,
                             final BiFunction<String, LocalDate, Long> spent, final Clock clock,
                             final MeterRegistry registry, final String application) {
        this.llm = llm;
        this.offline = offline;
        this.spent = spent;
        this.clock = clock;
        this.registry = registry;
        this.application = application;
    }

    @Override
    public String name() {
        return llm.name();
    }


    @Override
    public Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                              final TenantPolicy policy) {
        final Long budget = policy.dailyTokenBudget();
        if (budget == null) {
            return llm.extract(conversation, profile, policy);
        }
        final String tenant = conversation.getTenantId();
        final LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        final long used = spent.apply(tenant, today);
        if (used < budget) {
            return llm.extract(conversation, profile, policy);
        }
        Counter.builder(METER_FALLBACKS).description("Conversations extracted offline: the tenant's daily LLM token "
            + "budget was spent").tag("application", application).tag("tenant", tenant).register(registry).increment();
        if (!today.equals(warned.put(tenant, today))) {
            LOG.warn("Tenant {} spent {} of its {} LLM tokens of {} (UTC): its conversations are extracted offline ({}) "
                + "until the day ends", tenant, used, budget, today, offline.name());
        } else {
            LOG.debug("Tenant {} over its daily token budget: conversation {} extracted offline", tenant,
                conversation.getConversationId());
        }
        return offline.extract(conversation, profile, policy);
    }
}
