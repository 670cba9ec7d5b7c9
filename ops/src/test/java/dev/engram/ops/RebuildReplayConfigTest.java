package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;

import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.topics.AppIds;
import dev.engram.topology.StreamsSettings;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The settings {@link Rebuild} runs the rebuilt apps with ({@link ReplayConfig#of}, {@link RebuiltApps#withStreamThreads}). */
class RebuildReplayConfigTest {

    @Test
    void shouldRegroupObservationsOnceTheReplayIsQuietWhenTheDeploymentSetsNoQuietTrigger() {
        final EngramConfig replay = ReplayConfig.of(EngramConfig.defaults());

        assertThat(replay.getLong(DomainConfig.OBSERVE_QUIET_MS)).isEqualTo(ReplayConfig.REGROUP_QUIET_MS);
        assertThat(replay.getLong(DomainConfig.OBSERVE_INTERVAL_MS)).isEqualTo(ReplayConfig.REGROUP_INTERVAL_MS);
        assertThat(EngramConfig.defaults().getLong(DomainConfig.OBSERVE_QUIET_MS)).as("off in a live deployment").isZero();
    }

    @Test
    void shouldCommitLessOftenWhenReplayingUnlessTheDeploymentSetsTheCommitInterval() {
        final EngramConfig replay = ReplayConfig.of(EngramConfig.defaults());
        final Properties rebuilt = StreamsSettings.forApp(replay, AppIds.CONSOLIDATOR);
        assertThat(rebuilt.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(ReplayConfig.REPLAY_COMMIT_INTERVAL_MS);
        assertThat(StreamsSettings.forApp(EngramConfig.defaults(), AppIds.CONSOLIDATOR).get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG))
            .as("live").isEqualTo(StreamsSettings.COMMIT_INTERVAL_MS);

        final EngramConfig own = EngramConfig.defaults().with(Map.of("kafka.commit.interval.ms", 250));
        assertThat(StreamsSettings.forApp(ReplayConfig.of(own), AppIds.CONSOLIDATOR)
            .get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).as("the deployment's own").isEqualTo(250);
    }

    @Test
    void shouldLookForTheRecreatedChangelogsSoonerUnlessTheDeploymentSetsTheRetryBackoff() {
        final StreamsConfig rebuilt = new StreamsConfig(StreamsSettings.forApp(ReplayConfig.of(EngramConfig.defaults()),
            AppIds.CONSOLIDATOR));
        assertThat(rebuilt.getLong(StreamsConfig.RETRY_BACKOFF_MS_CONFIG))
            .as("what Kafka Streams' topic manager waits between its looks").isEqualTo(ReplayConfig.REPLAY_RETRY_BACKOFF_MS);
        assertThat(new StreamsConfig(StreamsSettings.forApp(EngramConfig.defaults(), AppIds.CONSOLIDATOR))
            .getLong(StreamsConfig.RETRY_BACKOFF_MS_CONFIG)).as("live: Kafka's default").isEqualTo(100L);

        final EngramConfig own = EngramConfig.defaults().with(Map.of("kafka.retry.backoff.ms", 250));
        assertThat(new StreamsConfig(StreamsSettings.forApp(ReplayConfig.of(own), AppIds.CONSOLIDATOR))
            .getLong(StreamsConfig.RETRY_BACKOFF_MS_CONFIG)).as("the deployment's own").isEqualTo(250L);
    }

    @Test
    void shouldKeepTheDeploymentsScheduleWhenItSetsAQuietTriggerOrALongerInterval() {
        final EngramConfig own = EngramConfig.defaults().with(Map.of(DomainConfig.OBSERVE_QUIET_MS, 50L));
        assertThat(ReplayConfig.of(own).getLong(DomainConfig.OBSERVE_QUIET_MS)).isEqualTo(50L);
        assertThat(ReplayConfig.of(own).getLong(DomainConfig.OBSERVE_INTERVAL_MS))
            .isEqualTo(own.getLong(DomainConfig.OBSERVE_INTERVAL_MS));

        final EngramConfig slow = EngramConfig.defaults().with(Map.of(DomainConfig.OBSERVE_INTERVAL_MS, 600_000L));
        assertThat(ReplayConfig.of(slow).getLong(DomainConfig.OBSERVE_INTERVAL_MS)).isEqualTo(600_000L);
    }

    @Test
    void shouldRunAStreamThreadPerCoreOfItsOwnUpToOnePerPartitionWhenTheDeploymentSetsNoThreadCount() {
        final EngramConfig replay = ReplayConfig.of(EngramConfig.defaults());
        assertThat(StreamsSettings.forApp(RebuiltApps.withStreamThreads(replay, 2, 4), AppIds.CONSOLIDATOR)
            .get(StreamsConfig.NUM_STREAM_THREADS_CONFIG)).isEqualTo(2);
        assertThat(StreamsSettings.forApp(RebuiltApps.withStreamThreads(replay, 16, 4), AppIds.CONSOLIDATOR)
            .get(StreamsConfig.NUM_STREAM_THREADS_CONFIG)).as("no thread without a task").isEqualTo(4);
        assertThat(StreamsSettings.forApp(RebuiltApps.withStreamThreads(replay, 2 / 3, 4), AppIds.CONSOLIDATOR)
            .get(StreamsConfig.NUM_STREAM_THREADS_CONFIG)).as("two cores shared by three apps").isEqualTo(1);
        assertThat(StreamsSettings.forApp(replay, AppIds.CONSOLIDATOR).get(StreamsConfig.NUM_STREAM_THREADS_CONFIG))
            .as("live, and the rebuilt extractor").isEqualTo(1);

        final EngramConfig own = EngramConfig.defaults().with(Map.of("kafka.num.stream.threads", 3));
        assertThat(StreamsSettings.forApp(RebuiltApps.withStreamThreads(own, 2, 4), AppIds.CONSOLIDATOR)
            .get(StreamsConfig.NUM_STREAM_THREADS_CONFIG)).as("the deployment's own").isEqualTo(3);
    }
}
