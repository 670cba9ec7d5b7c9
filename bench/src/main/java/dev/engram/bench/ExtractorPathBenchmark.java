package dev.engram.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.avro.ConversationCompleted;
import dev.engram.consolidation.Echoes;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.TenantPolicy;
import dev.engram.privacy.PiiFilter;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.stack.ConversationSources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench extractor}: the CPU the offline extractor path costs per candidate, alone: what
 * {@code ExtractMemoriesProcessor} does to a decoded conversation ({@link PiiFilter#withoutSecrets}, the
 * {@link RuleBasedExtractor}, {@link Echoes#withoutEchoes}, {@link PiiFilter#apply}) on one thread, round after round
 * over the same conversations, without broker, embedding or other threads. {@code bench ingest} reports the same work
 * as its {@code extractor} stage among the rest of the pipeline; this one tells two builds' rule code apart at a load
 * where the whole pipeline cannot: run each build back to back and compare the CPU (never the wall time) per candidate.
 *
 * <p>Figures: per round the thread's CPU time ({@code ThreadMXBean#getCurrentThreadCpuTime}) and allocated bytes
 * divided by the candidates; the median of the rounds after {@code --warmup}. The candidates of the first round, one
 * {@code ExtractedMemory#toString} per line, go to {@code --dump} and into {@code outputSha256}: two builds whose digests
 * are equal extracted the same candidates in the same order with the same content.
 */
@Command(name = "extractor", mixinStandardHelpOptions = true,
    description = "CPU per candidate of the offline extractor path alone (secrets, rules, echoes, PII), one thread; "
        + "a digest of its output to compare builds.")
public final class ExtractorPathBenchmark implements Callable<Integer> {

    @Parameters(arity = "0..*", paramLabel = "FILE",
        description = "Conversation files (LoCoMo, MemoryBank, JSON Lines); default: " + Inputs.LOCOMO_DEV + ".")
    List<Path> files = new ArrayList<>();

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "8",
        description = "Passes over the conversations (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "3",
        description = "First passes left out of the median, while the JIT compiles (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--dump", paramLabel = "FILE",
        description = "Write the first pass's candidates to FILE, one per line (diff two builds' files).")
    Path dump;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public ExtractorPathBenchmark() {
        this(System.out);
    }

    /** @param out where the figures are printed */
    public ExtractorPathBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (rounds <= warmup || warmup < 0) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                "--rounds must be more than --warmup (" + rounds + " ≤ " + warmup + ")");
        }
        final List<Path> inputs = files.isEmpty() ? List.of(Inputs.resolve(null))
            : files.stream().map(Inputs::resolve).toList();
        final List<ConversationCompleted> conversations = new ArrayList<>();
        for (final Path file : inputs) {
            conversations.addAll(ConversationSources.readAll(file).getKey());
        }
        final double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        final PiiFilter pii = new PiiFilter(PiiFilter.Action.REDACT, new SimpleMeterRegistry());
        final RuleBasedExtractor extractor = new RuleBasedExtractor();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final StringBuilder output = new StringBuilder();
        final double[] cpuMs = new double[rounds];
        final double[] allocatedKb = new double[rounds];
        long candidates = 0;
        for (int r = 0; r < rounds; r++) {
            final long cpu = threads.getCurrentThreadCpuTime();
            final long bytes = threads.getCurrentThreadAllocatedBytes();
            long n = 0;
            for (final ConversationCompleted conversation : conversations) {
                final List<ExtractedMemory> extracted = extract(conversation, pii, extractor);
                n += extracted.size();
                if (r == 0) {
                    extracted.forEach(m -> output.append(m).append('\n'));
                }
            }
            candidates = n;
            cpuMs[r] = (threads.getCurrentThreadCpuTime() - cpu) / 1e6 / Math.max(1, n);
            allocatedKb[r] = (threads.getCurrentThreadAllocatedBytes() - bytes) / 1024.0 / Math.max(1, n);
            out.printf("round %d: %.4f ms CPU, %.1f KB allocated per candidate%n", r + 1, cpuMs[r], allocatedKb[r]);
        }
        if (dump != null) {
            Files.writeString(dump, output);
        }
        final Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("files", inputs.stream().map(Path::toString).toList());
        figures.put("conversations", conversations.size());
        figures.put("candidates", candidates);
        figures.put("rounds", rounds);
        figures.put("warmupRounds", warmup);
        figures.put("cpuMsPerCandidate", round(median(Arrays.copyOfRange(cpuMs, warmup, rounds))));
        figures.put("cpuMsPerCandidateByRound", Arrays.stream(cpuMs).map(ExtractorPathBenchmark::round).boxed().toList());
        figures.put("allocatedKbPerCandidate", round(median(Arrays.copyOfRange(allocatedKb, warmup, rounds))));
        figures.put("outputSha256", HexFormat.of().formatHex(
            MessageDigest.getInstance("SHA-256").digest(output.toString().getBytes(StandardCharsets.UTF_8))));
        figures.put("loadAverageAtStart", round(load));
        figures.forEach((k, v) -> out.printf("%-26s %s%n", k, v));
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /** The extractor path of {@code ExtractMemoriesProcessor} on one decoded conversation, offline, no profile. */
    static List<ExtractedMemory> extract(final ConversationCompleted conversation, final PiiFilter pii,
                                         final RuleBasedExtractor extractor) {
        final List<ExtractedMemory> found = Echoes.withoutEchoes(conversation, extractor.extract(
            pii.withoutSecrets(conversation), null, TenantPolicy.none(conversation.getTenantId())).memories());
        return found.isEmpty() ? found : pii.apply(found);
    }

    private static double median(final double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double round(final double value) {
        return Math.round(value * 10_000) / 10_000.0;
    }
}
