package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

/**
 * {@link IdleCommit}: a commit is asked for once the task's output waits and no record has been handed to it for
 * {@value IdleCommit#QUIET_MS} ms, counted from the end of the last record's processing.
 */
class IdleCommitTest {

    private static final long MS = Duration.ofMillis(1).toNanos();

    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final IdleCommit idle = new IdleCommit(context, now::get);

    private void punctuate() {
        context.scheduledPunctuators().forEach(p -> p.getPunctuator().punctuate(now.get() / MS));
    }

    @Test
    void shouldAskForACommitWhenTheInputHasBeenQuietAfterOutput() {
        idle.output();
        idle.processed();
        now.addAndGet(2 * MS);
        punctuate();
        assertThat(context.committed()).as("2 ms of quiet is not enough").isFalse();
        now.addAndGet(IdleCommit.QUIET_MS * MS);
        punctuate();
        assertThat(context.committed()).isTrue();
    }

    @Test
    void shouldNotCountALongRecordAsQuietInputWhenItsProcessingEndsWithTheNextRecordWaiting() {
        // the extractor waiting 200 ms for a free slot (or the consolidator running its lifecycle pass) inside one
        // record: the quiet time starts when the record is done, and the backlog's next record comes at once
        idle.output();
        now.addAndGet(200 * MS);
        idle.processed();
        punctuate();
        assertThat(context.committed()).as("a backlog commits at commit.interval.ms, not after every long record")
            .isFalse();
        idle.processed();
        now.addAndGet(IdleCommit.QUIET_MS * MS);
        punctuate();
        assertThat(context.committed()).as("then the input went quiet").isTrue();
    }

    @Test
    void shouldNotCommitWithoutOutputWhenTheInputIsQuiet() {
        idle.processed();
        now.addAndGet(50 * MS);
        punctuate();
        assertThat(context.committed()).isFalse();
    }
}
