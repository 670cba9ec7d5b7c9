package dev.engram.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.CommandKind;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.Message;
import dev.engram.bench.ConsistencyHistories.Event;
import dev.engram.bench.ConsistencyHistories.History;
import dev.engram.bench.ConsistencyHistories.Line;
import dev.engram.bench.ConsistencyHistories.Question;
import dev.engram.core.UserKey;
import dev.engram.llm.LlmConfig;
import dev.engram.llm.StubChatServer;
import dev.engram.retriever.Corrections;
import dev.engram.scoring.Vectors;
import dev.engram.stack.Ingest;
import dev.engram.stack.MemoryState;
import dev.engram.stack.TopicScan;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench consistency}: whether the memories Engram serves stay true after knowledge updates. Runs Engram's
 * own scripted user histories ({@link ConsistencyHistories}: moves, job and role changes, diet and preference
 * reversals, relationships, pets, corrections and deletions through the API's commands, assistant echoes right and
 * wrong, acronyms restated, compound sentences, other people's facts, negations, a Chinese move, and a churn
 * history of 10 facts each restated in 50 conversations over 50 days) through the real embedded stack
 * ({@link EmbeddedStack}: broker, rule-based extractor, embedder, consolidator, retriever), then asks each history's
 * questions of the retriever's {@code GET .../context} (with {@code recordAccess=false}) at 256 and 512 tokens. With
 * {@code --llm replay} it does it all again on a second stack whose extractor and judge are the LLM ones, against a
 * local stub model ({@link ConsistencyReplay}); those figures are the JSON's {@code llm} block.
 *
 * <p><b>Order.</b> A user's conversations are published, the pipeline settles, then the user's command (CORRECT
 * or DELETE, built as {@code PUT}/{@code DELETE .../memories/{id}} builds it, {@link Corrections}, with the
 * script's event time as {@code issuedAt}) goes to {@code memory-commands} on the memory the script names (the
 * user's ACTIVE memory of that key, or whose content contains the text, read back from {@code memory-updated}); and
 * so on. Users run side by side; every time is the script's, so a run is replay-deterministic.
 *
 * <p><b>Figures</b> (JSON keys):
 * <ul>
 *   <li>{@code currentInContext@256}, {@code currentInContext@512}: share of the questions with a current value
 *       whose context block holds it on a line not told as past ({@link ConsistencyScoring#holdsAsCurrent});</li>
 *   <li>{@code staleLeak} (512 tokens; {@code staleLeak@256}): share of the questions whose block states an
 *       outdated (superseded, corrected, deleted or never-said) value as current ({@link ConsistencyScoring#staleLine});
 *       {@code staleLeakInFacts}: of those, the share where the line is in "Known facts about the user";</li>
 *   <li>{@code echoLeak}: share of the questions whose block (512) holds a memory citing an assistant message that
 *       restates the user (marked {@code echo} in the script);</li>
 *   <li>{@code conflictingActive}: fact keys of a user with two or more ACTIVE memories at the end;</li>
 *   <li>{@code updatesPerConversation} ({@code memory-updated} events of the churn user per conversation of it) and
 *       {@code idsPerFact} (per churn fact: the distinct ids that ever held it as a fact, a SEMANTIC or PROCEDURAL
 *       memory naming its value, observations aside; a fact the extractor keeps only in episodes: its ACTIVE
 *       episodes at the end; {@code idsEverPerFact}: every id that ever named it, episodes included).</li>
 * </ul>
 */
@Command(name = "consistency", mixinStandardHelpOptions = true,
    description = "Scripted histories with knowledge updates: current value, stale and echo leaks in the context block.")
public final class ConsistencyBenchmark implements Callable<Integer> {

    /** The model name of {@code --llm replay}, recorded on every candidate. */
    static final String REPLAY_MODEL = "consistency-replay";
    /** Tenant of every history's user. */
    static final String TENANT = "bench";
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int[] BUDGETS = {256, 512};

    @Option(names = "--histories", paramLabel = "FILE",
        description = "Histories of the same shape as the shipped ones (default: the bench's consistency-histories.json).")
    Path histories;

    @Option(names = "--llm", paramLabel = "replay",
        description = "Also run the histories through the LLM path (LLM extractor and judge) against a local stub model "
            + "that answers with the rule-based extractor's facts and the histories' labelled model answers; figures "
            + "under \"llm\".")
    String llm;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public ConsistencyBenchmark() {
        this(System.out);
    }

    /** @param out where the tables are printed */
    public ConsistencyBenchmark(final PrintStream out) {
        this.out = out;
    }

    /** What one question got. */
    record Answer(History history, Question question, Map<Integer, String> blocks, Map<Integer, List<String>> ids) {
    }

    @Override
    public Integer call() throws Exception {
        final List<History> all = ConsistencyHistories.load(histories);
        out.printf("bench consistency — %d histories (%d conversations, %d commands)%n", all.size(),
            all.stream().mapToLong(h -> h.events().stream().filter(e -> !e.isCommand()).count()).sum(),
            all.stream().mapToLong(h -> h.events().stream().filter(Event::isCommand).count()).sum());
        if (llm != null && !"replay".equals(llm)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                "--llm: only 'replay' is supported, not '" + llm + "'");
        }
        final long started = System.nanoTime();
        final Map<String, Object> figures;
        try (EmbeddedStack stack = EmbeddedStack.start("consistency")) {
            figures = measure(stack, all);
        }
        figures.put("seconds", BenchReport.round((System.nanoTime() - started) / 1e9, 1));
        figures.put("loadAverage", BenchReport.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
        print(figures);
        if (llm != null) {
            final long llmStarted = System.nanoTime();
            final ConsistencyReplay model = new ConsistencyReplay(all);
            final Map<String, Object> llmFigures;
            try (StubChatServer server = StubChatServer.start(8).responder(model);
                 EmbeddedStack stack = EmbeddedStack.start("consistency-llm", Map.of(
                     LlmConfig.LLM_BASE_URL, server.baseUrl(), LlmConfig.LLM_MODEL, REPLAY_MODEL))) {
                llmFigures = measure(stack, all);
            }
            llmFigures.put("model", REPLAY_MODEL);
            llmFigures.put("calls", model.stats());
            llmFigures.put("seconds", BenchReport.round((System.nanoTime() - llmStarted) / 1e9, 1));
            llmFigures.put("loadAverage",
                BenchReport.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
            out.println();
            out.println("LLM path (--llm replay, " + REPLAY_MODEL + "):");
            print(llmFigures);
            figures.put("llm", llmFigures);
        }
        BenchReport.writeJson(json.file(), figures, out);
        return 0;
    }

    /** Publishes every history on the stack, asks every question, and scores the answers and the memory log. */
    private Map<String, Object> measure(final EmbeddedStack stack, final List<History> all) throws Exception {
        stack.apps().awaitRetrieverReady(Duration.ofMinutes(2));
        run(stack, all);
        final List<Answer> answers = ask(stack, all);
        final List<MemoryUpdated> events = new ArrayList<>();
        final var decoder = Topic.MEMORY_UPDATED.valueDeserializer(stack.config());
        if (!TopicScan.toEnd(TopicScan.client(stack.bootstrapServers()), Topic.MEMORY_UPDATED.name(), null,
            Duration.ofMinutes(2), r -> events.add(decoder.deserialize(r.topic(), r.headers(), r.value())))) {
            throw new IllegalStateException("memory-updated not read to its end");
        }
        return ConsistencyFigures.figures(all, answers, events);
    }

    /** Publishes every history: each user's conversations up to its next command, settle, the commands, and so on. */
    private void run(final EmbeddedStack stack, final List<History> all) throws Exception {
        final Map<String, Integer> next = new HashMap<>();
        final Map<String, Object> producerProps = new HashMap<>(TopicScan.client(stack.bootstrapServers()));
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (Ingest ingest = new Ingest(stack.bootstrapServers(), Map.of());
             KafkaProducer<String, MemoryCommand> commands = new KafkaProducer<>(producerProps,
                 Topic.MEMORY_COMMANDS.keySerializer(), Topic.MEMORY_COMMANDS.valueSerializer(stack.config()))) {
            boolean more = true;
            while (more) {
                more = false;
                final List<History> waiting = new ArrayList<>();
                for (final History h : all) {
                    int i = next.getOrDefault(h.id(), 0);
                    while (i < h.events().size() && !h.events().get(i).isCommand()) {
                        ingest.send(conversation(h, i));
                        i++;
                    }
                    next.put(h.id(), i);
                    if (i < h.events().size()) {
                        waiting.add(h);
                    }
                }
                ingest.flush();
                if (ingest.failed() > 0) {
                    throw new IllegalStateException("Could not publish: " + ingest.errors());
                }
                stack.awaitSettled(Duration.ofMinutes(3));
                if (waiting.isEmpty()) {
                    break;
                }
                final Map<String, List<Memory>> state = MemoryState.read(TopicScan.client(stack.bootstrapServers()),
                    null, Duration.ofMinutes(2), Topic.MEMORY_UPDATED.valueDeserializer(stack.config())).memories();
                for (final History h : waiting) {
                    final int i = next.get(h.id());
                    final UserKey user = new UserKey(TENANT, h.userId());
                    final MemoryCommand command = command(stack, h.events().get(i), user,
                        state.getOrDefault(user.wire(), List.of()));
                    if (command != null) {
                        commands.send(new ProducerRecord<>(Topic.MEMORY_COMMANDS.name(), null,
                            command.getIssuedAt().toEpochMilli(), user.wire(), command)).get();
                    }
                    next.put(h.id(), i + 1);
                    more = true;
                }
                stack.awaitSettled(Duration.ofMinutes(3));
            }
        }
    }

    /** @return the i-th event of a history as a conversation */
    static ConversationCompleted conversation(final History h, final int i) {
        final Event e = h.events().get(i);
        final List<Message> messages = new ArrayList<>();
        for (int m = 0; m < e.messages().size(); m++) {
            final Line line = e.messages().get(m);
            messages.add(Message.newBuilder().setIndex(m).setRole(line.role()).setContent(line.text())
                .setTimestamp(e.at().plusSeconds(30L * m)).build());
        }
        return ConversationCompleted.newBuilder().setTenantId(TENANT).setUserId(h.userId())
            .setConversationId(conversationId(h, i)).setMessages(messages)
            .setCompletedAt(e.at().plusSeconds(30L * messages.size())).build();
    }

    static String conversationId(final History h, final int i) {
        return h.id() + "-c" + i;
    }

    /**
     * The command the script's event names, as the API would issue it; null (and a note) when the memory it names is
     * not there, or the API would refuse it.
     */
    private MemoryCommand command(final EmbeddedStack stack, final Event e, final UserKey user, final List<Memory> memories) {
        final Memory target = memories.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE)
            .filter(m -> e.key() != null ? e.key().equals(m.getKey()) : m.getContent().contains(e.contains()))
            .findFirst().orElse(null);
        if (target == null) {
            out.printf("  %s: no ACTIVE memory with %s; the %s is not issued%n", user.userId(),
                e.key() != null ? "key " + e.key() : "\"" + e.contains() + "\"", e.command());
            return null;
        }
        final MemoryCommand.Builder command = MemoryCommand.newBuilder()
            .setCommandId(UUID.nameUUIDFromBytes((user.wire() + e.at() + e.command()).getBytes(StandardCharsets.UTF_8)).toString())
            .setTenantId(user.tenantId()).setUserId(user.userId()).setMemoryId(target.getMemoryId())
            .setContent(null).setValue(null).setMemoryEnabled(null).setActor("bench-consistency").setIssuedAt(e.at());
        if ("delete".equals(e.command())) {
            return command.setKind(CommandKind.DELETE).build();
        }
        final Corrections.Correction correction;
        try {
            correction = Corrections.resolve(target, e.content(), e.value());
        } catch (RuntimeException refused) {
            out.printf("  %s: the API refuses the correction: %s%n", user.userId(), refused.getMessage());
            return null;
        }
        command.setKind(CommandKind.CORRECT).setContent(correction.content()).setValue(correction.value());
        if (correction.content() != null) {
            final var embedder = stack.apps().retrieverEmbedder();
            command.setEmbedding(Vectors.toList(embedder.embed(correction.content())))
                .setEmbeddingModel(embedder.modelFor(correction.content()));
        }
        return command.build();
    }

    /** Asks every question of the retriever's context route at each budget. */
    private static List<Answer> ask(final EmbeddedStack stack, final List<History> all) throws Exception {
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        final List<Answer> answers = new ArrayList<>();
        for (final History h : all) {
            for (final Question q : h.questions()) {
                final Map<Integer, String> blocks = new LinkedHashMap<>();
                final Map<Integer, List<String>> ids = new LinkedHashMap<>();
                for (final int budget : BUDGETS) {
                    final URI uri = URI.create(stack.apps().retrieverUrl() + "/v1/tenants/" + TENANT + "/users/"
                        + h.userId() + "/context?recordAccess=false&budgetTokens=" + budget + "&message="
                        + URLEncoder.encode(q.ask(), StandardCharsets.UTF_8));
                    final HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("GET " + uri + " answered " + response.statusCode() + ": "
                            + response.body());
                    }
                    final JsonNode body = JSON.readTree(response.body());
                    blocks.put(budget, body.path("context").asText(""));
                    final List<String> included = new ArrayList<>();
                    body.path("memoryIds").forEach(n -> included.add(n.asText()));
                    ids.put(budget, included);
                }
                answers.add(new Answer(h, q, blocks, ids));
            }
        }
        return answers;
    }

    private void print(final Map<String, Object> f) {
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("figure", "value"));
        for (final String key : List.of("histories", "questions", "currentInContext@256", "currentInContext@512",
            "staleLeak", "staleLeak@256", "staleLeakInFacts", "echoLeak", "conflictingActive", "updatesPerConversation",
            "idsPerFact", "seconds", "loadAverage")) {
            rows.add(List.of(key, String.valueOf(f.get(key))));
        }
        out.println();
        BenchReport.table(out, rows);
        @SuppressWarnings("unchecked")
        final List<Map<String, Object>> perQuestion = (List<Map<String, Object>>) f.get("perQuestion");
        for (final Map<String, Object> q : perQuestion) {
            if (q.containsKey("currentMissing") || q.containsKey("staleLine") || q.containsKey("echoItems")) {
                out.printf("%s \"%s\":%s%s%s%n", q.get("history"), q.get("ask"),
                    q.containsKey("currentMissing") ? " current value missing;" : "",
                    q.containsKey("staleLine") ? " stale: " + q.get("staleLine") + ";" : "",
                    q.containsKey("echoItems") ? " echo items: " + q.get("echoItems") : "");
            }
        }
        out.println("churn: " + f.get("churn"));
    }
}
