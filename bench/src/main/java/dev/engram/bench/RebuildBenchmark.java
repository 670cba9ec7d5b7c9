package dev.engram.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.avro.ConversationCompleted;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.ops.Rebuild;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.stack.ConversationSources;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench rebuild}: how fast {@code bin/engram rebuild} rebuilds memory state, against the ingest rate and the
 * embedding ceiling measured in the same run.
 *
 * <ol>
 *   <li>Ceiling: the texts the extractor embeds for the first conversations (at least {@value #CEILING_TEXTS} texts,
 *       the contents of {@link RuleBasedExtractor}'s memories, distinct per conversation) embedded one text per core
 *       ({@link Embedder#embedAll}, as {@code bench ingest}'s ceiling) and per conversation in groups
 *       ({@link Embedder#embedGroup}, as the extractor embeds): texts/s and CPU ms per text each way, and how far the
 *       grouped vectors are from the one-text ones (largest absolute difference of a coordinate, smallest cosine).</li>
 *   <li>Ingest: the conversations through the embedded stack ({@link EmbeddedStack}, after {@code --warmup}
 *       conversations through a discarded one, as {@code bench ingest}) until settled: candidates/s and CPU ms per
 *       candidate (the process; {@code pipeline} without the broker and the bench's client, {@link CpuStages}).</li>
 *   <li>The apps are stopped (the broker keeps the topics) and {@link Rebuild} runs as {@code bin/engram rebuild}
 *       does: the consolidator from {@code memory-candidates} (candidates carry their vectors, observations find theirs
 *       on {@code memory-updated}), then the retriever from {@code memory-updated}; each verified against the state
 *       before. {@code rebuildRatioToIngest} = candidates ÷ (both rebuilds' seconds) ÷ the ingest's candidates/s;
 *       {@code rebuildCpuRatioToIngest} = the ingest's CPU per candidate ÷ the rebuilds'.</li>
 *   <li>Full rebuild, {@code rebuild --re-extract}: extractor and consolidator from {@code conversations-completed},
 *       verified. {@code reExtractRatioToCeiling} = candidates/s ÷ the one-text ceiling's texts/s;
 *       {@code reExtractCpuRatioToCeiling} = the ceiling's CPU per text ÷ the rebuild's CPU per candidate (the same
 *       against the grouped ceiling: {@code …Grouped}).</li>
 * </ol>
 *
 * <p>Every rebuild's wall time is the command's (snapshots before and after, reset, reading the observation
 * vectors included); {@code reprocessSeconds} is the part from the app's start until it caught up, and
 * {@code phaseSeconds} where all of it went ({@link Rebuild.Report#phaseSeconds}).
 */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
    description = "bin/engram rebuild of ingested LoCoMo conversations: consolidator + retriever from memory-candidates vs the "
        + "ingest rate, --re-extract vs the embedding ceiling, each verified.")
public final class RebuildBenchmark implements Callable<Integer> {

    static final int CEILING_TEXTS = 1_200;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
        description = "LoCoMo JSON or JSON Lines (default: " + Inputs.LOCOMO_DEV + ").")
    Path input;

    @Option(names = "--conversations", paramLabel = "N", defaultValue = "0",
        description = "Use the first N conversations (default: all of the input).")
    int limit;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "50",
        description = "Conversations through a discarded stack before the timed ingest (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Mixin
    SettingsOption settings = new SettingsOption();

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public RebuildBenchmark() {
        this(System.out);
    }

    /** @param out where the figures are printed */
    public RebuildBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        final Path file = Inputs.resolve(input);
        List<ConversationCompleted> conversations = ConversationSources.readAll(file).getKey();
        if (limit > 0 && conversations.size() > limit) {
            conversations = conversations.subList(0, limit);
        }
        out.printf("bench rebuild — %s: %d conversations%n", file, conversations.size());
        final Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("conversations", conversations.size());
        figures.put("loadAverageAtStart", BenchReport.round(load(), 2));
        final Map<String, Object> ceiling = ceiling(conversations);
        figures.put("ceiling", ceiling);
        out.println("Ceiling: " + ceiling);

        final Map<String, Object> stackSettings = settings.over(Map.of());
        final int warmed = Math.min(Math.max(0, warmup), conversations.size());
        if (warmed > 0) {
            try (EmbeddedStack stack = EmbeddedStack.start("rebuild-warmup", stackSettings)) {
                stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
                IngestBenchmark.publishAndSettle(stack, conversations.subList(0, warmed));
            }
        }
        try (EmbeddedStack stack = EmbeddedStack.start("rebuild", stackSettings)) {
            stack.apps().awaitRetrieverReady(Duration.ofSeconds(120));
            final long start = System.nanoTime();
            final CpuStages.Snapshot before = CpuStages.take();
            IngestBenchmark.publishAndSettle(stack, conversations);
            final CpuStages.Snapshot after = CpuStages.take();
            final double seconds = (System.nanoTime() - start) / 1e9;
            final long candidates = stack.monitor().count(Topic.MEMORY_CANDIDATES.name());
            figures.put("candidates", candidates);
            final Map<String, Object> ingest = phase(seconds, candidates, CpuStages.msPer(before, after, candidates));
            figures.put("ingest", ingest);
            out.println("Ingest: " + ingest);
            stack.stopApps();

            final EngramConfig config = stack.config().with(Map.of(
                PipelineConfig.STATE_DIR, Path.of(stack.config().getString(PipelineConfig.STATE_DIR)).resolveSibling("rebuild-state")
                    .toString()));
            final Path work = Path.of(stack.config().getString(PipelineConfig.STATE_DIR)).resolveSibling("rebuild-work");
            final Map<String, Object> consolidator = rebuild(config, Rebuild.App.CONSOLIDATOR, false, false, work, candidates);
            final Map<String, Object> retriever = rebuild(config, Rebuild.App.RETRIEVER, false, false, work, candidates);
            figures.put("rebuildConsolidator", consolidator);
            figures.put("rebuildRetriever", retriever);
            final double rebuildSeconds = (double) consolidator.get("seconds") + (double) retriever.get("seconds");
            final double rebuildCpu = (double) consolidator.get("cpuMsPerCandidate") + (double) retriever.get("cpuMsPerCandidate");
            final double rate = candidates / rebuildSeconds;
            figures.put("rebuildSeconds", BenchReport.round(rebuildSeconds, 2));
            figures.put("rebuildCandidatesPerSecond", BenchReport.round(rate, 1));
            figures.put("rebuildRatioToIngest", BenchReport.round(rate / (double) ingest.get("candidatesPerSecond"), 2));
            figures.put("rebuildCpuRatioToIngest", BenchReport.round((double) ingest.get("cpuMsPerCandidate") / rebuildCpu, 2));
            // the same two apps in one command (rebuild --with-retriever): the retriever re-reads memory-updated while
            // the consolidator rewrites it
            final Map<String, Object> together = rebuild(config, Rebuild.App.CONSOLIDATOR, false, true, work, candidates);
            figures.put("rebuildWithRetriever", together);
            figures.put("rebuildWithRetrieverRatioToIngest", BenchReport.round((double) together.get("candidatesPerSecond")
                / (double) ingest.get("candidatesPerSecond"), 2));
            figures.put("rebuildWithRetrieverCpuRatioToIngest", BenchReport.round((double) ingest.get("cpuMsPerCandidate")
                / (double) together.get("cpuMsPerCandidate"), 2));

            final Map<String, Object> full = rebuild(config, Rebuild.App.CONSOLIDATOR, true, false, work, candidates);
            figures.put("rebuildReExtract", full);
            final double fullRate = (double) full.get("candidatesPerSecond");
            final double fullCpu = (double) full.get("cpuMsPerCandidate");
            figures.put("reExtractRatioToCeiling", BenchReport.round(fullRate / (double) ceiling.get("singlePerSecond"), 3));
            figures.put("reExtractCpuRatioToCeiling", BenchReport.round((double) ceiling.get("singleCpuMsPerText") / fullCpu, 3));
            figures.put("reExtractRatioToCeilingGrouped",
                BenchReport.round(fullRate / (double) ceiling.get("groupedPerSecond"), 3));
            figures.put("reExtractCpuRatioToCeilingGrouped",
                BenchReport.round((double) ceiling.get("groupedCpuMsPerText") / fullCpu, 3));
            figures.put("verifyEqual", (int) consolidator.get("differences") == 0 && (int) retriever.get("differences") == 0
                && (int) together.get("differences") == 0 && (int) full.get("differences") == 0);
        }
        figures.put("loadAverageAtEnd", BenchReport.round(load(), 2));
        figures.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        settings.addTo(figures);
        out.println();
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("figure", "value"));
        figures.forEach((k, v) -> rows.add(List.of(k, String.valueOf(v))));
        BenchReport.table(out, rows);
        BenchReport.writeJson(json.file(), figures, out);
        return Boolean.TRUE.equals(figures.get("verifyEqual")) ? 0 : 1;
    }

    /** One rebuild as the command runs it, timed; its CPU per candidate of the ingest. */
    private Map<String, Object> rebuild(final EngramConfig config, final Rebuild.App app, final boolean reExtract,
                                        final boolean withRetriever, final Path work, final long candidates) {
        final String name = app.name().toLowerCase(java.util.Locale.ROOT) + (reExtract ? "-re-extract" : "")
            + (withRetriever ? "-with-retriever" : "");
        final CpuStages.Snapshot before = CpuStages.take();
        // read while the rebuilt apps run: the CPU time of a thread that ended is no longer listed (it went to exited)
        final CpuStages.Snapshot[] after = new CpuStages.Snapshot[1];
        final Rebuild.Report report = new Rebuild(config, app, null, reExtract, withRetriever, true, work.resolve(name),
            Duration.ofMinutes(15), out).run(() -> after[0] = CpuStages.take());
        final Map<String, Object> f = phase(report.seconds(), candidates, CpuStages.msPer(before, after[0], candidates));
        final Map<String, Object> reprocess = new LinkedHashMap<>();
        report.reprocessSeconds().forEach((a, s) -> reprocess.put(a.name().toLowerCase(java.util.Locale.ROOT),
            BenchReport.round(s, 2)));
        f.put("reprocessSeconds", reprocess);
        final Map<String, Object> phases = new LinkedHashMap<>();
        report.phaseSeconds().forEach((phase, s) -> phases.put(phase, BenchReport.round(s, 2)));
        f.put("phaseSeconds", phases);
        final Map<String, Object> processed = new LinkedHashMap<>();
        report.processed().forEach((a, n) -> processed.put(a.name().toLowerCase(java.util.Locale.ROOT), n));
        f.put("inputRecords", processed);
        f.put("memoryUpdatedWritten", report.updatesWritten());
        if (app == Rebuild.App.CONSOLIDATOR) {
            f.put("observationVectorsReused", report.observationVectorsReused());
            f.put("observationTextsEmbedded", report.observationTextsEmbedded());
        }
        f.put("differences", report.differences().size());
        return f;
    }

    /** Seconds, candidates/s and CPU per candidate of one phase. */
    private static Map<String, Object> phase(final double seconds, final long candidates, final Map<String, Object> stages) {
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("seconds", BenchReport.round(seconds, 2));
        f.put("candidatesPerSecond", BenchReport.round(candidates / seconds, 1));
        f.put("cpuMsPerCandidate", stages.get("total"));
        f.put("cpuMsPerCandidateByStage", stages);
        return f;
    }

    /**
     * The one-text and the grouped ceiling on the first conversations' texts (at least {@value #CEILING_TEXTS}), and the
     * vectors' difference; {@code bench ingest} reports it too.
     *
     * @param conversations the set, in order
     * @return texts, conversations, texts/s and process CPU ms per text each way, their ratio, the largest coordinate
     *     difference and the smallest cosine between the two ways' vectors
     */
    static Map<String, Object> ceiling(final List<ConversationCompleted> conversations) {
        final RuleBasedExtractor extractor = new RuleBasedExtractor();
        final List<List<String>> groups = new ArrayList<>();
        int count = 0;
        for (final ConversationCompleted c : conversations) {
            final LinkedHashSet<String> texts = new LinkedHashSet<>();
            extractor.extract(c, null).stream().map(ExtractedMemory::content).forEach(texts::add);
            if (!texts.isEmpty()) {
                groups.add(List.copyOf(texts));
                count += texts.size();
            }
            if (count >= CEILING_TEXTS) {
                break;
            }
        }
        final Embedder embedder = ScriptRoutedEmbedder.fromConfig(EngramConfig.defaults());
        for (int i = 0; i < Math.min(3, groups.size()); i++) { // warm-up: JIT and ONNX Runtime, both paths
            embedder.embedAll(groups.get(i));
            embedder.embedGroup(groups.get(i));
        }
        final List<float[]> single = new ArrayList<>();
        final LoadPhases.CpuClock singleCpu = new LoadPhases.CpuClock();
        final long singleStart = System.nanoTime();
        groups.forEach(g -> single.addAll(embedder.embedAll(g)));
        final double singleRate = count / ((System.nanoTime() - singleStart) / 1e9);
        final double singleMs = singleCpu.msPer(singleRate);
        final List<float[]> grouped = new ArrayList<>();
        final LoadPhases.CpuClock groupedCpu = new LoadPhases.CpuClock();
        final long groupedStart = System.nanoTime();
        groups.forEach(g -> grouped.addAll(embedder.embedGroup(g)));
        final double groupedRate = count / ((System.nanoTime() - groupedStart) / 1e9);
        final double groupedMs = groupedCpu.msPer(groupedRate);
        double maxAbs = 0;
        double minCosine = 1;
        for (int i = 0; i < single.size(); i++) {
            double dot = 0;
            for (int j = 0; j < single.get(i).length; j++) {
                maxAbs = Math.max(maxAbs, Math.abs(single.get(i)[j] - grouped.get(i)[j]));
                dot += (double) single.get(i)[j] * grouped.get(i)[j];
            }
            minCosine = Math.min(minCosine, dot);
        }
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("texts", count);
        f.put("conversations", groups.size());
        f.put("singlePerSecond", BenchReport.round(singleRate, 1));
        f.put("singleCpuMsPerText", BenchReport.round(singleMs, 3));
        f.put("groupedPerSecond", BenchReport.round(groupedRate, 1));
        f.put("groupedCpuMsPerText", BenchReport.round(groupedMs, 3));
        f.put("groupedCpuRatioToSingle", BenchReport.round(groupedMs / singleMs, 3));
        f.put("groupedMaxAbsDifference", BenchReport.round(maxAbs, 5));
        f.put("groupedMinCosine", BenchReport.round(minCosine, 5));
        return f;
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
