package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The scale-out fault run ({@link ChaosScaleOut}): two instances of every app and three brokers, each a JVM of its
 * own; one app instance and one broker SIGKILLed per round (each app once): nothing lost, nothing duplicated, every
 * memory served by either retriever instance, only 200 and 503 answered. Ten JVMs for several minutes: only in the
 * {@code soak} profile ({@code mvn -B -Psoak -pl deploy -am verify}); the same runs as
 * {@code bin/engram chaos --instances 2 --brokers 3}.
 */
@Tag("soak")
class ChaosScaleOutIT {

    @Test
    void shouldLoseNothingWhenAnAppInstanceAndABrokerAreKilledEachRound() throws Exception {
        final ChaosScaleOut run = new ChaosScaleOut(new ChaosScaleOut.Settings(2, 3, Integer.getInteger("chaos.rounds", 3),
            60, 2, Path.of("target", "chaos").toAbsolutePath(), Integer.getInteger("chaos.child.heap.mb", 384), 384,
            List.of(Chaos.App.EXTRACTOR, Chaos.App.CONSOLIDATOR, Chaos.App.RETRIEVER)), System.out);

        final ChaosScaleOut.Result result = run.run();

        System.out.println("ChaosScaleOutIT " + result);
        assertThat(result.items()).isPositive();
        assertThat(result.unsent()).as("unsent (failed sends %d)", result.failedSends()).isZero();
        assertThat(result.lost()).as("lost").isZero();
        assertThat(result.duplicated()).as("duplicated").isZero();
        assertThat(result.notServed()).as("not served").isZero();
        assertThat(result.wrongAnswers()).as("answers %s", result.answers()).isZero();
        assertThat(result.answers().getOrDefault(200, 0L)).as("answers %s", result.answers()).isPositive();
        assertThat(result.stalls()).as("stalls %s", result.roundDetails()).isZero();
        assertThat(result.notInSync()).as("rounds %s", result.roundDetails()).isZero();
    }
}
