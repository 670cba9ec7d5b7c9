package dev.engram.llm;

import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.port.ContradictionJudge;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ContradictionJudge} that asks the LLM about pairs in the 0.7–0.9 band that do not share a
 * fact key; every other pair (both keyed, same or different key) goes to the fallback judge, whose key
 * and value rule is exact.
 *
 * <p>The model answers {@code {"verdict": "SAME" | "CONTRADICTS" | "COMPATIBLE", "memoryId": "<id>"}}.
 * A {@code memoryId} other than the existing memory's id is a hallucination: the answer is ignored,
 * counted ({@code engram.llm.judge.hallucinated}) and the fallback decides. Any failure (open breaker,
 * exhausted retries, unparseable answer) also falls back: the judge is advisory, and consolidation must
 * not stall on it (the consolidator replays from {@code memory-candidates}; the decision is recorded
 * in {@code memory-updated}, so a replay gives the same state only when the same verdicts come back — the
 * fallback keeps that deterministic when the LLM is unreachable). Verdicts are counted by value
 * ({@code engram.llm.judge.verdicts}, tag {@code verdict}, {@code fallback}).
 */
public final class LlmContradictionJudge implements ContradictionJudge {

    /** Version of the judge prompt. */
    public static final String PROMPT_VERSION = "judge-v1";

    private static final Logger LOG = LoggerFactory.getLogger(LlmContradictionJudge.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = """
        You compare two statements about the same user. EXISTING is a stored memory, NEW was just said.
        Answer with one JSON object: {"verdict": "SAME" | "CONTRADICTS" | "COMPATIBLE", "memoryId": the id of EXISTING}.
        SAME: NEW states the same thing as EXISTING. CONTRADICTS: both cannot be true now (NEW replaces EXISTING).
        COMPATIBLE: both can be true, or they are about different things.
        """;

    private final ChatCompletionsClient client;
    private final ContradictionJudge fallback;
    private final MeterRegistry registry;
    private final String application;
    private final Counter hallucinated;

    /**
     * @param client the Chat Completions client
     * @param fallback decides keyed pairs and whenever the LLM cannot, e.g. the key/value judge
     * @param registry where the counters go
     * @param application value of the {@code application} tag
     */
    public LlmContradictionJudge(final ChatCompletionsClient client, final ContradictionJudge fallback,
                                 final MeterRegistry registry, final String application) {
        this.client = client;
        this.fallback = fallback;
        this.registry = registry;
        this.application = application;
        this.hallucinated = Counter.builder("engram.llm.judge.hallucinated")
            .description("Judge answers naming a memory id that was not asked about (ignored)")
            .tag("application", application).register(registry);
    }

    @Override
    public Verdict judge(final Memory existing, final MemoryCandidate candidate, final double similarity) {
        if (existing.getKey() != null && candidate.getKey() != null) {
            return fallback.judge(existing, candidate, similarity);
        }
        try {
            final String user = "EXISTING (id " + existing.getMemoryId() + "): " + existing.getContent()
                + "\nNEW: " + candidate.getContent();
            final ObjectNode schema = JSON.createObjectNode().put("type", "object");
            final ObjectNode props = schema.putObject("properties");
            props.putObject("verdict").putArray("enum").add("SAME").add("CONTRADICTS").add("COMPATIBLE");
            props.putObject("memoryId").put("type", "string");
            schema.putArray("required").add("verdict");
            final ChatCompletionsClient.Completion completion = client.complete(List.of(
                new ChatCompletionsClient.Message("system", PROMPT),
                new ChatCompletionsClient.Message("user", user)), "engram_verdict", schema);
            final JsonNode answer = TolerantJson.firstObject(completion.content()).orElse(null);
            if (answer == null || !answer.path("verdict").isTextual()) {
                return fallback(existing, candidate, similarity, "unparseable");
            }
            final String id = answer.path("memoryId").asText("");
            if (!id.isEmpty() && !id.equals(existing.getMemoryId())) {
                hallucinated.increment();
                return fallback(existing, candidate, similarity, "hallucinated_id");
            }
            final Verdict verdict = Verdict.valueOf(answer.path("verdict").asText().strip().toUpperCase(Locale.ROOT));
            count(verdict.name(), "none");
            return verdict;
        } catch (RuntimeException e) {
            LOG.debug("LLM judge failed, using the fallback: {}", e.toString());
            return fallback(existing, candidate, similarity, "error");
        }
    }

    private Verdict fallback(final Memory existing, final MemoryCandidate candidate, final double similarity,
                             final String why) {
        final Verdict verdict = fallback.judge(existing, candidate, similarity);
        count(verdict.name(), why);
        return verdict;
    }

    private void count(final String verdict, final String fallbackReason) {
        Counter.builder("engram.llm.judge.verdicts").description("Judge verdicts, and why the fallback decided")
            .tag("application", application).tag("verdict", verdict).tag("fallback", fallbackReason)
            .register(registry).increment();
    }
}
