package dev.engram.topology;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.avro.LlmUsage;
import dev.engram.config.EngramConfig;
import dev.engram.kafka.TopicFollower;
import dev.engram.topics.Topic;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The cost ledger read back: {@code llm-usage} summed per tenant, UTC day of {@code occurredAt} (the wall-clock day
 * of the extraction: what a budget per day and a bill count) and agent ({@link #NO_AGENT} for conversations without
 * one). Fed by {@link #follow}; thread-safe.
 */
public final class UsageLedger {

    /**
     * What a tenant spent on one day (or in total).
     *
     * @param calls LLM requests answered
     * @param promptTokens prompt tokens
     * @param completionTokens completion tokens
     * @param estimatedCostUsd estimated cost, US dollars
     * @param conversations conversations extracted with the LLM
     */
    public record Spend(long calls, long promptTokens, long completionTokens, double estimatedCostUsd, long conversations) {

        /** Nothing spent. */
        public static final Spend NONE = new Spend(0, 0, 0, 0, 0);

        /** @return prompt + completion tokens */
        public long tokens() {
            return promptTokens + completionTokens;
        }

        Spend plus(final LlmUsage usage) {
            return new Spend(calls + usage.getCalls(), promptTokens + usage.getPromptTokens(),
                completionTokens + usage.getCompletionTokens(), estimatedCostUsd + usage.getEstimatedCostUsd(),
                conversations + 1);
        }

        /**
         * @param other more spend
         * @return the sum
         */
        public Spend plus(final Spend other) {
            return new Spend(calls + other.calls, promptTokens + other.promptTokens,
                completionTokens + other.completionTokens, estimatedCostUsd + other.estimatedCostUsd,
                conversations + other.conversations);
        }
    }

    /** The agent of a conversation without one, in {@link #agents}. */
    public static final String NO_AGENT = "";

    private final Map<String, NavigableMap<LocalDate, Map<String, Spend>>> byTenant = new ConcurrentHashMap<>();

    /**
     * Adds one ledger record.
     *
     * @param usage a record of {@code llm-usage}; null (a tombstone) is ignored
     */
    public void add(final LlmUsage usage) {
        if (usage == null) {
            return;
        }
        final LocalDate day = LocalDate.ofInstant(usage.getOccurredAt(), ZoneOffset.UTC);
        final NavigableMap<LocalDate, Map<String, Spend>> days = byTenant.computeIfAbsent(usage.getTenantId(),
            t -> new TreeMap<>());
        synchronized (days) {
            days.computeIfAbsent(day, d -> new TreeMap<>()).merge(usage.getAgentId() == null ? NO_AGENT : usage.getAgentId(),
                Spend.NONE.plus(usage), Spend::plus);
        }
    }

    /**
     * @param tenantId the tenant
     * @param day a UTC day
     * @return what the tenant spent that day
     */
    public Spend spentOn(final String tenantId, final LocalDate day) {
        return days(tenantId, day, day).getOrDefault(day, Spend.NONE);
    }

    /**
     * @param tenantId the tenant
     * @param from the first UTC day, inclusive
     * @param to the last UTC day, inclusive
     * @return the tenant's spend per day in that range, oldest first (days without spend left out)
     */
    public NavigableMap<LocalDate, Spend> days(final String tenantId, final LocalDate from, final LocalDate to) {
        final NavigableMap<LocalDate, Spend> out = new TreeMap<>();
        range(tenantId, from, to).forEach((day, agents) -> agents.values()
            .forEach(spend -> out.merge(day, spend, Spend::plus)));
        return out;
    }

    /**
     * @param tenantId the tenant
     * @param from the first UTC day, inclusive
     * @param to the last UTC day, inclusive
     * @return the tenant's spend per agent over those days ({@link #NO_AGENT} for conversations without one)
     */
    public Map<String, Spend> agents(final String tenantId, final LocalDate from, final LocalDate to) {
        final Map<String, Spend> out = new TreeMap<>();
        range(tenantId, from, to).values().forEach(agents -> agents.forEach((agent, spend) -> out.merge(agent, spend,
            Spend::plus)));
        return out;
    }

    /** A copy of the tenant's days in the range, each a copy of its spend per agent. */
    private NavigableMap<LocalDate, Map<String, Spend>> range(final String tenantId, final LocalDate from,
                                                              final LocalDate to) {
        final NavigableMap<LocalDate, Map<String, Spend>> days = byTenant.get(tenantId);
        final NavigableMap<LocalDate, Map<String, Spend>> out = new TreeMap<>();
        if (days != null) {
            synchronized (days) {
                days.subMap(from, true, to, true).forEach((day, agents) -> out.put(day, new TreeMap<>(agents)));
            }
        }
        return out;
    }

    /**
     * Starts following {@code llm-usage} into a ledger (from the beginning; the topic is the ledger's history).
     *
     * @param config {@code kafka.*} settings and the value format
     * @param ledger the ledger to feed
     * @param threadName the reader thread's name
     * @return the follower (owned by the caller: close it)
     */
    public static TopicFollower follow(final EngramConfig config, final UsageLedger ledger, final String threadName) {
        final Deserializer<LlmUsage> values = Topic.LLM_USAGE.valueDeserializer(config);
        return new TopicFollower(config.kafkaProperties(), Topic.LLM_USAGE.name(), threadName,
            (key, value) -> ledger.add(value == null ? null : values.deserialize(Topic.LLM_USAGE.name(), value)),
            IllegalStateException::new);
    }
}
