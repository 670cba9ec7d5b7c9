package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import dev.engram.scoring.SearchIndexes;
import org.junit.jupiter.api.Test;

/**
 * "Unknown" is an answer only where the instance holds the user's partition completely: caught up since its start
 * and the partition loaded. A partition Kafka Streams is restoring (after a rebalance, or a task closed as corrupted
 * under exactly-once while the client stays RUNNING) is left out of store lookups, so a user it holds would read as
 * unknown: the answer must be a 503 with Retry-After, not a 404 (seen in a clean-clone CI run at load 50).
 */
class UnknownUserAnswerTest {

    private static final UserKey USER = new UserKey("t1", "u-0");

    @Test
    void shouldAnswer503NotFoundWhenCaughtUpButThePartitionIsNotLoaded() {
        try (CatchUp caughtUp = new CatchUp(() -> null, Map.of("bootstrap.servers", "127.0.0.1:1"), "engram-retriever",
            "memory-updated", Duration.ZERO)) {
            final RetrievalService service = new RetrievalService(() -> null, () -> null, new SearchIndexes(), caughtUp);

            final ApiProblem answer = service.unknown(USER, "No memories are known for user u-0 of tenant t1");

            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.retryAfterSeconds()).isPositive();
        }
    }

    @Test
    void shouldAnswer503WhileTheBacklogIsNotRead() {
        try (CatchUp reading = new CatchUp(() -> null, Map.of("bootstrap.servers", "127.0.0.1:1"), "engram-retriever",
            "memory-updated", Duration.ofMinutes(5))) {
            final RetrievalService service = new RetrievalService(() -> null, () -> null, new SearchIndexes(), reading);

            final ApiProblem answer = service.unknown(USER, "No memory m-1 for this user");

            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.getMessage()).contains("still reading memory-updated");
        }
    }
}
