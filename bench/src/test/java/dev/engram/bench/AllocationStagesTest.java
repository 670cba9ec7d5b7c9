package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class AllocationStagesTest {

    /** Kept reachable so the JIT cannot drop the allocation. */
    private static volatile byte[][] sink;

    @Test
    void shouldPutAThreadsAllocationInItsStageWhenItAllocatesBetweenTwoReadings() throws Exception {
        final AllocationStages.Snapshot before = AllocationStages.take();
        final Thread retriever = new Thread(() -> {
            final byte[][] chunks = new byte[16][];
            for (int i = 0; i < chunks.length; i++) {
                chunks[i] = new byte[1024 * 1024];
            }
            sink = chunks;
            // read while the thread still lives: the bean counts live threads only
            final Map<String, Object> perRequest = AllocationStages.kbPer(before, AllocationStages.take(), 4);
            assertThat((Double) perRequest.get("retriever")).isGreaterThanOrEqualTo(16 * 1024 / 4.0);
            assertThat((Double) perRequest.get("total")).isGreaterThanOrEqualTo((Double) perRequest.get("retriever"));
            assertThat((Double) perRequest.get("pipeline")).isGreaterThanOrEqualTo((Double) perRequest.get("retriever"));
        }, "engram-retriever-test-StreamThread-1");
        final Throwable[] failure = new Throwable[1];
        retriever.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
        retriever.start();
        retriever.join(60_000);
        assertThat(retriever.isAlive()).isFalse();
        assertThat(failure[0]).isNull();
        assertThat(sink.length).isEqualTo(16);
    }

    @Test
    void shouldCountTheBenchmarksOwnClientApartWhenSplit() {
        final AllocationStages.Snapshot before = new AllocationStages.Snapshot(Map.of(
            1L, Map.entry("bench-load-1", 1_000L),
            2L, Map.entry("qtp123-45", 0L)));
        final AllocationStages.Snapshot after = new AllocationStages.Snapshot(Map.of(
            1L, Map.entry("bench-load-1", 1_000L + 2048 * 10),
            2L, Map.entry("qtp123-45", 4096L * 10),
            3L, Map.entry("data-plane-kafka-request-handler-1", 1024L * 10)));

        final Map<String, Object> perRequest = AllocationStages.kbPer(before, after, 10);

        assertThat(perRequest).containsEntry("retriever", 4.0).containsEntry("benchClient", 2.0)
            .containsEntry("broker", 1.0).containsEntry("total", 7.0).containsEntry("pipeline", 4.0);
        assertThat(perRequest.keySet()).containsExactly("retriever", "consolidator", "extractor", "embeddingPool", "broker",
            "other", "benchClient", "total", "pipeline");
    }

    @Test
    void shouldGroupTheThreadsOfOneLoopWhenNamingTheTopAllocators() {
        final AllocationStages.Snapshot before = new AllocationStages.Snapshot(Map.of());
        final AllocationStages.Snapshot after = new AllocationStages.Snapshot(Map.of(
            1L, Map.entry("engram-retriever-3f2a9c1e-0b1d-4e2f-8a3b-9c8d7e6f5a4b-StreamThread-1", 8192L),
            2L, Map.entry("JettyServerThreadPool-41", 2048L),
            3L, Map.entry("JettyServerThreadPool-42", 2048L),
            4L, Map.entry("bench-load-7", 1024L)));

        final Map<String, Object> top = AllocationStages.topThreads(before, after, 1, 2);

        assertThat(top.keySet()).containsExactly("engram-retriever-<id>-StreamThread-N", "JettyServerThreadPool-N");
        assertThat(top).containsEntry("engram-retriever-<id>-StreamThread-N", 8.0).containsEntry("JettyServerThreadPool-N", 4.0);
    }
}
