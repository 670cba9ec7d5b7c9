package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class PhaseProbeTest {

    private static final long MS = 1_000_000L;

    @Test
    void shouldPutTheRequestsAPauseOverlappedApartWhenSplittingThePhase() {
        // 2 s at 100 req/s, every request answered in 2 ms, but those due within the 50-ms pause at 1.2 s, which
        // wait for its end and then take their 2 ms (52, 42, 32, 22, 12 ms: the second's 99th of 100 is 42)
        final long start = 1_000 * MS;
        final List<Long> dues = new ArrayList<>();
        final List<Long> ends = new ArrayList<>();
        final PhaseProbe.Pause pause = new PhaseProbe.Pause("Copy", start + 1_200 * MS, start + 1_250 * MS);
        for (int i = 0; i < 200; i++) {
            final long due = start + i * 10 * MS;
            dues.add(due);
            final boolean stalled = due >= pause.startNanos() && due < pause.endNanos();
            ends.add((stalled ? pause.endNanos() : due) + 2 * MS);
        }
        final Map<String, Object> f = PhaseProbe.split(start, start + 2_000 * MS,
            dues.stream().mapToLong(Long::longValue).toArray(), ends.stream().mapToLong(Long::longValue).toArray(),
            List.of(pause));

        assertThat(f).containsEntry("gcPauses", 1).containsEntry("gcPauseMsTotal", 50.0).containsEntry("gcPauseMsMax", 50.0)
            .containsEntry("gcPausesByCollector", Map.of("Copy", 1L))
            // due at 1.19 s (answered at 1.192 s) does not touch it; due at 1.20 … 1.24 s wait for it
            .containsEntry("requestsOverlappingGcPauses", 5)
            .containsEntry("p99MsOutsideGcPauses", 2.0)
            .containsEntry("p99MsBySecond", List.of(2.0, 42.0))
            .containsEntry("gcPauseMsBySecond", List.of(0.0, 50.0));
    }

    @Test
    void shouldLeaveTheBacklogAPauseLeftOutOfTheRequestsAwayFromPausesWhenSplitting() {
        // 2 s at 100 req/s answered in 2 ms; a 50-ms pause at 1.2 s; the ten requests due in the 100 ms after it
        // ends wait 20 ms behind its backlog (they do not overlap the pause, so they count as outside)
        final long start = 0;
        final PhaseProbe.Pause pause = new PhaseProbe.Pause("Copy", 1_200 * MS, 1_250 * MS);
        final long[] dues = new long[200];
        final long[] ends = new long[200];
        for (int i = 0; i < dues.length; i++) {
            dues[i] = i * 10 * MS;
            final boolean stalled = dues[i] >= pause.startNanos() && dues[i] < pause.endNanos();
            final boolean backlog = dues[i] >= pause.endNanos() && dues[i] < pause.endNanos() + 100 * MS;
            ends[i] = (stalled ? pause.endNanos() : dues[i]) + (backlog ? 20 * MS : 2 * MS);
        }

        final Map<String, Object> f = PhaseProbe.split(start, 2_000 * MS, dues, ends, List.of(pause));

        // HdrHistogram keeps 3 significant digits: 20 ms reads back as 20.02
        assertThat((Double) f.get("p99MsOutsideGcPauses")).isCloseTo(20.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(f).containsEntry("requestsOverlappingGcPauses", 5)
            .containsEntry("requestsAwayFromGcPauses", 185L)
            .containsEntry("p99MsAwayFromGcPauses", 2.0);
    }

    @Test
    void shouldSplitAPauseAcrossTheSecondsItSpansWhenItCrossesOne() {
        final long start = 0;
        final PhaseProbe.Pause pause = new PhaseProbe.Pause("MarkSweepCompact", 900 * MS, 1_300 * MS);
        final Map<String, Object> f = PhaseProbe.split(start, 3_000 * MS, new long[] {0}, new long[] {MS}, List.of(pause));

        // one request, due in the first second: the p99 of that second only; the pauses of all three
        assertThat(f).containsEntry("gcPauseMsBySecond", List.of(100.0, 300.0, 0.0))
            .containsEntry("p99MsBySecond", List.of(1.0))
            .containsEntry("requestsOverlappingGcPauses", 0);
    }

    @Test
    void shouldReportOnlyThePausesWhenThePhaseHasNoDueTimes() {
        final Map<String, Object> f = PhaseProbe.split(0, 1_000 * MS, new long[0], new long[0],
            List.of(new PhaseProbe.Pause("Copy", 10 * MS, 30 * MS)));

        assertThat(f).containsEntry("gcPauses", 1).containsEntry("gcPauseMsMax", 20.0)
            .doesNotContainKeys("requestsOverlappingGcPauses", "p99MsOutsideGcPauses", "p99MsBySecond");
    }

    @Test
    void shouldCountTheCollectionsThatRanWhileItListenedWhenTheJvmCollects() {
        final PhaseProbe probe = PhaseProbe.start();
        final long before = System.nanoTime();
        System.gc(); // a stop-the-world collection with every collector the tests run with
        probe.request(before, System.nanoTime());
        probe.close(java.util.concurrent.TimeUnit.SECONDS.toNanos(60)); // the notification comes late at load 60+
        final Map<String, Object> f = probe.figures(1);

        assertThat((Integer) f.get("gcPauses")).isGreaterThanOrEqualTo(1);
        assertThat((Double) f.get("gcPauseMsMax")).isGreaterThanOrEqualTo(0.0);
        assertThat(f).containsKeys("jitCompileMs", "cpuMsPerRequestByStage", "allocatedKbPerRequestByStage",
            "gcSurvivorMbMax", "gcPromotedMbTotal", "loadAverage");
        assertThat((Double) f.get("gcPromotedMbTotal")).isGreaterThanOrEqualTo(0.0);
    }

    @Test
    void shouldAddTheUsedBytesOfThePoolsNamedWhenAskedForSurvivorsOrTheOldGeneration() {
        final Map<String, java.lang.management.MemoryUsage> pools = Map.of(
            "Eden Space", new java.lang.management.MemoryUsage(0, 100, 200, 200),
            "Survivor Space", new java.lang.management.MemoryUsage(0, 30, 40, 40),
            "Tenured Gen", new java.lang.management.MemoryUsage(0, 500, 600, 600));

        assertThat(PhaseProbe.used(pools, "Survivor")).isEqualTo(30);
        assertThat(PhaseProbe.used(pools, "Tenured")).isEqualTo(500);
        assertThat(PhaseProbe.used(pools, "Old")).isZero();
    }

    @Test
    void shouldNameTheCollectorsAndTheHeapWhenDescribingTheJvm() {
        final Map<String, Object> jvm = PhaseProbe.jvm();

        assertThat((java.util.List<?>) jvm.get("collectors")).isNotEmpty();
        assertThat((Long) jvm.get("maxHeapMb")).isPositive();
        // the test JVM runs with -Xmx (test.argLine)
        assertThat((java.util.List<?>) jvm.get("options")).anySatisfy(o -> assertThat(o.toString()).startsWith("-Xmx"));
    }

    @Test
    void shouldLeaveConcurrentCyclesOutWhenChoosingTheBeansOfPauses() {
        assertThat(PhaseProbe.isPauseBean("Copy")).isTrue();
        assertThat(PhaseProbe.isPauseBean("G1 Young Generation")).isTrue();
        assertThat(PhaseProbe.isPauseBean("ZGC Pauses")).isTrue();
        assertThat(PhaseProbe.isPauseBean("ZGC Cycles")).isFalse();
        assertThat(PhaseProbe.isPauseBean("Shenandoah Cycles")).isFalse();
    }
}
