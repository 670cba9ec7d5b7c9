package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fault soak ({@link Chaos}): each app killed with SIGKILL and restarted 20 times mid-stream —
 * no stall (> 30 s without progress once the restarted process answers), no lost and no duplicated
 * {@code memory-updated} event, no retriever answer other than 200 or 503. Long (minutes per app), so
 * only in the {@code soak} profile: {@code mvn -B -Psoak -pl deploy -am verify}; the same runs as
 * {@code bin/engram chaos}.
 */
@Tag("soak")
class ChaosSoakIT {

    @ParameterizedTest
    @EnumSource(Chaos.App.class)
    void shouldNeitherStallNorLoseNorDuplicateWhenTheAppIsKilledTwentyTimes(final Chaos.App app) throws Exception {
        final Chaos chaos = new Chaos(new Chaos.Settings(Integer.getInteger("chaos.kills", 20), 30, 40, 3, 8,
            Path.of("target", "chaos").toAbsolutePath(), Integer.getInteger("chaos.child.heap.mb", 320)), System.out);

        final Chaos.Result result = chaos.run(app);

        System.out.println("ChaosSoakIT " + result);
        assertThat(result.stalls()).as("stalls %s", result.secondsToProgress()).isZero();
        assertThat(result.lost()).as("lost").isZero();
        assertThat(result.duplicated()).as("duplicated").isZero();
        assertThat(result.wrongAnswers()).as("answers %s", result.answers()).isZero();
        assertThat(result.items()).isPositive();
    }
}
