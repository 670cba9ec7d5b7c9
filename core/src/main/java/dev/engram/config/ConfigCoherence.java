package dev.engram.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration checked as a whole, at the start of every app (and so of {@code bin/engram demo}):
 * each key can be valid on its own ({@link EngramConfig#DEFINITION}'s validators) while two together
 * cannot work. A finding names every key involved.
 *
 * <p>Refused (the app does not start, {@link ConfigException}):
 * <ul>
 *   <li>{@code retrieval.default.k} above {@code retrieval.max.k}: every request without {@code k} would be
 *       a 400;</li>
 *   <li>{@code serde.format=registry} without {@code schema.registry.url}: no record could be written.</li>
 * </ul>
 * Warned (logged at start with the keys; it runs, but a rule never or wrongly fires):
 * <ul>
 *   <li>{@code lifecycle.stale.max.importance} at or below {@code memory.min.importance} (and above 0, which
 *       turns staleness off): nothing stored is below the stale threshold, so STALE never fires;
 *       {@code lifecycle.stale.max.access.count} 0: no memory is used fewer than 0 times, the same;</li>
 *   <li>{@code dedup.judge.threshold} above {@code dedup.reinforce.threshold}: the judge band is empty;</li>
 *   <li>{@code lifecycle.interval.ms} longer than the shortest period the pass enforces (a non-zero TTL,
 *       {@code lifecycle.ttl.inferred.factor} of it for INFERRED facts, the stale period, the hard-delete
 *       age): that rule fires up to one interval late;</li>
 *   <li>{@code lifecycle.ttl.inferred.factor} 0 with a non-zero TTL: INFERRED ROLE and CONTEXT facts expire at
 *       the first pass after they are stored;</li>
 *   <li>{@code input.max.message.chars} above {@code input.max.record.bytes}: a message at the character limit
 *       (at least one byte per character in UTF-8) can never fit a record, so ingest refuses it by size first;</li>
 *   <li>with {@code llm.base.url} set, one LLM call's worst case ({@code llm.max.attempts} ×
 *       {@code llm.timeout.ms} + the backoffs {@code llm.backoff.ms} × (2<sup>attempts−1</sup> − 1), doubling
 *       as the client does) longer than the extractor's transaction timeout
 *       ({@link #LLM_TRANSACTION_TIMEOUT_MS} unless {@code kafka.producer.transaction.timeout.ms} is set): the broker aborts the transaction before the
 *       conversation is extracted or dead-lettered, and the task re-runs it again and again.</li>
 * </ul>
 * The retrieval weights are checked where they are used (the scorer), not here.
 */
public final class ConfigCoherence {

    /** The extractor's transaction timeout with an LLM (ms), unless a {@code kafka.*} setting says otherwise. */
    public static final int LLM_TRANSACTION_TIMEOUT_MS = 300_000;
    /** The setting that overrides {@link #LLM_TRANSACTION_TIMEOUT_MS}. */
    public static final String TRANSACTION_TIMEOUT_KEY = EngramConfig.KAFKA_PREFIX + "producer.transaction.timeout.ms";

    private static final Logger LOG = LoggerFactory.getLogger(ConfigCoherence.class);
    private static final long DAY_MS = 86_400_000L;

    /** Whether a finding stops the start. */
    public enum Severity {
        /** the app does not start */
        REFUSE,
        /** the app starts; the finding is logged */
        WARN
    }

    /**
     * One incoherence.
     *
     * @param severity refuse or warn
     * @param keys every key involved, in the order the message names them
     * @param message what cannot work and why
     */
    public record Finding(Severity severity, List<String> keys, String message) {

        /** Copies the keys. */
        public Finding {
            keys = List.copyOf(keys);
        }

        /** @return {@code key, key: message} */
        public String text() {
            return String.join(", ", keys) + ": " + message;
        }
    }

    private ConfigCoherence() {
    }

    /**
     * @param config a config whose keys are each valid
     * @return the findings, refusals first; empty when the whole is coherent (the defaults are)
     */
    public static List<Finding> check(final EngramConfig config) {
        final List<Finding> findings = new ArrayList<>();
        if (config.getInt(EngramConfig.DEFAULT_K) > config.getInt(EngramConfig.MAX_K)) {
            findings.add(refuse("the default k (" + config.getInt(EngramConfig.DEFAULT_K) + ") is above the largest a "
                + "request may ask (" + config.getInt(EngramConfig.MAX_K) + "): every request without k would be refused",
                EngramConfig.DEFAULT_K, EngramConfig.MAX_K));
        }
        if ("registry".equals(config.getString(EngramConfig.SERDE_FORMAT))
            && config.getString(EngramConfig.SCHEMA_REGISTRY_URL).isBlank()) {
            findings.add(refuse("the registry wire format needs the schema registry's URL", EngramConfig.SERDE_FORMAT,
                EngramConfig.SCHEMA_REGISTRY_URL));
        }
        staleness(config, findings);
        final double judge = config.getDouble(EngramConfig.JUDGE_THRESHOLD);
        final double reinforce = config.getDouble(EngramConfig.REINFORCE_THRESHOLD);
        if (judge > reinforce) {
            findings.add(warn("the judge is asked from " + judge + " up to " + reinforce + ": an empty band, the "
                + "ContradictionJudge is never asked about similar memories", EngramConfig.JUDGE_THRESHOLD,
                EngramConfig.REINFORCE_THRESHOLD));
        }
        interval(config, findings);
        final double inferred = config.getDouble(EngramConfig.TTL_INFERRED_FACTOR);
        if (inferred == 0 && (config.getInt(EngramConfig.TTL_ROLE_DAYS) > 0 || config.getInt(EngramConfig.TTL_CONTEXT_DAYS) > 0)) {
            findings.add(warn("a TTL factor of 0 makes INFERRED role and context facts expire at the first pass after "
                + "they are stored", EngramConfig.TTL_INFERRED_FACTOR, EngramConfig.TTL_ROLE_DAYS, EngramConfig.TTL_CONTEXT_DAYS));
        }
        if (config.getInt(EngramConfig.MAX_MESSAGE_CHARS) > config.getInt(EngramConfig.MAX_RECORD_BYTES)) {
            findings.add(warn("a message at the character limit (" + config.getInt(EngramConfig.MAX_MESSAGE_CHARS)
                + ", at least one byte each) can never fit a record of " + config.getInt(EngramConfig.MAX_RECORD_BYTES)
                + " bytes: ingest refuses it by size", EngramConfig.MAX_MESSAGE_CHARS, EngramConfig.MAX_RECORD_BYTES));
        }
        llmDeadline(config, findings);
        findings.sort((a, b) -> a.severity().compareTo(b.severity()));
        return findings;
    }

    /**
     * Refuses an incoherent config and logs the warnings, each prefixed with the app's name.
     *
     * @param config the config an app starts with
     * @param app the app, e.g. {@code consolidator}
     * @return the warnings that were logged
     * @throws ConfigException naming the keys of every refusal
     */
    public static List<Finding> enforce(final EngramConfig config, final String app) {
        final List<Finding> findings = check(config);
        final List<Finding> refusals = findings.stream().filter(f -> f.severity() == Severity.REFUSE).toList();
        if (!refusals.isEmpty()) {
            throw new ConfigException("incoherent configuration: "
                + refusals.stream().map(Finding::text).collect(Collectors.joining("; ")));
        }
        final List<Finding> warnings = findings.stream().filter(f -> f.severity() == Severity.WARN).toList();
        warnings.forEach(w -> LOG.warn("{}: configuration: {}", app, w.text()));
        return warnings;
    }

    private static void staleness(final EngramConfig config, final List<Finding> findings) {
        final double staleBelow = config.getDouble(EngramConfig.STALE_MAX_IMPORTANCE);
        final double floor = config.getDouble(EngramConfig.MIN_IMPORTANCE);
        if (staleBelow > 0 && staleBelow <= floor) {
            findings.add(warn("only memories below importance " + staleBelow + " become STALE, and none below " + floor
                + " is stored: STALE never fires (set the stale threshold above the floor, or 0 to turn staleness off)",
                EngramConfig.STALE_MAX_IMPORTANCE, EngramConfig.MIN_IMPORTANCE));
        }
        if (staleBelow > 0 && config.getInt(EngramConfig.STALE_MAX_ACCESS_COUNT) == 0) {
            findings.add(warn("no memory is used fewer than 0 times: STALE never fires",
                EngramConfig.STALE_MAX_ACCESS_COUNT));
        }
    }

    /** The pass runs every interval: a shorter period than that is enforced up to one interval late. */
    private static void interval(final EngramConfig config, final List<Finding> findings) {
        final long interval = config.getLong(EngramConfig.LIFECYCLE_INTERVAL_MS);
        final double inferred = config.getDouble(EngramConfig.TTL_INFERRED_FACTOR);
        final Map<String, Long> periods = new java.util.LinkedHashMap<>();
        periods.put(EngramConfig.STALE_DAYS, config.getInt(EngramConfig.STALE_DAYS) * DAY_MS);
        periods.put(EngramConfig.ARCHIVE_RETENTION_DAYS, config.getInt(EngramConfig.ARCHIVE_RETENTION_DAYS) * DAY_MS);
        for (final String ttl : List.of(EngramConfig.TTL_ROLE_DAYS, EngramConfig.TTL_CONTEXT_DAYS)) {
            final long explicit = config.getInt(ttl) * DAY_MS;
            if (explicit > 0) {
                periods.put(ttl, inferred > 0 ? Math.round(explicit * inferred) : explicit);
            }
        }
        final List<String> late = periods.entrySet().stream().filter(e -> e.getValue() < interval)
            .map(Map.Entry::getKey).toList();
        if (!late.isEmpty()) {
            final List<String> keys = new ArrayList<>(List.of(EngramConfig.LIFECYCLE_INTERVAL_MS));
            keys.addAll(late);
            if (late.stream().anyMatch(k -> k.startsWith("lifecycle.ttl.")) && inferred < 1) {
                keys.add(EngramConfig.TTL_INFERRED_FACTOR);
            }
            findings.add(warn("the lifecycle pass runs every " + interval + " ms of event time, longer than "
                + String.join(", ", late) + " (the shortest, INFERRED facts' TTLs included): those rules fire up to "
                + "one interval late", keys.toArray(String[]::new)));
        }
    }

    private static void llmDeadline(final EngramConfig config, final List<Finding> findings) {
        if (config.getString(EngramConfig.LLM_BASE_URL).isBlank()) {
            return;
        }
        final int attempts = config.getInt(EngramConfig.LLM_MAX_ATTEMPTS);
        final long worst = (long) attempts * config.getInt(EngramConfig.LLM_TIMEOUT_MS)
            + (long) config.getInt(EngramConfig.LLM_BACKOFF_MS) * ((1L << Math.min(attempts - 1, 30)) - 1);
        // the app sets the producer-prefixed timeout, which wins over an unprefixed kafka.transaction.timeout.ms
        final Object configured = config.originals().get(TRANSACTION_TIMEOUT_KEY);
        final long timeout;
        try {
            timeout = configured == null ? LLM_TRANSACTION_TIMEOUT_MS : Long.parseLong(configured.toString().strip());
        } catch (NumberFormatException e) {
            return; // Kafka's own validation names the key at start
        }
        if (worst > timeout) {
            findings.add(warn("one LLM call may take " + worst + " ms with its retries, longer than the extractor's "
                + "transaction timeout of " + timeout + " ms: the broker aborts the transaction first and the "
                + "conversation is re-run instead of extracted or dead-lettered", EngramConfig.LLM_MAX_ATTEMPTS,
                EngramConfig.LLM_TIMEOUT_MS, EngramConfig.LLM_BACKOFF_MS, TRANSACTION_TIMEOUT_KEY));
        }
    }

    private static Finding refuse(final String message, final String... keys) {
        return new Finding(Severity.REFUSE, List.of(keys), message);
    }

    private static Finding warn(final String message, final String... keys) {
        return new Finding(Severity.WARN, List.of(keys), message);
    }
}
