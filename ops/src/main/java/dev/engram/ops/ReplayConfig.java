package dev.engram.ops;

import java.util.HashMap;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.topology.StreamsSettings;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The settings {@link Rebuild} runs the rebuilt apps with ({@link #of}): the deployment's, scheduled for a replay
 * whose output is read when it is done rather than record by record.
 */
final class ReplayConfig {

    /** {@code lifecycle.observe.quiet.ms} of the rebuilt consolidator ({@link #of}). */
    static final long REGROUP_QUIET_MS = 200;
    /** {@code lifecycle.observe.interval.ms} of the rebuilt consolidator at least ({@link #of}). */
    static final long REGROUP_INTERVAL_MS = 60_000;
    /** {@code kafka.commit.interval.ms} of the rebuilt apps unless the deployment sets it ({@link #of}). */
    static final int REPLAY_COMMIT_INTERVAL_MS = 1_000;
    /** {@code kafka.retry.backoff.ms} of the rebuilt apps unless the deployment sets it ({@link #of}). */
    static final int REPLAY_RETRY_BACKOFF_MS = 10;

    private ReplayConfig() {
    }

    /**
     * The config the rebuilt apps run with: the deployment's, with
     * <ul>
     *   <li>the consolidator's observations regrouped when the replayed input goes quiet ({@value #REGROUP_QUIET_MS} ms)
     *       rather than every few seconds of it (at least every {@value #REGROUP_INTERVAL_MS} ms): a regrouping is a
     *       function of the statements, so the schedule changes nothing the rebuild ends with, but each mid-replay
     *       regrouping reviews every pending user again. An explicit {@code lifecycle.observe.quiet.ms} is kept;</li>
     *   <li>a transaction every {@value #REPLAY_COMMIT_INTERVAL_MS} ms ({@code kafka.commit.interval.ms}, unless set)
     *       instead of every {@value StreamsSettings#COMMIT_INTERVAL_MS} ms: a replay's output is read when it is done,
     *       not record by record, so the interval that bounds a live memory's freshness only multiplies transactions
     *       here (markers on every output and changelog partition, the offsets); a commit never decides memory state
     *       (the lifecycle pass runs at the record crossing its period, {@code LifecyclePassClock});</li>
     *   <li>retries {@value #REPLAY_RETRY_BACKOFF_MS} ms apart ({@code kafka.retry.backoff.ms}, unless set) instead of
     *       100: the reset deleted the app's changelogs, and Kafka Streams creates them again in its first rebalance and
     *       looks whether they are ready that often (its topic manager's pause is {@code retry.backoff.ms}); a rebuilt
     *       app's start waited out one 100-ms pause per changelog there (one became ready per look, loaded). Its
     *       clients' retries start at that too, doubling up to {@code retry.backoff.max.ms} as before.</li>
     * </ul>
     *
     * @param config the deployment's config
     * @return the rebuild's
     */
    static EngramConfig of(final EngramConfig config) {
        final Map<String, Object> replay = new HashMap<>();
        if (!config.originals().containsKey(DomainConfig.OBSERVE_QUIET_MS)) {
            replay.put(DomainConfig.OBSERVE_QUIET_MS, REGROUP_QUIET_MS);
            replay.put(DomainConfig.OBSERVE_INTERVAL_MS,
                Math.max(REGROUP_INTERVAL_MS, config.getLong(DomainConfig.OBSERVE_INTERVAL_MS)));
        }
        if (!config.kafkaProperties().containsKey(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)) {
            replay.put(CoreConfig.KAFKA_PREFIX + StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, REPLAY_COMMIT_INTERVAL_MS);
        }
        if (!config.kafkaProperties().containsKey(StreamsConfig.RETRY_BACKOFF_MS_CONFIG)) {
            replay.put(CoreConfig.KAFKA_PREFIX + StreamsConfig.RETRY_BACKOFF_MS_CONFIG, REPLAY_RETRY_BACKOFF_MS);
        }
        return config.with(replay);
    }
}
