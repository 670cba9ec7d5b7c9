package dev.engram.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.engram.avro.ArchiveReason;
import dev.engram.avro.Memory;
import dev.engram.consolidation.Observations;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.llm.LlmConfig;
import dev.engram.llm.StubChatServer;
import dev.engram.stack.DemoSummary;
import dev.engram.stack.Ingest;

/**
 * The memories of {@code bench quality --llm replay}: the input published through the embedded stack
 * with the LLM extractor and the LLM judge pointed at a local {@link StubChatServer} that answers with
 * {@link LoCoMoReplay} (LoCoMo's recorded LLM facts and session summaries; a deterministic judge and
 * merge, {@code llm.merge.enabled=true}). Everything between the server and the memories is the production path over HTTP.
 *
 * <p>Besides the memories it gives the {@code llm} block of the benchmark's JSON: what was stored
 * ({@code stores}), the run's {@code conversations}, {@code seconds} (publish → everything processed)
 * and {@code conversationsPerSecond}; calls and tokens by kind (extraction, judge, merge), prompt and
 * completion tokens per conversation, {@code costPer1kConversations} in USD at the given prices per
 * million tokens ((prompt × prompt price + completion × completion price) / 10⁶ × 1000 / conversations);
 * the consolidation counts from {@code memory-updated} (candidates, created, reinforced, superseded,
 * merged, contradictions, judge calls and their verdicts, dead letters); {@code observations} (ACTIVE observations at the
 * end) and {@code observationsWritten} (their CREATED events, rewrites included; {@link Observations}); and a sample of
 * reinforced and superseded memories.
 */
final class LlmReplaySource {

    /** The model name sent to the replay server and recorded on every candidate. */
    static final String MODEL = "locomo-replay";
    private static final int SAMPLE = 3;

    private final double promptPrice;
    private final double completionPrice;
    private final boolean episodes;
    private final PrintStream out;

    /**
     * @param promptPrice USD per million prompt tokens
     * @param completionPrice USD per million completion tokens
     * @param episodes also store the offline episodes ({@code llm.extraction.episodes})
     * @param out where progress goes
     */
    LlmReplaySource(final double promptPrice, final double completionPrice, final boolean episodes,
                    final PrintStream out) {
        this.promptPrice = promptPrice;
        this.completionPrice = completionPrice;
        this.episodes = episodes;
        this.out = out;
    }

    /** The memories and the {@code llm} figures of one replay run. */
    record Result(Map<String, List<Memory>> memories, Map<String, Object> figures) {
    }

    /**
     * @param file the LoCoMo file (published, and replayed)
     * @return the memories by user and the {@code llm} figures
     * @throws Exception if the stack fails or conversations cannot be published
     */
    Result run(final Path file) throws Exception {
        return run(file, "quality-llm");
    }

    /**
     * @param file the LoCoMo file
     * @param stackName the embedded stack's name (its run directory, {@link EmbeddedStack#start(String, Map)})
     * @return the memories by user and the {@code llm} figures
     * @throws Exception if the stack fails or conversations cannot be published
     */
    Result run(final Path file, final String stackName) throws Exception {
        final LoCoMoReplay replay = LoCoMoReplay.load(file);
        final int concurrency = EngramConfig.defaults().getInt(LlmConfig.LLM_MAX_CONCURRENCY);
        try (StubChatServer server = StubChatServer.start(Math.max(8, concurrency * 2)).responder(replay);
             EmbeddedStack stack = EmbeddedStack.start(stackName, Map.of(
                 LlmConfig.LLM_BASE_URL, server.baseUrl(),
                 LlmConfig.LLM_MODEL, MODEL,
                 LlmConfig.LLM_EPISODES, episodes,
                 LlmConfig.LLM_MERGE, true))) {
            final long start = System.nanoTime();
            try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of())) {
                ingest.publish(file, null);
                if (ingest.failed() > 0) {
                    throw new IllegalStateException("Could not publish: " + ingest.errors());
                }
            }
            stack.awaitSettled(Duration.ofMinutes(3));
            final double seconds = (System.nanoTime() - start) / 1e9;
            final Map<String, List<Memory>> memories = SavedMemories.read(stack.bootstrapServers());
            final DemoSummary summary = stack.monitor().summary(seconds);
            final Map<String, Object> figures = figures(replay, summary, seconds, memories,
                stack.monitor().observationsWritten());
            out.printf("LLM replay: %d conversations in %.1f s (%.1f/s), %d extraction calls, %d judge calls, %d merge calls%n",
                summary.conversations(), seconds, summary.conversations() / seconds,
                replay.stats().get("extraction").calls(), replay.stats().get("judge").calls(),
                replay.stats().get("merge").calls());
            return new Result(memories, figures);
        }
    }

    private Map<String, Object> figures(final LoCoMoReplay replay, final DemoSummary summary, final double seconds,
                                        final Map<String, List<Memory>> memories, final long observationsWritten) {
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("model", MODEL);
        f.put("stores", episodes ? "llm facts + summaries + offline episodes" : "llm facts + summaries");
        final long conversations = summary.conversations();
        f.put("conversations", conversations);
        f.put("seconds", BenchReport.round(seconds, 1));
        f.put("conversationsPerSecond", BenchReport.round(conversations / seconds, 2));
        long prompt = 0;
        long completion = 0;
        final Map<String, Object> calls = new LinkedHashMap<>();
        for (final Map.Entry<String, LoCoMoReplay.Tally> e : replay.stats().entrySet()) {
            calls.put(e.getKey(), Map.of("calls", e.getValue().calls(), "promptTokens", e.getValue().promptTokens(),
                "completionTokens", e.getValue().completionTokens()));
            prompt += e.getValue().promptTokens();
            completion += e.getValue().completionTokens();
        }
        f.put("calls", calls);
        f.put("promptTokens", prompt);
        f.put("completionTokens", completion);
        final double n = Math.max(1, conversations);
        f.put("promptTokensPerConversation", BenchReport.round(prompt / n, 1));
        f.put("completionTokensPerConversation", BenchReport.round(completion / n, 1));
        f.put("pricePerMillionPromptTokens", promptPrice);
        f.put("pricePerMillionCompletionTokens", completionPrice);
        f.put("costPer1kConversations", BenchReport.round((prompt * promptPrice + completion * completionPrice) / 1e6
            * 1000 / n, 4));
        f.put("candidates", summary.candidates());
        f.put("created", summary.memoriesCreated());
        f.put("reinforced", summary.memoriesReinforced());
        f.put("superseded", summary.memoriesSuperseded());
        f.put("merged", summary.memoriesMerged());
        f.put("observations", memories.values().stream().flatMap(List::stream)
            .filter(m -> m.getStatus() == MemoryStatus.ACTIVE && Observations.isObservation(m)).count());
        f.put("observationsWritten", observationsWritten);
        f.put("contradictions", summary.contradictions());
        f.put("judgeCalls", replay.stats().get("judge").calls());
        f.put("judgeVerdicts", replay.verdicts());
        f.put("mergeCalls", replay.stats().get("merge").calls());
        f.put("deadLetters", summary.deadLetters());
        f.put("answersCutAtMaxTokens", replay.truncated());
        f.put("requestsWithoutRecording", replay.unmatched());
        f.put("sample", sample(memories));
        return f;
    }

    /**
     * @return up to {@value #SAMPLE} ACTIVE memories (not observations) reinforced from several sessions (content, reinforcements,
     *     the sessions), and up to {@value #SAMPLE} superseded ones (old content → the content that replaced it)
     */
    static Map<String, Object> sample(final Map<String, List<Memory>> memories) {
        final List<Memory> all = new ArrayList<>();
        memories.values().forEach(all::addAll);
        all.sort(Comparator.comparing(Memory::getUserId).thenComparing(Memory::getMemoryId));
        final Map<String, Memory> byId = new HashMap<>();
        all.forEach(m -> byId.put(m.getMemoryId(), m));
        final List<Map<String, Object>> reinforced = new ArrayList<>();
        // an observation cites several sessions because it groups statements, not because they reinforced it
        all.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE && !Observations.isObservation(m)
                && sessions(m).size() > 1)
            .sorted(Comparator.comparingInt((Memory m) -> -sessions(m).size()).thenComparing(Memory::getMemoryId))
            .limit(SAMPLE).forEach(m -> reinforced.add(Map.of("user", m.getUserId(), "content", m.getContent(),
                "reinforcementCount", m.getReinforcementCount(), "sessions", sessions(m))));
        final List<Map<String, Object>> superseded = new ArrayList<>();
        all.stream().filter(m -> m.getArchiveReason() == ArchiveReason.SUPERSEDED && byId.containsKey(m.getSupersededBy()))
            .limit(SAMPLE).forEach(m -> superseded.add(Map.of("user", m.getUserId(), "old", m.getContent(),
                "new", byId.get(m.getSupersededBy()).getContent(), "key", String.valueOf(m.getKey()))));
        return Map.of("reinforcedAcrossSessions", reinforced, "superseded", superseded);
    }

    private static List<String> sessions(final Memory m) {
        final TreeSet<String> out = new TreeSet<>();
        for (final SourceRef ref : m.getSources()) {
            out.add(ref.getConversationId().substring(ref.getConversationId().indexOf(':') + 1));
        }
        return List.copyOf(out);
    }
}
