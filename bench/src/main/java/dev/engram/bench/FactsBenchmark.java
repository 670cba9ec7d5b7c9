package dev.engram.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.rules.RuleBasedExtractor;
import dev.engram.llm.ChatCompletionsClient;
import dev.engram.llm.LlmMemoryExtractor;
import dev.engram.llm.LlmSettings;
import dev.engram.llm.StubChatServer;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench facts}: precision and recall of (key, value) on the project's labelled fact-extraction set
 * ({@link FactSet}, scored by {@link FactScore}) for two extractors:
 * <ul>
 *   <li>{@code offline}: the rule-based extractor, in process, as the extractor app runs it;</li>
 *   <li>{@code llm}: the LLM path, the real {@link LlmMemoryExtractor} over HTTP against a local
 *       {@link StubChatServer} that answers with the turn's labelled facts ({@link LabelledFactsResponder}): it
 *       measures the parsing and validation path, not a model.</li>
 * </ul>
 * Each turn is one conversation of one user message. Prints one table (overall, by split and language), the offline
 * extractor's figures by kind and its first misses; {@code --json} writes {@code set}, {@code offline} and {@code llm}
 * (each: turns, labelled, extracted, truePositives, precision, recall, f1, otherPeople, categoryAgreement, groups,
 * misses).
 */
@Command(name = "facts", mixinStandardHelpOptions = true,
    description = "Precision and recall of (key, value) facts on the labelled fact set, offline and LLM path (stub).")
public final class FactsBenchmark implements Callable<Integer> {

    private static final Instant SAID = Instant.parse("2026-01-05T10:00:00Z");

    @Option(names = "--input", paramLabel = "FILE",
        description = "A labelled set in the same JSON Lines format (default: the shipped set, " + FactSet.RESOURCE + ").")
    Path input;

    @Option(names = "--misses", paramLabel = "N", defaultValue = "15",
        description = "Print the first N turns the offline extractor got wrong (default: ${DEFAULT-VALUE}).")
    int misses;

    @Option(names = "--llm", paramLabel = "stub|none", defaultValue = "stub",
        description = "The LLM path: 'stub' (default) replays the labels through the real LLM extractor over HTTP; "
            + "'none' skips it.")
    String llm;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public FactsBenchmark() {
        this(System.out);
    }

    /** @param out where the figures are printed */
    public FactsBenchmark(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (!"stub".equals(llm) && !"none".equals(llm)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                "--llm must be stub or none, not " + llm);
        }
        final List<FactSet.Sentence> set = FactSet.load(input);
        final Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("set", Map.of("file", input == null ? FactSet.RESOURCE : input.toString(), "turns", set.size(),
            "userFacts", set.stream().mapToInt(s -> s.userFacts().size()).sum()));
        final Map<String, FactScore.Result> results = new LinkedHashMap<>();
        results.put("offline", FactScore.score(set, with(new RuleBasedExtractor())));
        if ("stub".equals(llm)) {
            results.put("llm", llmStub(set));
        }
        print(results);
        results.forEach((name, r) -> figures.put(name, r.figures(Integer.MAX_VALUE)));
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    private FactScore.Result llmStub(final List<FactSet.Sentence> set) throws Exception {
        final LabelledFactsResponder responder = new LabelledFactsResponder(set);
        try (StubChatServer server = StubChatServer.start(4).responder(responder)) {
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            final LlmMemoryExtractor extractor = new LlmMemoryExtractor(
                new ChatCompletionsClient(LlmSettings.of(server.baseUrl(), "fact-set-stub"), registry, "bench-facts"),
                registry, "bench-facts");
            final FactScore.Result result = FactScore.score(set, with(extractor));
            if (responder.unmatched() > 0) {
                throw new IllegalStateException(responder.unmatched() + " requests named no turn of the set");
            }
            return result;
        }
    }

    /** @return the extractor applied to a turn as a one-message conversation */
    static Function<FactSet.Sentence, List<ExtractedMemory>> with(final MemoryExtractor extractor) {
        return s -> extractor.extract(ConversationCompleted.newBuilder().setTenantId("bench").setUserId("facts")
            .setConversationId(s.id()).setCompletedAt(SAID)
            .setMessages(List.of(new Message(0, "user", s.text(), SAID))).build(), null);
    }

    private void print(final Map<String, FactScore.Result> results) {
        out.println("bench facts — precision and recall of (key, value) on the labelled fact set");
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("extractor / group", "turns", "labelled", "extracted", "precision", "recall", "F1", "other people"));
        results.forEach((name, r) -> {
            rows.add(row(name, r.all()));
            for (final String g : List.of("split:tune", "split:held-out", "lang:en", "lang:zh")) {
                if (r.groups().containsKey(g)) {
                    rows.add(row("  " + g, r.groups().get(g)));
                }
            }
        });
        BenchReport.table(out, rows);
        final FactScore.Result offline = results.get("offline");
        out.println();
        final List<List<String>> kinds = new ArrayList<>();
        kinds.add(List.of("offline by kind", "turns", "labelled", "extracted", "precision", "recall", "F1", "other people"));
        offline.groups().forEach((g, t) -> {
            if (g.startsWith("kind:")) {
                kinds.add(row(g.substring(5), t));
            }
        });
        BenchReport.table(out, kinds);
        if (misses > 0 && !offline.misses().isEmpty()) {
            out.println();
            out.printf("offline misses (first %d of %d turns):%n", Math.min(misses, offline.misses().size()),
                offline.misses().size());
            offline.misses().stream().limit(misses).forEach(m -> out.printf("  %s [%s] %s%n      missed %s, extra %s%n",
                m.id(), m.split(), m.text(), m.missed(), m.extra()));
        }
    }

    private static List<String> row(final String label, final FactScore.Tally t) {
        final Map<String, Object> f = t.figures();
        return List.of(label, String.valueOf(f.get("turns")), String.valueOf(f.get("labelled")),
            String.valueOf(f.get("extracted")), BenchReport.num(t.precision(), 3), BenchReport.num(t.recall(), 3),
            BenchReport.num(t.f1(), 3), String.valueOf(f.get("otherPeople")));
    }
}
