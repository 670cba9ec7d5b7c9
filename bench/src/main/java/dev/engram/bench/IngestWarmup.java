package dev.engram.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.ConversationCompleted;

/**
 * The warm-up of {@code bench ingest} ({@link IngestBenchmark}): conversations through embedded stacks of their own,
 * closed and discarded, before the timed stack, so that the timed pipeline runs compiled code as the ceiling does.
 * {@value IngestBenchmark#STEADY}: whole passes over the set until the JIT's compiler threads took less than
 * {@value IngestBenchmark#STEADY_JIT_PERCENT} % of the JVM's CPU in a pass, at most
 * {@value IngestBenchmark#MAX_STEADY_PASSES}; or a number of conversations.
 */
final class IngestWarmup {

    private final PrintStream out;
    private final Map<String, Object> stackSettings;

    /**
     * @param out where each pass is reported
     * @param stackSettings the settings of every discarded stack (those of the timed one)
     */
    IngestWarmup(final PrintStream out, final Map<String, Object> stackSettings) {
        this.out = out;
        this.stackSettings = stackSettings;
    }

    /**
     * @param conversations the set
     * @param conversationsWanted conversations to run (a number ≥ 0), or -1 for {@value IngestBenchmark#STEADY}
     * @return each pass: conversations, seconds, jitPercent
     */
    List<Map<String, Object>> run(final List<ConversationCompleted> conversations, final int conversationsWanted) {
        final List<Map<String, Object>> done = new ArrayList<>();
        if (conversationsWanted < 0) {
            for (int pass = 1; pass <= IngestBenchmark.MAX_STEADY_PASSES; pass++) {
                final Map<String, Object> last = pass(conversations);
                done.add(last);
                if (((Number) last.get("jitPercent")).doubleValue() < IngestBenchmark.STEADY_JIT_PERCENT) {
                    break;
                }
            }
        } else {
            for (final int pass : passes(conversationsWanted, conversations.size())) {
                done.add(pass(conversations.subList(0, pass)));
            }
        }
        return done;
    }

    /**
     * Splits a warm-up into passes over the set: each pass a fresh discarded stack (the same conversation twice in one
     * stack would be a duplicate, not more of the workload).
     *
     * @param warmup conversations to run before the timed stack (0 or less: none)
     * @param size conversations in the set
     * @return the conversations of each pass, from the start of the set: {@code size} for every full pass, the rest in
     *     a last pass (e.g. 800 of 374 → 374, 374, 52); empty for no warm-up or an empty set
     */
    static List<Integer> passes(final int warmup, final int size) {
        final List<Integer> passes = new ArrayList<>();
        for (int done = 0; size > 0 && done < warmup; done += size) {
            passes.add(Math.min(size, warmup - done));
        }
        return passes;
    }

    /**
     * Runs conversations through a stack of their own until it has settled, then closes it: what the JVM compiles
     * meanwhile (broker, Kafka Streams, Avro, the apps) stays compiled for the timed stack, which shares nothing
     * else with it.
     *
     * @return the pass: conversations, seconds, and jitPercent (the compiler threads' share of the JVM's CPU time in
     *     the pass, stack start and close included)
     */
    private Map<String, Object> pass(final List<ConversationCompleted> conversations) {
        final long start = System.nanoTime();
        final CpuStages.Snapshot cpuBefore = CpuStages.take();
        try (EmbeddedStack stack = EmbeddedStack.start("ingest-warmup", stackSettings)) {
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
            IngestBenchmark.publishAndSettle(stack, conversations);
        }
        final CpuStages.Snapshot cpuAfter = CpuStages.take();
        final double seconds = (System.nanoTime() - start) / 1e9;
        final long process = Math.max(1, cpuAfter.processNanos() - cpuBefore.processNanos());
        final double jitPercent = 100.0 * (cpuAfter.jitNanos() - cpuBefore.jitNanos()) / process;
        out.printf("Warm-up: %d conversations through a discarded stack in %.1f s, the JIT %.1f %% of the CPU%n",
            conversations.size(), seconds, jitPercent);
        final Map<String, Object> pass = new LinkedHashMap<>();
        pass.put("conversations", conversations.size());
        pass.put("seconds", BenchReport.round(seconds, 1));
        pass.put("jitPercent", BenchReport.round(jitPercent, 1));
        return pass;
    }
}
