package dev.engram.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.bench.ConsistencyHistories.Event;
import dev.engram.bench.ConsistencyHistories.History;
import dev.engram.bench.ConsistencyHistories.Line;
import dev.engram.llm.StubChatServer;
import dev.engram.port.ExtractedMemory;
import dev.engram.rules.RuleBasedExtractor;

/**
 * The model of {@code bench consistency --llm replay}: a {@link StubChatServer} responder for the real LLM extractor,
 * judge and merger, so the histories run through the LLM path (HTTP client, tolerant JSON reading, item validation,
 * {@code llm.extraction.episodes}, echo filtering, the LLM judge) without a model.
 *
 * <p><b>Extraction</b>: the conversation is read back from the prompt's numbered lines ({@code [i] role: content}).
 * A line the histories label ({@code "llm"} on the message, {@link Line#llm}) is answered with those memories, each
 * with {@code evidence} = the line's index unless the label gives its own: what a model says where the rules and a
 * model differ (a change the rules miss, a model attributing the assistant's echo to the user). Every other user line
 * is answered with the facts the rule-based extractor finds in it (SEMANTIC and PROCEDURAL, keys, values and contents
 * as the rules write them, evidence its messages): a model that agrees with the rules. No summary. So the LLM path's
 * figures differ from the offline ones only where a label says so, and through the path itself.
 *
 * <p><b>Judge and merge</b>: {@link LoCoMoReplay}'s deterministic answers (same evident key and value → SAME, another
 * value → CONTRADICTS, different identifiers → COMPATIBLE, else by content-word overlap; a merge joins the statements).
 * Thread-safe, deterministic.
 */
final class ConsistencyReplay implements Function<JsonNode, StubChatServer.Reply> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)] (\\w+): (.*)$");

    private final Map<String, JsonNode> labels = new HashMap<>();
    private final LoCoMoReplay judge = LoCoMoReplay.judgeOnly();
    private final RuleBasedExtractor rules = new RuleBasedExtractor(false);
    private final AtomicLong extractions = new AtomicLong();
    private final AtomicLong labelled = new AtomicLong();

    /** @param histories the histories whose labelled messages ({@link Line#llm}) the model answers with */
    ConsistencyReplay(final List<History> histories) {
        for (final History h : histories) {
            for (final Event e : h.events()) {
                if (!e.isCommand()) {
                    e.messages().stream().filter(l -> l.llm() != null).forEach(l -> labels.put(key(l.role(), l.text()), l.llm()));
                }
            }
        }
    }

    private static String key(final String role, final String text) {
        return role + "\u0000" + text.strip();
    }

    /** @return calls by kind, labelled lines answered, judge verdicts: the {@code llm} block's counts */
    Map<String, Object> stats() {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("extractionCalls", extractions.get());
        out.put("labelledLinesAnswered", labelled.get());
        judge.stats().forEach((kind, tally) -> {
            if (!"extraction".equals(kind)) { // answered here, never by the judge's replay
                out.put(kind + "Calls", tally.calls());
            }
        });
        out.put("judgeVerdicts", judge.verdicts());
        out.put("requestsWithoutAnswer", judge.unmatched());
        return out;
    }

    @Override
    public StubChatServer.Reply apply(final JsonNode request) {
        final JsonNode messages = request.path("messages");
        String system = "";
        String prompt = "";
        for (final JsonNode m : messages) {
            if ("system".equals(m.path("role").asText())) {
                system = m.path("content").asText("");
            } else if ("user".equals(m.path("role").asText())) {
                prompt = m.path("content").asText("");
            }
        }
        if (!system.contains("\"memories\"")) {
            return judge.apply(request);
        }
        extractions.incrementAndGet();
        final String answer = extraction(prompt);
        final int promptTokens = PromptTokens.of(request);
        final int completion = (answer.length() + 3) / 4;
        return new StubChatServer.Reply(200, Map.of(), StubChatServer.Reply.completionBody(answer, null, "stop",
            request.path("model").asText("replay"), promptTokens, completion), 0);
    }

    private String extraction(final String prompt) {
        final List<Message> lines = new ArrayList<>();
        final Matcher m = LINE.matcher("");
        for (final String text : prompt.split("\n")) {
            if (m.reset(text).matches()) {
                lines.add(new Message(Integer.parseInt(m.group(1)), m.group(2), m.group(3), Instant.EPOCH));
            }
        }
        final ObjectNode answer = JSON.createObjectNode();
        final var memories = answer.putArray("memories");
        answer.putNull("summary");
        if (lines.isEmpty()) {
            return answer.toString();
        }
        final List<Integer> labelledIndexes = new ArrayList<>();
        for (final Message line : lines) {
            final JsonNode label = labels.get(key(line.getRole(), line.getContent()));
            if (label == null) {
                continue;
            }
            labelled.incrementAndGet();
            labelledIndexes.add(line.getIndex());
            for (final JsonNode item : label) {
                final ObjectNode copy = item.deepCopy();
                if (!copy.has("evidence")) {
                    copy.putArray("evidence").add(line.getIndex());
                }
                memories.add(copy);
            }
        }
        final ConversationCompleted conversation = ConversationCompleted.newBuilder().setTenantId("replay")
            .setUserId("replay").setConversationId("replay").setMessages(lines).setCompletedAt(Instant.EPOCH).build();
        for (final ExtractedMemory fact : rules.extract(conversation, null)) {
            if (!fact.isFact() || fact.sourceMessageIndexes().stream().anyMatch(labelledIndexes::contains)) {
                continue;
            }
            final ObjectNode item = memories.addObject().put("type", fact.type().name())
                .put("category", fact.category() == null ? null : fact.category().name())
                .put("key", fact.key()).put("value", fact.value()).put("displayName", fact.displayName())
                .put("content", fact.content()).put("importance", fact.importance()).put("confidence", fact.confidence())
                .put("source", fact.source().name()).put("negated", fact.negated());
            final var evidence = item.putArray("evidence");
            fact.sourceMessageIndexes().forEach(evidence::add);
        }
        return answer.toString();
    }
}
