package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class CpuStagesTest {

    @Test
    void shouldNameTheStageOfEveryThreadTheEmbeddedStackRuns() {
        assertThat(CpuStages.stage("engram-extractor-3f2a-StreamThread-1")).isEqualTo("extractor");
        assertThat(CpuStages.stage("engram-extract-4")).isEqualTo("extractor");
        assertThat(CpuStages.stage("kafka-producer-network-thread | engram-consolidator-3f2a-StreamThread-1-producer"))
            .isEqualTo("consolidator");
        assertThat(CpuStages.stage("engram-access-reporter")).isEqualTo("retriever");
        assertThat(CpuStages.stage("engram-embedder-2")).isEqualTo("embeddingPool");
        assertThat(CpuStages.stage("kafka-producer-network-thread | engram-ingest")).isEqualTo("benchClient");
        assertThat(CpuStages.stage("data-plane-kafka-request-handler-3")).isEqualTo("broker");
        assertThat(CpuStages.stage("TxnMarkerSenderThread-1")).isEqualTo("broker");
        // Micrometer's Kafka binder of the apps' client metrics: not the broker's work, though its name says kafka
        assertThat(CpuStages.stage("micrometer-kafka-metrics")).isEqualTo("other");
    }

    @Test
    void shouldTellTheJitsAndTheCollectorsThreadsByTheirKernelNames() {
        assertThat(CpuStages.isJit("C2 CompilerThre")).isTrue();
        assertThat(CpuStages.isJit("C1 CompilerThre")).isTrue();
        assertThat(CpuStages.isGc("GC Thread#1")).isTrue();
        assertThat(CpuStages.isGc("G1 Conc#0")).isTrue();
        assertThat(CpuStages.isGc("VM Thread")).isTrue();
        assertThat(CpuStages.isJit("engram-extract-")).isFalse();
        assertThat(CpuStages.isGc("engram-consolid")).isFalse();
    }

    @Test
    void shouldReadTheCompilerThreadsCpuWhenTheJitCompilesOnLinux() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task")),
            "Linux only");
        final long[] before = CpuStages.vmThreadsCpu();
        assertThat(before).isNotNull().hasSize(2);
        // a loop this test runs for the first time: the JIT compiles it (on-stack replacement) as it gets hot
        long sink = 0;
        for (int round = 0; round < 20 && CpuStages.vmThreadsCpu()[0] == before[0]; round++) {
            for (int i = 0; i < 200_000; i++) {
                sink += Integer.toHexString(i * 31 + round).hashCode() ^ Long.toString(sink).length();
            }
        }
        final long[] after = CpuStages.vmThreadsCpu();
        assertThat(after[0]).as("the compiler threads' CPU time (sink %d)", sink).isGreaterThan(before[0]);
        assertThat(after[1]).isGreaterThanOrEqualTo(before[1]);
    }

    @Test
    void shouldReadHowTheKernelRanTheEmbeddingPoolsThreadsOnLinux() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task")),
            "Linux only");
        final long[] before = CpuStages.embeddingPoolSchedule();
        assertThat(before).isNotNull().hasSize(3);
        final long[] sink = new long[1];
        final Thread pool = new Thread(() -> {
            final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            final long end = threads.getCurrentThreadCpuTime() + 30_000_000L; // CPU time, whatever the machine's load
            while (threads.getCurrentThreadCpuTime() < end) {
                sink[0] += Long.toString(sink[0]).hashCode();
            }
            final long[] during = CpuStages.embeddingPoolSchedule();
            assertThat(during[0]).as("the pool thread's CPU time").isGreaterThan(before[0] + 10_000_000L);
            assertThat(during[1]).isGreaterThanOrEqualTo(before[1]);
            assertThat(during[2]).isGreaterThanOrEqualTo(before[2]);
        }, "engram-embedder-test");
        final Throwable[] failure = new Throwable[1];
        pool.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
        pool.start();
        pool.join();
        assertThat(failure[0]).as("sink %d", sink[0]).isNull();
    }

    @Test
    void shouldMoveEmbeddingsToTheStageThatAskedAndKeepTheRestWhereItRanWhenSplit() {
        final CpuStages.Snapshot before = new CpuStages.Snapshot(Map.of(
            1L, Map.entry("engram-extractor-a-StreamThread-1", 1_000_000L),
            2L, Map.entry("engram-embedder-1", 0L)), Map.of(), Map.of(), 1_000_000L);
        // the extractor's thread: 10 ms, 2 of them embedding one text inline; the pool: 30 ms, 24 for the extractor's
        // texts and 4 for the consolidator's observations; beyond the listed threads: 3 ms of collections, 2 of
        // compilation, the rest a thread that exited meanwhile
        final CpuStages.Snapshot after = new CpuStages.Snapshot(Map.of(
            1L, Map.entry("engram-extractor-a-StreamThread-1", 11_000_000L),
            2L, Map.entry("engram-embedder-1", 30_000_000L),
            3L, Map.entry("engram-consolidator-a-StreamThread-1", 5_000_000L)),
            Map.of("engram-extractor-a-StreamThread-1", 26_000_000L, "engram-consolidator-a-StreamThread-1", 4_000_000L),
            Map.of("engram-extractor-a-StreamThread-1", 2_000_000L), 60_000_000L, 3_000_000L, 2_000_000L);
        final Map<String, Object> perCandidate = CpuStages.msPer(before, after, 2);
        assertThat(perCandidate).containsEntry("extractor", 4.0).containsEntry("embeddingExtractor", 13.0)
            .containsEntry("consolidator", 2.5).containsEntry("embeddingConsolidator", 2.0)
            .containsEntry("embeddingPoolOverhead", 1.0).containsEntry("gc", 1.5).containsEntry("jit", 1.0).containsEntry("exited", 4.5).containsEntry("total", 29.5)
            .containsEntry("pipeline", 29.5);
    }
}
