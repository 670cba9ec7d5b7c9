package dev.engram.llm;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.avro.Memory;
import dev.engram.port.MemoryMerger;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MemoryMerger} that asks the LLM to write one memory from a cluster of alike memories
 * ({@value #PROMPT_VERSION}): the statements go as {@code - statement} lines, the most important first;
 * the model answers {@code {"merged": "..."}}. Any failure (open breaker, exhausted retries, no usable
 * JSON, a blank or over-long answer) falls back to {@link MemoryMerger#CONCATENATE}: merging is
 * housekeeping and must not stall the consolidation pass. Counted on {@code engram.llm.merges} (tag
 * {@code outcome}: llm, fallback).
 *
 * <p>The consolidation pass runs inside one Kafka transaction of the consolidator, so every call adds
 * the model's latency to it; {@code llm.merge.enabled} is therefore off by default (see docs/memory.md, "LLM extraction").
 */
public final class LlmMemoryMerger implements MemoryMerger {

    /** Version of the merge prompt. */
    public static final String PROMPT_VERSION = "merge-v1";

    private static final Logger LOG = LoggerFactory.getLogger(LlmMemoryMerger.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = """
        You merge statements about the same user into one long-term memory.
        Answer with one JSON object: {"merged": the statements as one text in the third person that keeps every
        distinct detail (names, dates, places, numbers) and says nothing twice}.
        """;

    private final ChatCompletionsClient client;
    private final MeterRegistry registry;
    private final String application;
    private final ObjectNode schema;

    /**
     * @param client the Chat Completions client
     * @param registry where {@code engram.llm.merges} goes
     * @param application value of the {@code application} tag
     */
    public LlmMemoryMerger(final ChatCompletionsClient client, final MeterRegistry registry, final String application) {
        this.client = client;
        this.registry = registry;
        this.application = application;
        this.schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("merged").put("type", "string");
        schema.putArray("required").add("merged");
    }

    @Override
    public String mergedContent(final Memory lead, final List<Memory> others) {
        final StringBuilder user = new StringBuilder("Statements (the first is the most important):\n");
        user.append("- ").append(lead.getContent().replace('\n', ' ')).append('\n');
        others.forEach(m -> user.append("- ").append(m.getContent().replace('\n', ' ')).append('\n'));
        try {
            final ChatCompletionsClient.Completion completion = client.complete(List.of(
                new ChatCompletionsClient.Message("system", PROMPT),
                new ChatCompletionsClient.Message("user", user.toString())), "engram_merge", schema);
            final JsonNode answer = TolerantJson.firstObject(completion.content()).orElse(null);
            final String merged = answer == null ? null : answer.path("merged").asText(null);
            if (merged != null && !merged.isBlank() && merged.length() <= MAX_CHARS) {
                count("llm");
                return merged.strip();
            }
        } catch (RuntimeException e) {
            LOG.debug("LLM merge failed, concatenating: {}", e.toString());
        }
        count("fallback");
        return CONCATENATE.mergedContent(lead, others);
    }

    private void count(final String outcome) {
        Counter.builder("engram.llm.merges").description("Merged memories written by the LLM, or by the fallback rule")
            .tag("application", application).tag("outcome", outcome).register(registry).increment();
    }
}
