package dev.engram.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import org.HdrHistogram.Histogram;

/**
 * What ran beside one timed phase of {@link RetrievalBenchmark}, measured in the same JVM and the same window as the
 * phase's requests, so that a latency tail can be put down to a cause instead of guessed at.
 *
 * <ul>
 *   <li><b>GC pauses</b>: every stop-the-world collection that ended while the phase ran, from the collectors'
 *       notifications ({@link GarbageCollectionNotificationInfo}: start and end of the collection, ms since the JVM
 *       started); the beans of concurrent cycles (names ending in {@code Cycles}: ZGC, Shenandoah) are not pauses and
 *       are left out. {@code gcPauses}, {@code gcPauseMsTotal}, {@code gcPauseMsMax}, by collector
 *       ({@code gcPausesByCollector}).</li>
 *   <li><b>The requests a pause touched</b>: a request whose interval from its due time to its answer overlaps a pause
 *       ({@code requestsOverlappingGcPauses}), and the p99 of the others ({@code p99MsOutsideGcPauses}). A request that
 *       was due after a pause but waited behind the backlog it left counts as outside: the split understates what the
 *       pauses cost, it never overstates it. {@code p99MsAwayFromGcPauses} is the p99 of the requests that neither
 *       overlapped a pause nor were due within {@value #BACKLOG_MS} ms after one ended ({@code requestsAwayFromGcPauses}
 *       of them): what the tail would be without the pauses and the backlog each leaves (at 200 req/s a 30-ms pause
 *       leaves six requests queued, drained within tens of ms).</li>
 *   <li><b>Per second of the phase</b>: {@code p99MsBySecond} (the requests due in that second) and
 *       {@code gcPauseMsBySecond} (every second until the last answer), so a tail that sits in the first seconds
 *       (compilation) or at regular intervals (collections, a background loop) shows.</li>
 *   <li><b>JIT</b>: {@code jitCompileMs}, the compilers' accumulated compilation time during the phase
 *       ({@code CompilationMXBean}; the compiler threads' time, which competes with the requests for the cores).</li>
 *   <li><b>CPU by stage</b>: {@code cpuMsPerRequestByStage}, {@link CpuStages} between the phase's start and end per
 *       request (the retriever's request threads and stream thread, its query embeddings, the consolidator folding the
 *       access reports, the broker, the benchmark's own client threads {@code bench-*} counted apart as
 *       {@code benchClient}, collections and compilation).</li>
 *   <li><b>Allocation by stage</b>: {@code allocatedKbPerRequestByStage}, {@link AllocationStages} likewise (what sets
 *       how often a young collection runs), and the threads that allocated most ({@code allocatedKbPerRequestByThread},
 *       names grouped: which loop of a stage it is), and what the collections kept: {@code gcSurvivorMbMax} (the most a young
 *       collection left in the survivor spaces, i.e. copied there) and {@code gcPromotedMbTotal} (what the phase's
 *       collections moved to the old generation), from each collection's memory pools before and after.</li>
 * </ul>
 * {@link #request} is thread-safe; the figures are read after {@link #close}.
 */
final class PhaseProbe implements AutoCloseable {

    /** How long {@link #close} waits for the notifications of collections that ended before it. */
    private static final long NOTIFICATION_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long after a pause a due request still counts as queued behind its backlog (p99MsAwayFromGcPauses). */
    static final long BACKLOG_MS = 100;

    /** A stop-the-world collection, in {@link System#nanoTime} terms. */
    record Pause(String collector, long startNanos, long endNanos) {

        /** @return its length in ms */
        double ms() {
            return (endNanos - startNanos) / 1e6;
        }
    }

    private final long startNanos;
    private final long uptimeAtStartMs;
    private final CpuStages.Snapshot cpuBefore;
    private final long jitBeforeMs;
    private final long collectionsBefore;
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onNotification;
    /** The collections that ended after the probe started (by their sequence number, not their mapped time). */
    private final List<Pause> pauses = new ArrayList<>();
    /** Per collector, how many collections it had run when the probe started; a later GcInfo id is this phase's. */
    private final Map<String, Long> collectionsBeforeByCollector = new java.util.concurrent.ConcurrentHashMap<>();
    private final AllocationStages.Snapshot allocatedBefore;
    private long survivorMaxBytes;
    private long promotedBytes;
    private long[] due = new long[4096];
    private long[] end = new long[4096];
    private int requests;
    private long endNanos;
    private CpuStages.Snapshot cpuAfter;
    private AllocationStages.Snapshot allocatedAfter;
    private long jitAfterMs;

    private PhaseProbe() {
        // the clock mapping first: a notification may come while the listeners are being added
        this.uptimeAtStartMs = ManagementFactory.getRuntimeMXBean().getUptime();
        this.startNanos = System.nanoTime();
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (isPauseBean(gc.getName()) && gc instanceof NotificationEmitter emitter) {
                collectionsBeforeByCollector.put(gc.getName(), Math.max(0, gc.getCollectionCount()));
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
        this.collectionsBefore = collections();
        this.jitBeforeMs = jitMs();
        this.cpuBefore = CpuStages.take();
        this.allocatedBefore = AllocationStages.take();
    }

    /** @return a probe listening from now on */
    static PhaseProbe start() {
        return new PhaseProbe();
    }

    /**
     * One request of the phase.
     *
     * @param dueNanos when it was due ({@link System#nanoTime})
     * @param answeredNanos when its answer was read
     */
    void request(final long dueNanos, final long answeredNanos) {
        synchronized (this) {
            if (requests == due.length) {
                due = java.util.Arrays.copyOf(due, 2 * requests);
                end = java.util.Arrays.copyOf(end, 2 * requests);
            }
            due[requests] = dueNanos;
            end[requests] = answeredNanos;
            requests++;
        }
    }

    /** Ends the phase: stops listening once the collections that ended so far are all notified (2 s at most). */
    @Override
    public void close() {
        close(NOTIFICATION_WAIT_NANOS);
    }

    /**
     * Ends the phase, waiting at most {@code notificationWaitNanos} for the notifications of the collections that
     * ended so far (the JVM delivers them on its own thread, late on a loaded machine).
     *
     * @param notificationWaitNanos the longest wait, ns
     */
    void close(final long notificationWaitNanos) {
        endNanos = System.nanoTime();
        cpuAfter = CpuStages.take();
        allocatedAfter = AllocationStages.take();
        jitAfterMs = jitMs();
        final long expected = collections() - collectionsBefore;
        final long deadline = System.nanoTime() + notificationWaitNanos;
        while (notified() < expected && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        for (final NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException e) {
                // not listening any more: nothing to remove
            }
        }
    }

    /**
     * @param operations the phase's requests (the CPU split's denominator)
     * @return the figures of the class comment
     */
    Map<String, Object> figures(final long operations) {
        final List<Pause> during;
        final long[] dues;
        final long[] ends;
        synchronized (this) {
            // every pause kept began after the start (its id); one notified after close may still arrive
            during = pauses.stream().filter(p -> p.startNanos() <= endNanos)
                .toList();
            dues = java.util.Arrays.copyOf(due, requests);
            ends = java.util.Arrays.copyOf(end, requests);
        }
        final Map<String, Object> f = new LinkedHashMap<>(split(startNanos, endNanos, dues, ends, during));
        f.put("jitCompileMs", jitAfterMs - jitBeforeMs);
        f.put("cpuMsPerRequestByStage", CpuStages.msPer(cpuBefore, cpuAfter, operations));
        f.put("allocatedKbPerRequestByStage", AllocationStages.kbPer(allocatedBefore, allocatedAfter, operations));
        f.put("allocatedKbPerRequestByThread", AllocationStages.topThreads(allocatedBefore, allocatedAfter, operations, 8));
        synchronized (this) {
            f.put("gcSurvivorMbMax", BenchReport.round(survivorMaxBytes / 1048576.0, 1));
            f.put("gcPromotedMbTotal", BenchReport.round(promotedBytes / 1048576.0, 1));
        }
        f.put("loadAverage", BenchReport.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
        return f;
    }

    /**
     * The pause figures of a phase.
     *
     * @param phaseStart the phase's start ({@link System#nanoTime})
     * @param phaseEnd its end
     * @param dues each request's due time
     * @param ends each request's answer time, same order
     * @param pauses the pauses that overlapped the phase
     * @return {@code gcPauses}, {@code gcPauseMsTotal}, {@code gcPauseMsMax}, {@code gcPausesByCollector},
     *     {@code requestsOverlappingGcPauses}, {@code p99MsOutsideGcPauses}, {@code requestsAwayFromGcPauses},
     *     {@code p99MsAwayFromGcPauses}, {@code p99MsBySecond},
     *     {@code gcPauseMsBySecond}
     */
    static Map<String, Object> split(final long phaseStart, final long phaseEnd, final long[] dues, final long[] ends,
                                     final List<Pause> pauses) {
        final Map<String, Object> f = new LinkedHashMap<>();
        final Map<String, Long> byCollector = new LinkedHashMap<>();
        double total = 0;
        double max = 0;
        for (final Pause p : pauses) {
            total += p.ms();
            max = Math.max(max, p.ms());
            byCollector.merge(p.collector(), 1L, Long::sum);
        }
        f.put("gcPauses", pauses.size());
        f.put("gcPauseMsTotal", BenchReport.round(total, 1));
        f.put("gcPauseMsMax", BenchReport.round(max, 1));
        f.put("gcPausesByCollector", byCollector);
        if (dues.length == 0) {
            return f; // a closed-loop phase: its requests have no due times
        }
        final int seconds = (int) Math.max(1, (phaseEnd - phaseStart + 999_999_999L) / 1_000_000_000L);
        final Histogram outside = Latencies.histogram();
        final Histogram away = Latencies.histogram();
        final List<Histogram> bySecond = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            bySecond.add(Latencies.histogram());
        }
        int overlapping = 0;
        for (int i = 0; i < dues.length; i++) {
            final long micros = Math.max(0, (ends[i] - dues[i]) / 1000);
            if (touches(dues[i], ends[i], pauses)) {
                overlapping++;
            } else {
                outside.recordValue(micros);
                if (!touches(dues[i] - TimeUnit.MILLISECONDS.toNanos(BACKLOG_MS), dues[i], pauses)) {
                    away.recordValue(micros);
                }
            }
            final int second = (int) Math.min(seconds - 1, Math.max(0, (dues[i] - phaseStart) / 1_000_000_000L));
            bySecond.get(second).recordValue(micros);
        }
        f.put("requestsOverlappingGcPauses", overlapping);
        f.put("p99MsOutsideGcPauses", BenchReport.round(outside.getValueAtPercentile(99) / 1000.0, 2));
        f.put("requestsAwayFromGcPauses", away.getTotalCount());
        f.put("p99MsAwayFromGcPauses", BenchReport.round(away.getValueAtPercentile(99) / 1000.0, 2));
        final double[] pauseBySecond = new double[seconds];
        for (final Pause p : pauses) {
            for (int s = 0; s < seconds; s++) {
                final long from = Math.max(p.startNanos(), phaseStart + s * 1_000_000_000L);
                final long to = Math.min(p.endNanos(), phaseStart + (s + 1) * 1_000_000_000L);
                if (to > from) {
                    pauseBySecond[s] += (to - from) / 1e6;
                }
            }
        }
        // the p99 of the seconds requests were due in; the pauses of every second until the last answer (the drain too)
        long lastDue = phaseStart;
        for (final long d : dues) {
            lastDue = Math.max(lastDue, d);
        }
        final int dueSeconds = (int) Math.min(seconds, (lastDue - phaseStart) / 1_000_000_000L + 1);
        final List<Double> p99s = new ArrayList<>();
        final List<Double> gcs = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            if (s < dueSeconds) {
                p99s.add(BenchReport.round(bySecond.get(s).getValueAtPercentile(99) / 1000.0, 1));
            }
            gcs.add(BenchReport.round(pauseBySecond[s], 1));
        }
        f.put("p99MsBySecond", p99s);
        f.put("gcPauseMsBySecond", gcs);
        return f;
    }

    private static boolean touches(final long from, final long to, final List<Pause> pauses) {
        for (final Pause p : pauses) {
            if (p.startNanos() < to && p.endNanos() > from) {
                return true;
            }
        }
        return false;
    }

    /** A bean whose collections stop the application (not a concurrent collector's cycles). */
    static boolean isPauseBean(final String name) {
        return !name.endsWith("Cycles");
    }

    private void onNotification(final Notification notification, final Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        final GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        // GcInfo's times are ms since the JVM started, as the uptime read at the probe's start
        final long start = startNanos + TimeUnit.MILLISECONDS.toNanos(info.getGcInfo().getStartTime() - uptimeAtStartMs);
        final long stop = startNanos + TimeUnit.MILLISECONDS.toNanos(info.getGcInfo().getEndTime() - uptimeAtStartMs);
        final Map<String, java.lang.management.MemoryUsage> poolsBefore = info.getGcInfo().getMemoryUsageBeforeGc();
        final Map<String, java.lang.management.MemoryUsage> poolsAfter = info.getGcInfo().getMemoryUsageAfterGc();
        // whether it ran in the phase is decided by its sequence number: GcInfo's times count from a JVM-internal
        // stamp taken after the uptime's origin, so on a JVM started under load they map early (by up to its
        // start-up time) and a collection of the phase could look as if it ended before the probe started
        if (info.getGcInfo().getId() <= collectionsBeforeByCollector.getOrDefault(info.getGcName(), 0L)) {
            return;
        }
        synchronized (this) {
            pauses.add(new Pause(info.getGcName(), start, Math.max(start, stop)));
            survivorMaxBytes = Math.max(survivorMaxBytes, used(poolsAfter, "Survivor"));
            promotedBytes += Math.max(0, used(poolsAfter, "Old") + used(poolsAfter, "Tenured")
                - used(poolsBefore, "Old") - used(poolsBefore, "Tenured"));
        }
    }

    /** @return bytes used in the memory pools whose name contains {@code part} (e.g. "Survivor", "Old", "Tenured") */
    static long used(final Map<String, java.lang.management.MemoryUsage> pools, final String part) {
        long bytes = 0;
        for (final Map.Entry<String, java.lang.management.MemoryUsage> pool : pools.entrySet()) {
            if (pool.getKey().contains(part) && pool.getValue() != null) {
                bytes += pool.getValue().getUsed();
            }
        }
        return bytes;
    }

    /**
     * @return the notified collections that ran since the phase started; one that ended just before it is not
     *     counted, though its notification may arrive after the listener was added (it would end the wait in
     *     {@link #close} before the phase's own collection is notified)
     */
    private synchronized int notified() {
        return pauses.size();
    }

    private static long collections() {
        long n = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (isPauseBean(gc.getName())) {
                n += Math.max(0, gc.getCollectionCount());
            }
        }
        return n;
    }

    /**
     * @return the JVM the phases ran in: {@code collectors} (the pause beans' names, e.g. {@code Copy} and
     *     {@code MarkSweepCompact} for the serial collector), {@code maxHeapMb}, {@code options} (the command line's
     *     {@code -X…} options: heap and collector settings, {@code JAVA_OPTS} included), {@code cores}
     */
    static Map<String, Object> jvm() {
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("collectors", ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(GarbageCollectorMXBean::getName).toList());
        f.put("maxHeapMb", Runtime.getRuntime().maxMemory() / 1048576);
        f.put("options", ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(a -> a.startsWith("-X")).toList());
        f.put("cores", Runtime.getRuntime().availableProcessors());
        return f;
    }

    /** @return the JIT's accumulated compilation time so far, ms (0 where the JVM does not say) */
    static long jitMs() {
        final java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }
}
