package dev.engram.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.consolidation.Consolidator;
import dev.engram.consolidation.MemoryLifecycle;
import dev.engram.consolidation.Observations;
import dev.engram.port.MemoryMerger;
import dev.engram.avro.SourceRef;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.llm.LlmConfig;
import dev.engram.port.Embedder;
import dev.engram.retriever.ContextBlock;
import dev.engram.scoring.HybridScorer;
import dev.engram.stack.Ingest;
import dev.engram.stack.MemoryBankSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench quality}: LoCoMo evidence recall (categories 1–4) of Engram's retrieval against three
 * baselines over the same conversation's raw turns, all in one run.
 *
 * <p><b>Engram.</b> Every session of the input is published, once per speaker, through the real
 * embedded stack (broker, rule-based extractor, MiniLM, consolidator; {@link EmbeddedStack}), exactly
 * as {@code bin/engram demo} does; once everything is processed the memories are read back from
 * {@code memory-updated} ({@link SavedMemories}) and ranked in-process with the retriever's
 * {@link HybridScorer} and default config exactly as the HTTP API ranks (recall@k: {@code rank(query, k)};
 * budgets: {@code rank(query, retrieval.max.k)} then {@link ContextBlock}, as {@code GET .../context} does; without reporting hits on
 * {@code memory-access}, so the order of questions cannot change the answers). A memory's source turns
 * are its {@link SourceRef}s mapped back to {@code dia_id}s. Budgets use the retriever's
 * {@link ContextBlock} over the ranked memories.
 *
 * <p><b>Baselines</b> over the raw turns (text as the pipeline sees it): dense (MiniLM, cosine, every
 * turn ranked), BM25 ({@link dev.engram.scoring.Bm25}; turns with a positive score), and their reciprocal-rank fusion
 * (k = 60). Tokens: the top turns joined by newlines, estimated as {@link ContextBlock#estimateTokens}.
 *
 * <p><b>Whom to ask.</b> LoCoMo's questions are in the third person. Engram is asked as the user the
 * question names ({@code <sample_id>:<speaker>}); both users, results merged by score, when it names
 * both or neither. The baselines get the same: only the named speaker's turns, or all turns. (Engram
 * only stores what a user said; a question whose evidence is the partner's turn is missed by both.)
 */
@Command(name = "quality", mixinStandardHelpOptions = true,
    description = "LoCoMo evidence recall of Engram vs dense, BM25 and RRF baselines over raw turns.")
public final class QualityBenchmark implements Callable<Integer> {


    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
        description = "LoCoMo JSON (default: " + Inputs.LOCOMO_DEV + "), or with --dataset memorybank a MemoryBank "
            + "history (memory_bank_<lang>_*.json).")
    Path input;

    /** The benchmark datasets. */
    enum Dataset { locomo, memorybank }

    @Option(names = "--dataset", paramLabel = "NAME", defaultValue = "locomo",
        description = "locomo (default) or memorybank (side-aware recall; needs --evidence).")
    Dataset dataset = Dataset.locomo;

    @Option(names = "--evidence", paramLabel = "FILE",
        description = "MemoryBank evidence labels (evidence_<lang>_*.jsonl).")
    Path evidence;

    @Option(names = "--questions", paramLabel = "FILE",
        description = "MemoryBank probing questions (default: probing_questions_<lang>_*.jsonl next to FILE).")
    Path questions;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
        description = "Retriever config override for Engram's ranking (repeatable), e.g. --set retrieval.weight.recency=0.1.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--memories", paramLabel = "FILE",
        description = "Reuse the memories saved in FILE by an earlier run (written there when FILE does not exist yet, "
            + "or always after an --llm run), to compare ranking settings without re-ingesting.")
    Path memoriesFile;

    @Option(names = "--reembed", paramLabel = "MODEL",
        description = "Re-embed the memories' content with MODEL before ranking, as bin/engram reembed --model MODEL "
            + "gives the read path, and rank with embedding.model=MODEL.")
    String reembed;

    @Option(names = "--misses", paramLabel = "FILE",
        description = "LoCoMo: write every question whose evidence Engram's top 10 misses to FILE (JSON Lines: the "
            + "question, its evidence turns, found or not, the memories citing each, and the top 10), to see what the "
            + "ranking fails to reach.")
    Path missesFile;

    @Option(names = "--regroup",
        description = "With --memories: derive the observations and topic lists again from the saved statements with "
            + "this build's observation pass (as the consolidator does: a function of the statements), to measure a "
            + "change of that pass without re-ingesting.")
    boolean regroup;

    @Option(names = "--no-baselines",
        description = "LoCoMo: rank Engram only, not the raw-turn baselines (dense, BM25, RRF): a quicker run.")
    boolean noBaselines;

    @Option(names = "--calibrate",
        description = "Also fit the relevance calibration (retrieval.relevance.calibration) on this input's memories "
            + "and print it with its reliability table (JSON key relevanceCalibration).")
    boolean calibrate;

    @Option(names = "--llm", paramLabel = "replay",
        description = "Extract with the LLM path: 'replay' answers the real LLM extractor and judge over HTTP with "
            + "LoCoMo's recorded LLM facts and session summaries (LoCoMoReplay).")
    String llm;

    @Option(names = "--llm-episodes", paramLabel = "true|false", arity = "1",
        description = "With --llm: also store the offline episodes (llm.extraction.episodes; default: its default).")
    Boolean llmEpisodes;

    @Option(names = "--prompt-price", paramLabel = "USD", defaultValue = "0.15",
        description = "With --llm: USD per million prompt tokens for costPer1kConversations (default: ${DEFAULT-VALUE}, "
            + "gpt-4o-mini's list price).")
    double promptPrice;

    @Option(names = "--completion-price", paramLabel = "USD", defaultValue = "0.60",
        description = "With --llm: USD per million completion tokens (default: ${DEFAULT-VALUE}).")
    double completionPrice;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public QualityBenchmark() {
        this(System.out);
    }

    /** @param out where the tables are printed */
    public QualityBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        // an invalid --set is refused now, not after minutes of ingest (the config's validators, then the scorer's
        // own checks: calibration text, all-zero weights)
        final EngramConfig checked = EngramConfig.plain().with(overrides);
        new HybridScorer(ScriptRoutedEmbedder.fromConfig(checked), checked);
        if (dataset == Dataset.memorybank) {
            return memoryBank();
        }
        final Path file = Inputs.resolve(input);
        final List<LoCoMoQa.Sample> samples = LoCoMoQa.read(file);
        out.printf("bench quality — %s: %d samples, %d questions (categories 1-4)%n", file, samples.size(),
            samples.stream().mapToInt(s -> s.questions().size()).sum());
        final long start = System.nanoTime();
        Map<String, Object> llmFigures = null;
        final Map<String, List<Memory>> memories;
        if (llm != null) {
            if (!"replay".equals(llm)) {
                throw new IllegalArgumentException("--llm: only 'replay' is supported, not '" + llm + "'");
            }
            final LlmReplaySource.Result replay = new LlmReplaySource(promptPrice, completionPrice,
                llmEpisodes != null ? llmEpisodes : EngramConfig.plain().getBoolean(LlmConfig.LLM_EPISODES), out)
                .run(file);
            memories = replay.memories();
            llmFigures = replay.figures();
            if (memoriesFile != null) {
                SavedMemories.save(memories, memoriesFile);
            }
        } else {
            memories = regrouped(reembedded(ingest(file)));
        }
        out.printf("Ingested through the embedded stack in %.1f s: %d memories for %d users%n",
            (System.nanoTime() - start) / 1e9, memories.values().stream().mapToInt(List::size).sum(), memories.size());
        final EngramConfig config = EngramConfig.plain().with(overrides);
        final Embedder embedder = ScriptRoutedEmbedder.fromConfig(config);
        final List<Map<String, Object>> misses = new ArrayList<>();
        final Map<String, Object> figures = LoCoMoRecall.evaluate(samples, memories, embedder, config, misses::add,
            !noBaselines);
        if (missesFile != null) {
            final StringBuilder lines = new StringBuilder();
            for (final Map<String, Object> miss : misses) {
                lines.append(BenchReport.toJsonLine(miss)).append('\n');
            }
            Files.writeString(missesFile, lines);
            out.printf("%d questions with missed evidence at 10 written to %s%n", misses.size(), missesFile);
        }
        if (!overrides.isEmpty()) {
            out.println("Engram ranked with " + overrides);
        }
        if (llmFigures != null) {
            figures.put("llm", llmFigures);
        }
        RecallTables.print(out, figures, "LoCoMo evidence recall, categories 1-4", Map.of());
        if (calibrate) {
            final HybridScorer scorer = new HybridScorer(embedder, config);
            final List<RelevanceCalibration.Probe> probes = RelevanceCalibration.locomo(samples, memories);
            printCalibration(figures, RelevanceCalibration.fit(probes, scorer),
                RelevanceCalibration.fitKindPrior(probes, scorer, kindPriorPool(config)));
        }
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    private int memoryBank() throws Exception {
        if (input == null || evidence == null) {
            throw new IllegalArgumentException("--dataset memorybank needs FILE (memory_bank_<lang>_*.json) and --evidence FILE");
        }
        final Path file = input.toAbsolutePath().normalize();
        final Path asked = questions != null ? questions
            : file.resolveSibling(file.getFileName().toString().replace("memory_bank_", "probing_questions_")
                .replaceAll("\\.json$", ".jsonl"));
        for (final Path p : List.of(file, evidence, asked)) {
            if (!Files.isReadable(p)) {
                throw new IllegalArgumentException("Cannot read " + p);
            }
        }
        final List<MemoryBankQuality.Question> qs = MemoryBankQuality.questions(asked, evidence);
        out.printf("bench quality — %s: %d questions with evidence (%s)%n", file, qs.size(), evidence);
        final long start = System.nanoTime();
        final Map<String, List<Memory>> memories = ingest(file);
        out.printf("Ingested through the embedded stack in %.1f s: %d memories for %d users%n",
            (System.nanoTime() - start) / 1e9, memories.values().stream().mapToInt(List::size).sum(), memories.size());
        final String tenant = memories.values().stream().flatMap(List::stream).map(Memory::getTenantId).findFirst()
            .orElse(MemoryBankSource.TENANT_PREFIX + "en");
        final EngramConfig config = EngramConfig.plain().with(overrides);
        final Embedder embedder = ScriptRoutedEmbedder.fromConfig(config);
        final Map<String, Object> figures = MemoryBankQuality.evaluate(tenant, MemoryBankQuality.pairs(file), qs,
            memories, embedder, config);
        RecallTables.print(out, figures, "MemoryBank side-aware evidence recall (" + tenant + ")",
            Map.of("1", "the user's own words", "2", "needs the assistant's reply"));
        if (calibrate) {
            final HybridScorer scorer = new HybridScorer(embedder, config);
            final List<RelevanceCalibration.Probe> probes = RelevanceCalibration.memoryBank(tenant, qs, memories);
            printCalibration(figures, RelevanceCalibration.fit(probes, scorer),
                RelevanceCalibration.fitKindPrior(probes, scorer, kindPriorPool(config)));
        }
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /**
     * The memories with their observations and topic lists derived again by this build's observation pass
     * ({@code --regroup}; unchanged without it): per user, {@link Observations#review} over every memory, its
     * changes applied (a removal drops the memory). An observation is a function of the statements, so this gives
     * what an ingest with this build's pass would end with for the same statements.
     */
    private Map<String, List<Memory>> regrouped(final Map<String, List<Memory>> memories) {
        if (!regroup) {
            return memories;
        }
        final long start = System.nanoTime();
        final EngramConfig config = EngramConfig.plain().with(overrides);
        final Observations pass = new MemoryLifecycle(MemoryLifecycle.Settings.from(config), MemoryMerger.CONCATENATE,
            ScriptRoutedEmbedder.fromConfig(config)).observations();
        final Map<String, List<Memory>> next = new LinkedHashMap<>();
        int changed = 0;
        for (final Map.Entry<String, List<Memory>> user : memories.entrySet()) {
            final Map<String, Memory> byId = new LinkedHashMap<>();
            user.getValue().forEach(m -> byId.put(m.getMemoryId(), m));
            final java.time.Instant now = user.getValue().stream().map(Memory::getUpdatedAt)
                .max(java.util.Comparator.naturalOrder()).orElse(java.time.Instant.EPOCH);
            for (final Consolidator.Change change : pass.review(user.getValue(), now, Observations.CAUSE_REGROUP)) {
                changed++;
                if (change.after().getStatus() == MemoryStatus.DELETED) {
                    byId.remove(change.after().getMemoryId());
                } else {
                    byId.put(change.after().getMemoryId(), change.after());
                }
            }
            next.put(user.getKey(), List.copyOf(byId.values()));
        }
        out.printf("Regrouped with this build's observation pass in %.1f s: %d observations written or removed%n",
            (System.nanoTime() - start) / 1e9, changed);
        return next;
    }

    /** The memories as {@code --reembed} leaves them (unchanged without it); the ranking then uses that model. */
    private Map<String, List<Memory>> reembedded(final Map<String, List<Memory>> memories) {
        if (reembed == null) {
            return memories;
        }
        final long start = System.nanoTime();
        final Map<String, List<Memory>> next = SavedMemories.reembed(memories, reembed);
        overrides.put(CoreConfig.EMBEDDING_MODEL, reembed);
        out.printf("Re-embedded with %s in %.1f s%n", reembed, (System.nanoTime() - start) / 1e9);
        return next;
    }

    private void printCalibration(final Map<String, Object> figures, final Map<String, Object> fit,
                                  final Map<String, Object> kinds) {
        out.println();
        out.println("Relevance calibration (set retrieval.relevance.calibration=" + fit.get("coefficients") + "): " + fit);
        out.println("Kind prior, fitted on " + kinds.get("pairs") + " hits (set retrieval.relevance.kind.prior="
            + kinds.get("kindPrior") + "): " + kinds);
        figures.put("relevanceCalibration", fit);
        figures.put("kindPriorFit", kinds);
    }

    /** @return the hits a list of 10 re-orders with the kind prior: overfetch·10 ({@link HybridScorer#forList}) */
    private static int kindPriorPool(final EngramConfig config) {
        return 10 * config.getInt(DomainConfig.OVERFETCH_FACTOR);
    }

    /** Publishes a file through the embedded stack and reads the memories back (or loads --memories). */
    private Map<String, List<Memory>> ingest(final Path file) throws Exception {
        if (memoriesFile != null && Files.exists(memoriesFile)) {
            out.printf("Memories loaded from %s (not re-ingested)%n", memoriesFile);
            return SavedMemories.load(memoriesFile);
        }
        try (EmbeddedStack stack = EmbeddedStack.start("quality")) {
            try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of())) {
                ingest.publish(file, null);
                if (ingest.failed() > 0) {
                    throw new IllegalStateException("Could not publish: " + ingest.errors());
                }
            }
            stack.awaitSettled(Duration.ofMinutes(3));
            final Map<String, List<Memory>> memories = SavedMemories.read(stack.bootstrapServers());
            if (memoriesFile != null) {
                SavedMemories.save(memories, memoriesFile);
            }
            return memories;
        }
    }
}
