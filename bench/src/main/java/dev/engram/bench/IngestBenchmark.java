package dev.engram.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.UpdateOperation;
import dev.engram.stack.ConversationSources;
import dev.engram.stack.Ingest;
import dev.engram.config.EngramConfig;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.embedder.EmbeddingCpu;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import dev.engram.topics.Topic;

/**
 * {@code bench ingest}: pipeline throughput against the embedding ceiling, in one run.
 *
 * <ol>
 *   <li>Ceiling: the texts the extractor embeds for these conversations (the contents of
 *       {@link RuleBasedExtractor}'s memories, one per candidate) embedded with the same model and
 *       setup ({@link ScriptRoutedEmbedder#fromConfig}, the default model, one text per core) in batches of {@value #BATCH}, after a
 *       warm-up; nothing else runs. Gives embeddings/s.</li>
 *   <li>Warm-up ({@code --warmup}, default {@value #STEADY}): conversations through stacks of their own, closed and
 *       discarded, so that the timed pipeline runs compiled code as the ceiling does (its warm-up is the model's). A
 *       fresh JVM otherwise spends a large part of the pipeline phase compiling the broker, Kafka Streams, Avro and
 *       the apps: after the 100 conversations this bench warmed with until 2026-12-06, the JIT's compiler threads
 *       were still 12 % of the JVM's CPU in the timed phase on a quiet machine (on two cores the one C2 thread is
 *       still compiling for the first time after a whole pass over the set: BENCHMARKS.md "Ingest", "Where the JIT
 *       goes"), a start-up cost that a long-running deployment or a backfill pays once. {@value #STEADY}: whole
 *       passes over the set, each through a fresh discarded stack (the same conversations twice in one stack would be
 *       duplicates), until the compiler threads took less than {@value #STEADY_JIT_PERCENT} % of the JVM's CPU time
 *       in the last pass, at most {@value #MAX_STEADY_PASSES} passes; each pass's share is in the JSON
 *       ({@code warmupPasses}). {@code --warmup N}: N conversations (beyond the set's size the set again, a fresh
 *       stack per pass); {@code --warmup 0} measures the cold pipeline. No state is shared with the timed stack (its
 *       own run directory, broker and stores).</li>
 *   <li>Pipeline: the embedded stack ({@link EmbeddedStack}: broker, extractor, consolidator,
 *       retriever); once the retriever is ready, every conversation is published ({@link Ingest}) and
 *       the clock runs until the three apps have processed everything ({@link EmbeddedStack#awaitSettled}).
 *       conversations/s = conversations / elapsed; pipeline embeddings/s = candidates on
 *       {@code memory-candidates} / elapsed; memories/s = CREATED events / elapsed.</li>
 *   <li>ratioToCeiling = pipeline embeddings/s ÷ ceiling embeddings/s (1.0 = the pipeline costs
 *       nothing beyond embedding). The ceiling is measured before and again after the pipeline (stack
 *       closed) and averaged, because other processes on a shared machine change it during the run; both
 *       and the load average at the start are in the JSON.</li>
 *   <li>cpuRatioToCeiling = the JVM's CPU time per text in the first ceiling ÷ its CPU time per candidate
 *       during the pipeline (the wait for the pipeline to settle included): the same question asked of CPU
 *       time, which a swing of the machine's load between the phases does not move as it moves the rates.</li>
 *   <li>cpuMsPerCandidateByStage: the same CPU time per candidate split by stage ({@link CpuStages}: every thread's CPU
 *       time grouped by its name, the embeddings by the thread that asked for them), the bench's own producer and
 *       monitor counted apart ({@code benchClient}); cpuRatioToCeilingPipeline = the ceiling's CPU per text ÷ the
 *       {@code pipeline} stages' (all but the broker and the bench's client); cpuRatioToCeilingWithoutJit = the same
 *       ratio as cpuRatioToCeiling without the JIT's compile time (the ceiling runs native ONNX code and compiles
 *       nothing; a long-running deployment pays the JIT once, and the warm-up leaves some of it in the timed phase).</li>
 *   <li>embeddingPool: texts, inferences, texts per inference of the pipeline phase, and per inference the pool
 *       threads' CPU ms, ms runnable but waiting for a core and preemptions ({@link CpuStages#embeddingPoolSchedule});
 *       groupedCeiling: after the pipeline, the first conversations' texts one text per inference and in the
 *       extractor's groups ({@link RebuildBenchmark#ceiling}, as {@code bench rebuild} reports it), with the same
 *       pool figures: what a grouped inference costs with the cores to itself, against what it costs in the pipeline
 *       (BENCHMARKS.md "Ingest", "Why an inference costs more in the pipeline").</li>
 *   <li>brokerTrafficPerCandidate: the broker's requests by API, and records and bytes appended by topic (changelogs
 *       and repartition topics included) in the pipeline phase, per candidate ({@link BrokerTraffic}): what the
 *       {@code broker} stage's CPU paid for; {@code benchClientRequests}: how many of those requests the bench's own
 *       producer and settle monitor sent (not the pipeline's work: the monitor asks the cluster only while the counts
 *       stand still, {@link EmbeddedStack#awaitSettled}).</li>
 *   <li>memoryUpdatedPerCandidate: {@code memory-updated} records per candidate (every operation, observations
 *       included; {@code memoryUpdatedByOperation} splits them): the write amplification of consolidation.</li>
 * </ol>
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "LoCoMo conversations through the embedded stack: conversations/s, memories/s, and the embedding ceiling.")
public final class IngestBenchmark implements Callable<Integer> {

    static final int BATCH = 64;
    /** The default warm-up: until the JIT is quiet. */
    static final String STEADY = "steady";
    /** A warm-up pass in which the compiler threads took less than this share of the JVM's CPU ends the warm-up. */
    static final int STEADY_JIT_PERCENT = 5;
    /** The most passes over the set a {@value #STEADY} warm-up runs. */
    static final int MAX_STEADY_PASSES = 3;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
        description = "LoCoMo JSON or JSON Lines (default: " + Inputs.LOCOMO_DEV + ").")
    Path input;

    @Option(names = "--conversations", paramLabel = "N", defaultValue = "0",
        description = "Use the first N conversations (default: all of the input).")
    int limit;

    @Option(names = "--warmup", paramLabel = "N|steady", defaultValue = STEADY,
        description = "Before the timed stack, conversations through discarded stacks so the pipeline is timed with "
            + "compiled code as the ceiling is: " + STEADY + " = whole passes over the set until the JIT took less "
            + "than " + STEADY_JIT_PERCENT + "%% of the CPU in a pass (at most " + MAX_STEADY_PASSES + " passes); N = "
            + "N conversations (beyond the set's size the set again, a fresh stack per pass); 0 = a cold pipeline "
            + "(default: ${DEFAULT-VALUE}).")
    String warmup;

    @Spec
    CommandSpec spec;

    @Mixin
    SettingsOption settings = new SettingsOption();

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public IngestBenchmark() {
        this(System.out);
    }

    /** @param out where the table is printed */
    public IngestBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        final int warmupConversations = STEADY.equals(warmup) ? -1 : warmupConversations(warmup);
        final Path file = Inputs.resolve(input);
        final List<ConversationCompleted> all = ConversationSources.readAll(file).getKey();
        final List<ConversationCompleted> conversations = limit > 0 && all.size() > limit ? all.subList(0, limit) : all;
        out.printf("bench ingest — %s: %d conversations%n", file, conversations.size());

        final List<String> texts = new ArrayList<>();
        final RuleBasedExtractor extractor = new RuleBasedExtractor();
        for (final ConversationCompleted c : conversations) {
            for (final ExtractedMemory m : extractor.extract(c, null)) {
                texts.add(m.content());
            }
        }
        final double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        final Ceiling before = ceiling(texts);
        final double ceilingBefore = before.perSecond();
        out.printf("Embedding ceiling: %d texts at %.0f embeddings/s (load average %.1f)%n", texts.size(), ceilingBefore, load);

        final Map<String, Object> stackSettings = settings.over(Map.of());
        final List<Map<String, Object>> warmupPasses = new IngestWarmup(out, stackSettings)
            .run(conversations, warmupConversations);
        final int warmed = warmupPasses.stream().mapToInt(p -> ((Number) p.get("conversations")).intValue()).sum();
        final Map<String, Object> figures;
        try (EmbeddedStack stack = EmbeddedStack.start("ingest", stackSettings)) {
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
            out.println("Stack ready; publishing…");
            final long start = System.nanoTime();
            final LoadPhases.CpuClock pipelineCpu = new LoadPhases.CpuClock();
            final CpuStages.Snapshot stagesBefore = CpuStages.take();
            final PoolReading poolBefore = PoolReading.take();
            final BrokerTraffic trafficBefore = BrokerTraffic.take();
            final BrokerTraffic trafficAfter = publishAndSettle(stack, conversations, BrokerTraffic::take);
            final CpuStages.Snapshot stagesAfter = CpuStages.take();
            final PoolReading poolAfter = PoolReading.take();
            final double seconds = (System.nanoTime() - start) / 1e9;
            final long candidates = stack.monitor().count(Topic.MEMORY_CANDIDATES.name());
            final long created = stack.monitor().updates(UpdateOperation.CREATED);
            final long updated = stack.monitor().count(Topic.MEMORY_UPDATED.name());
            final Map<String, Object> byOperation = new LinkedHashMap<>();
            for (final UpdateOperation operation : UpdateOperation.values()) {
                final long n = stack.monitor().updates(operation);
                if (n > 0) {
                    byOperation.put(operation.name(), n);
                }
            }
            byOperation.put("observations", stack.monitor().observationsWritten());
            final double cpuMsPerCandidate = pipelineCpu.msPer(candidates / seconds);
            stack.close();
            final Ceiling after = ceiling(texts);
            final double ceilingAfter = after.perSecond();
            out.printf("Embedding ceiling again after the pipeline: %.0f embeddings/s%n", ceilingAfter);
            // the extractor embeds in groups: the same grouping alone, beside one text per inference (as bench rebuild)
            final PoolReading groupedBefore = PoolReading.take();
            final Map<String, Object> grouped = RebuildBenchmark.ceiling(conversations);
            grouped.put("embeddingPool", PoolReading.take().minus(groupedBefore));
            figures = figures(conversations.size(), candidates, created, seconds, texts.size(), (ceilingBefore + ceilingAfter) / 2);
            figures.put("memoryUpdated", updated);
            figures.put("memoryUpdatedPerCandidate", BenchReport.round(candidates == 0 ? 0 : (double) updated / candidates, 3));
            figures.put("memoryUpdatedByOperation", byOperation);
            figures.put("ceilingBefore", BenchReport.round(ceilingBefore, 1));
            figures.put("ceilingAfter", BenchReport.round(ceilingAfter, 1));
            figures.put("loadAverageAtStart", BenchReport.round(load, 2));
            // CPU time per text does not depend on the share of a shared machine the process got, which the rates do
            // the ceiling's CPU per text moves between runs on this kind of machine (21.9 and 24.1 ms on one machine,
            // quiet, same code): the mean of the two ceilings, each in the JSON
            final double ceilingCpu = (before.cpuMsPerText() + after.cpuMsPerText()) / 2;
            figures.put("cpuMsPerEmbeddingCeiling", BenchReport.round(ceilingCpu, 2));
            figures.put("cpuMsPerEmbeddingCeilingBefore", BenchReport.round(before.cpuMsPerText(), 2));
            figures.put("cpuMsPerEmbeddingCeilingAfter", BenchReport.round(after.cpuMsPerText(), 2));
            figures.put("cpuMsPerCandidatePipeline", BenchReport.round(cpuMsPerCandidate, 2));
            figures.put("cpuRatioToCeiling", BenchReport.round(ceilingCpu / cpuMsPerCandidate, 3));
            // where the CPU per candidate went, stage by stage; "pipeline" leaves out the broker and the bench's client
            final Map<String, Object> stages = CpuStages.msPer(stagesBefore, stagesAfter, candidates);
            figures.put("cpuMsPerCandidateByStage", stages);
            figures.put("cpuRatioToCeilingPipeline",
                BenchReport.round(ceilingCpu / ((Number) stages.get("pipeline")).doubleValue(), 3));
            // the ceiling runs native ONNX code and compiles nothing; the pipeline's JIT is a start-up cost that a
            // long-running deployment pays once (what is left of it after the warm-up is still in cpuRatioToCeiling)
            final double jit = ((Number) stages.get("jit")).doubleValue();
            figures.put("cpuRatioToCeilingWithoutJit", BenchReport.round(ceilingCpu / (cpuMsPerCandidate - jit), 3));
            figures.put("busiestOtherThreadsMs", CpuStages.busiestOther(stagesBefore, stagesAfter, 5));
            figures.put("embeddingPool", poolAfter.minus(poolBefore));
            // what the broker's CPU per candidate paid for: requests by API and records by topic, per candidate
            figures.put("brokerTrafficPerCandidate", trafficAfter.minus(trafficBefore, candidates));
            figures.put("groupedCeiling", grouped);
            figures.put("availableProcessors", Runtime.getRuntime().availableProcessors());
            figures.put("warmupConversations", warmed);
            figures.put("warmupPasses", warmupPasses);
            settings.addTo(figures);
        }
        print(figures);
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /**
     * The embedding pool between two moments: texts and inferences ({@link EmbeddingCpu}) and how the kernel ran the
     * pool's threads ({@link CpuStages#embeddingPoolSchedule}, Linux; zeros elsewhere).
     */
    record PoolReading(long texts, long inferences, long[] schedule) {

        static PoolReading take() {
            final long[] schedule = CpuStages.embeddingPoolSchedule();
            return new PoolReading(EmbeddingCpu.texts(), EmbeddingCpu.inferences(), schedule == null ? new long[3] : schedule);
        }

        /**
         * @param before the earlier reading
         * @return texts, inferences, texts per inference, and per inference the pool threads' CPU ms, ms runnable
         *     but waiting for a core, and preemptions (nonvoluntary context switches)
         */
        Map<String, Object> minus(final PoolReading before) {
            final long n = Math.max(1, inferences - before.inferences);
            final Map<String, Object> f = new LinkedHashMap<>();
            f.put("texts", texts - before.texts);
            f.put("inferences", inferences - before.inferences);
            f.put("textsPerInference", BenchReport.round((double) (texts - before.texts) / n, 3));
            f.put("cpuMsPerInference", BenchReport.round((schedule[0] - before.schedule[0]) / 1e6 / n, 3));
            f.put("waitMsPerInference", BenchReport.round((schedule[1] - before.schedule[1]) / 1e6 / n, 3));
            f.put("preemptionsPerInference", BenchReport.round((double) (schedule[2] - before.schedule[2]) / n, 2));
            return f;
        }
    }

    /**
     * The conversations a numeric {@code --warmup} asks for.
     *
     * @param warmup the option's value: a whole number of conversations
     * @return that number
     * @throws ParameterException if it is neither {@value #STEADY} nor a whole number ≥ 0
     */
    private int warmupConversations(final String warmup) {
        try {
            final int n = Integer.parseInt(warmup.trim());
            if (n >= 0) {
                return n;
            }
        } catch (final NumberFormatException e) {
            // refused below
        }
        throw new ParameterException(spec.commandLine(),
            "--warmup must be '" + STEADY + "' or a number of conversations ≥ 0, not '" + warmup + "'");
    }

    /** Publishes the conversations and waits until the stack has processed them. */
    static void publishAndSettle(final EmbeddedStack stack, final List<ConversationCompleted> conversations) {
        publishAndSettle(stack, conversations, () -> null);
    }

    /**
     * Publishes the conversations, waits until the stack has processed them, then reads what {@code settled} reads
     * while the bench's producer is still open (its client metrics go with it: {@link BrokerTraffic}).
     *
     * @return what {@code settled} returned
     */
    static <T> T publishAndSettle(final EmbeddedStack stack, final List<ConversationCompleted> conversations,
                                  final java.util.function.Supplier<T> settled) {
        try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of())) {
            conversations.forEach(ingest::send);
            ingest.flush();
            if (ingest.failed() > 0) {
                throw new IllegalStateException("Could not publish: " + ingest.errors());
            }
            stack.awaitSettled(Duration.ofMinutes(3));
            return settled.get();
        }
    }

    /**
     * @param perSecond texts embedded per second
     * @param cpuMsPerText the JVM's CPU ms per text over the timed loop (model load and warm-up excluded)
     */
    record Ceiling(double perSecond, double cpuMsPerText) {
    }

    /** Embeds the texts as fast as this machine can with the pipeline's model. */
    static Ceiling ceiling(final List<String> texts) {
        final Embedder embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());
        embedder.embedAll(texts.subList(0, Math.min(texts.size(), 2 * BATCH))); // warm-up: JIT and ORT
        final long start = System.nanoTime();
        final LoadPhases.CpuClock cpu = new LoadPhases.CpuClock();
        for (int i = 0; i < texts.size(); i += BATCH) {
            embedder.embedAll(texts.subList(i, Math.min(texts.size(), i + BATCH)));
        }
        final double perSecond = texts.size() / ((System.nanoTime() - start) / 1e9);
        return new Ceiling(perSecond, cpu.msPer(perSecond));
    }

    /**
     * The JSON figures.
     *
     * @param conversations conversations published
     * @param candidates candidates the extractor wrote (= texts it embedded)
     * @param created memories created
     * @param seconds publish → settled
     * @param ceilingTexts texts embedded for the ceiling
     * @param ceiling ceiling embeddings/s
     * @return the figures, in print order
     */
    static Map<String, Object> figures(final long conversations, final long candidates, final long created,
                                       final double seconds, final long ceilingTexts, final double ceiling) {
        final double embeddingsPerSecond = candidates / seconds;
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("conversations", conversations);
        f.put("candidates", candidates);
        f.put("memoriesCreated", created);
        f.put("seconds", BenchReport.round(seconds, 2));
        f.put("conversationsPerSecond", BenchReport.round(conversations / seconds, 2));
        f.put("memoriesPerSecond", BenchReport.round(created / seconds, 1));
        f.put("pipelineEmbeddingsPerSecond", BenchReport.round(embeddingsPerSecond, 1));
        f.put("ceilingTexts", ceilingTexts);
        f.put("embeddingsPerSecondCeiling", BenchReport.round(ceiling, 1));
        f.put("ratioToCeiling", BenchReport.round(embeddingsPerSecond / ceiling, 3));
        return f;
    }

    private void print(final Map<String, Object> f) {
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("figure", "value"));
        f.forEach((k, v) -> rows.add(List.of(k, String.valueOf(v))));
        out.println();
        BenchReport.table(out, rows);
    }
}
