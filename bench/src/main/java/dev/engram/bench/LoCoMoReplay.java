package dev.engram.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.engram.consolidation.Facts;
import dev.engram.llm.StubChatServer;

/**
 * A replay "model" for {@link StubChatServer}: answers the real LLM extractor's, judge's and merger's
 * Chat Completions requests with what LoCoMo's authors recorded from an LLM, so the LLM path of
 * Engram (client, parsing, validation, chunking, consolidation, retrieval) runs unchanged over HTTP on
 * LLM-grade facts without a model.
 *
 * <p><b>Extraction</b> (a request whose system prompt asks for {@code "memories"}): the conversation
 * is recognised from the numbered message lines of the user prompt ({@code [i] role: content}): every
 * line votes for the LoCoMo conversations (sample, session, speaker = the {@code user} role) whose
 * message {@code i} has that role and text; the most votes win. The answer lists the speaker's
 * {@code session_<n>_observation} facts whose {@code dia_id}s fall in the request's lines (so a chunked
 * conversation gets each fact once, in the chunk of its source turn), each with {@code evidence} = the
 * message indexes of those {@code dia_id}s, and, in the chunk holding message 0, the
 * {@code session_<n>_summary} as {@code summary.summary}. The fields LoCoMo does not record are
 * derived from the fact's text by fixed rules ({@link ReplayFacts#fact}): a key and value only where one is
 * evident ("moved to / lives in &lt;Place&gt;" → {@code city}, "works at / for &lt;Org&gt;" →
 * {@code employer}, "works as / a new job as a &lt;role&gt;" → {@code role}, "is vegan / vegetarian /
 * pescatarian" → {@code diet}); EPISODIC for a sentence with an event marker (a past-tense event verb,
 * "recently", "last week", "… ago"), else SEMANTIC with category PREFERENCE (likes, loves, enjoys,
 * favorite, fan of) or PERSONAL; importance 0.8 keyed, 0.7 semantic, 0.6 episodic; confidence 0.9;
 * source EXPLICIT.
 *
 * <p><b>Judge</b> ({@code "verdict"} in the system prompt; the {@code EXISTING (id …): …} and
 * {@code NEW: …} lines): CONTRADICTS when both statements give the same evident key different values,
 * COMPATIBLE when they name different identifiers ({@link Facts#sameIdentifiers}: numbers, codes), SAME when
 * their content words (lower case, stop words and the speakers' names removed) overlap with a Jaccard index
 * ≥ {@value #SAME_JACCARD} or the shorter one's (at least {@value #MIN_CONTAINED}) are all in the longer one
 * (a restatement with more detail, which a model calls the same fact), else COMPATIBLE; {@code memoryId} =
 * the existing id.
 * <b>Merge</b> ({@code "merged"} in the system prompt; one {@code - statement} line per member, lead
 * first): the distinct statements joined in the given order. Both are deterministic, so a replayed
 * consolidation gets the same answers.
 *
 * <p><b>Usage</b>: {@code prompt_tokens} = Σ over the request's messages (⌈chars / 4⌉ + 4) + the JSON
 * schema's ⌈chars / 4⌉ (servers put it into the prompt) + 3 (reply priming, as OpenAI counts);
 * {@code completion_tokens} = ⌈answer chars / 4⌉; the estimate the extractor's chunker uses. An answer
 * longer than the request's {@code max_tokens} is cut there with {@code finish_reason: length}, as a
 * real server does. Tokens are tallied per kind of call ({@link #stats()}). Thread-safe.
 */
public final class LoCoMoReplay implements Function<JsonNode, StubChatServer.Reply> {

    /** Content-word Jaccard index from which the replay judge answers SAME. */
    public static final double SAME_JACCARD = 0.5;
    /** Content words a statement needs for "all of them restated in the other" to count as SAME. */
    public static final int MIN_CONTAINED = 3;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)] (\\w+): (.*)$");
    private static final Pattern DIA = Pattern.compile("D:?(\\d+):0*(\\d+)");
    private static final Pattern EXISTING = Pattern.compile("^EXISTING \\(id ([^)]*)\\): (.*)$", Pattern.MULTILINE);
    private static final Pattern NEW = Pattern.compile("^NEW: (.*)$", Pattern.MULTILINE);
    private static final Pattern MEMBER = Pattern.compile("^- (.+)$", Pattern.MULTILINE);
    private static final Set<String> STOP = Set.of("a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for",
        "with", "is", "are", "was", "were", "be", "been", "has", "have", "had", "her", "his", "she", "he", "they",
        "their", "it", "its", "that", "this", "as", "by", "from", "about", "who", "which", "also", "very", "really");

    /** One recorded fact: text and source message indexes within its session. */
    record Fact(String text, List<Integer> indexes) {
    }

    /** One conversation of the pipeline's input: a session as seen by one speaker. */
    record Conversation(String sampleId, int session, String speaker, List<Fact> facts, String summary) {
    }

    /**
     * Token and call tallies of one kind of request.
     *
     * @param calls requests answered
     * @param promptTokens Σ prompt tokens
     * @param completionTokens Σ completion tokens
     */
    public record Tally(long calls, long promptTokens, long completionTokens) {
    }

    private final Map<String, Conversation> conversations;
    private final Map<String, List<String>> byLine;
    private final Set<String> names;
    private final Map<String, LongAdder[]> tallies = new ConcurrentHashMap<>();
    private final AtomicLong unmatched = new AtomicLong();
    private final AtomicLong truncated = new AtomicLong();
    private final Set<String> extracted = ConcurrentHashMap.newKeySet();
    private final Map<String, LongAdder> verdicts = new ConcurrentHashMap<>();

    private LoCoMoReplay(final Map<String, Conversation> conversations, final Map<String, List<String>> byLine,
                         final Set<String> names) {
        this.conversations = conversations;
        this.byLine = byLine;
        this.names = names;
    }

    /**
     * @return a replay that knows no conversation: extraction requests go unanswered, judge and merge requests get the
     *     deterministic answers of the class comment (for another extraction answerer, {@link ConsistencyReplay})
     */
    static LoCoMoReplay judgeOnly() {
        return new LoCoMoReplay(Map.of(), Map.of(), Set.of());
    }

    /**
     * @param file a LoCoMo JSON file (array of samples with {@code conversation}, {@code observation},
     *     {@code session_summary})
     * @return the replay model of every session and speaker in it
     * @throws IOException if the file cannot be read
     */
    public static LoCoMoReplay load(final Path file) throws IOException {
        final Map<String, Conversation> conversations = new HashMap<>();
        final Map<String, List<String>> byLine = new HashMap<>();
        final Set<String> names = new HashSet<>();
        for (final JsonNode sample : JSON.readTree(file.toFile())) {
            final String sampleId = sample.path("sample_id").asText();
            final JsonNode conversation = sample.path("conversation");
            final var fields = conversation.fields();
            while (fields.hasNext()) {
                final var entry = fields.next();
                final Matcher m = Pattern.compile("^session_(\\d+)$").matcher(entry.getKey());
                if (!m.matches() || !entry.getValue().isArray()) {
                    continue;
                }
                final int session = Integer.parseInt(m.group(1));
                final Map<String, Integer> indexByDia = new HashMap<>();
                final Set<String> speakers = new LinkedHashSet<>();
                final JsonNode turns = entry.getValue();
                for (int i = 0; i < turns.size(); i++) {
                    final Matcher d = DIA.matcher(turns.get(i).path("dia_id").asText(""));
                    if (d.find()) {
                        indexByDia.put(d.group(1) + ":" + d.group(2), i);
                    }
                    speakers.add(turns.get(i).path("speaker").asText());
                }
                final String summary = sample.path("session_summary").path("session_" + session + "_summary").asText("");
                for (final String speaker : speakers) {
                    names.add(speaker.toLowerCase(Locale.ROOT));
                    final List<Fact> facts = new ArrayList<>();
                    for (final JsonNode item : sample.path("observation").path("session_" + session + "_observation")
                        .path(speaker)) {
                        final List<Integer> indexes = new ArrayList<>();
                        final Matcher d = DIA.matcher(item.path(1).toString());
                        while (d.find()) {
                            final Integer index = indexByDia.get(d.group(1) + ":" + d.group(2));
                            if (index != null && !indexes.contains(index)) {
                                indexes.add(index);
                            }
                        }
                        if (!indexes.isEmpty() && item.path(0).isTextual()) {
                            facts.add(new Fact(item.path(0).asText().strip(), List.copyOf(indexes)));
                        }
                    }
                    final String id = sampleId + ":session_" + session + "|" + speaker;
                    conversations.put(id, new Conversation(sampleId, session, speaker, List.copyOf(facts), summary));
                    for (int i = 0; i < turns.size(); i++) {
                        final JsonNode turn = turns.get(i);
                        final String role = speaker.equals(turn.path("speaker").asText()) ? "user" : "assistant";
                        byLine.computeIfAbsent(lineKey(i, role, text(turn)), k -> new ArrayList<>()).add(id);
                    }
                }
            }
        }
        return new LoCoMoReplay(conversations, byLine, names);
    }

    /** The message content as the pipeline sees it: text, plus {@code " [image: caption]"}. */
    private static String text(final JsonNode turn) {
        final String caption = turn.path("blip_caption").asText("");
        return turn.path("text").asText("") + (caption.isBlank() ? "" : " [image: " + caption + "]");
    }

    private static String lineKey(final int index, final String role, final String content) {
        return index + "\u0000" + role + "\u0000" + content.strip();
    }

    @Override
    public StubChatServer.Reply apply(final JsonNode request) {
        final String system = message(request, "system");
        final String user = message(request, "user");
        final String kind;
        final String answer;
        if (system.contains("\"memories\"")) {
            kind = "extraction";
            answer = extraction(user, system.contains("\"summary\": one or two sentences"));
        } else if (system.contains("\"verdict\"")) {
            kind = "judge";
            answer = verdict(user);
        } else if (system.contains("\"merged\"")) {
            kind = "merge";
            answer = merged(user);
        } else {
            kind = "unknown";
            answer = null;
        }
        if (answer == null) {
            unmatched.incrementAndGet();
            tally(kind, 0, 0);
            return new StubChatServer.Reply(400, Map.of(),
                "{\"error\":{\"message\":\"replay: no recorded answer for this request\",\"type\":\"invalid_request_error\"}}", 0);
        }
        final int prompt = PromptTokens.of(request);
        final int maxTokens = request.path("max_tokens").asInt(Integer.MAX_VALUE);
        String content = answer;
        String finish = "stop";
        if (PromptTokens.of(content) > maxTokens) {
            content = content.substring(0, Math.max(0, maxTokens * 4));
            finish = "length";
            truncated.incrementAndGet();
        }
        final int completion = PromptTokens.of(content);
        tally(kind, prompt, completion);
        return new StubChatServer.Reply(200, Map.of(), StubChatServer.Reply.completionBody(content, null, finish,
            request.path("model").asText("replay"), prompt, completion), 0);
    }

    private static String message(final JsonNode request, final String role) {
        final StringBuilder out = new StringBuilder();
        for (final JsonNode m : request.path("messages")) {
            if (role.equals(m.path("role").asText())) {
                out.append(m.path("content").asText(""));
            }
        }
        return out.toString();
    }

    private void tally(final String kind, final int prompt, final int completion) {
        final LongAdder[] t = tallies.computeIfAbsent(kind, k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder()});
        t[0].increment();
        t[1].add(prompt);
        t[2].add(completion);
    }

    private String extraction(final String prompt, final boolean summarize) {
        final Map<Integer, String> lines = new LinkedHashMap<>();
        final Map<String, Integer> votes = new HashMap<>();
        for (final String line : prompt.split("\n")) {
            final Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            final int index = Integer.parseInt(m.group(1));
            lines.put(index, m.group(2));
            for (final String id : byLine.getOrDefault(lineKey(index, m.group(2), m.group(3)), List.of())) {
                votes.merge(id, 1, Integer::sum);
            }
        }
        final String best = votes.entrySet().stream()
            .max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
            .map(Map.Entry::getKey).orElse(null);
        if (best == null) {
            return null;
        }
        extracted.add(best);
        final Conversation conversation = conversations.get(best);
        final ObjectNode answer = JSON.createObjectNode();
        final ArrayNode memories = answer.putArray("memories");
        for (final Fact f : conversation.facts()) {
            final List<Integer> inChunk = f.indexes().stream().filter(lines::containsKey).toList();
            if (!inChunk.isEmpty() && lines.containsKey(f.indexes().get(0))) {
                memories.add(ReplayFacts.fact(f.text(), inChunk));
            }
        }
        if (summarize && lines.containsKey(0) && !conversation.summary().isBlank()) {
            final ObjectNode summary = answer.putObject("summary").put("summary", conversation.summary().strip());
            summary.putArray("topics");
            summary.putArray("decisions");
        } else {
            answer.putNull("summary");
        }
        return answer.toString();
    }

    private String verdict(final String prompt) {
        final Matcher existing = EXISTING.matcher(prompt);
        final Matcher candidate = NEW.matcher(prompt);
        if (!existing.find() || !candidate.find()) {
            return null;
        }
        final String a = existing.group(2);
        final String b = candidate.group(1);
        final String[] ka = ReplayFacts.evidentKey(a);
        final String[] kb = ReplayFacts.evidentKey(b);
        final String verdict;
        if (ka != null && kb != null && ka[0].equals(kb[0])) {
            verdict = ka[1].equalsIgnoreCase(kb[1]) ? "SAME" : "CONTRADICTS";
        } else if (!Facts.sameIdentifiers(a, b)) {
            verdict = "COMPATIBLE"; // "room 12" and "room 21": a model reads the numbers
        } else {
            final Set<String> wa = words(a);
            final Set<String> wb = words(b);
            verdict = WordSets.jaccard(wa, wb) >= SAME_JACCARD || WordSets.contained(wa, wb, MIN_CONTAINED) ? "SAME" : "COMPATIBLE";
        }
        verdicts.computeIfAbsent(verdict, v -> new LongAdder()).increment();
        return JSON.createObjectNode().put("verdict", verdict).put("memoryId", existing.group(1)).toString();
    }

    private String merged(final String prompt) {
        final Set<String> statements = new LinkedHashSet<>();
        final Matcher m = MEMBER.matcher(prompt);
        while (m.find()) {
            statements.add(m.group(1).strip());
        }
        if (statements.isEmpty()) {
            return null;
        }
        final StringBuilder out = new StringBuilder();
        for (final String s : statements) {
            out.append(out.length() == 0 ? "" : " ").append(s.endsWith(".") || s.endsWith("!") || s.endsWith("?") ? s : s + ".");
        }
        return JSON.createObjectNode().put("merged", out.toString()).toString();
    }

    private Set<String> words(final String text) {
        final Set<String> out = new HashSet<>();
        for (final String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (w.length() > 1 && !STOP.contains(w) && !names.contains(w)) {
                out.add(w.endsWith("s") && w.length() > 3 ? w.substring(0, w.length() - 1) : w);
            }
        }
        return out;
    }

    /**
     * @return by kind of call ({@code extraction}, {@code judge}, {@code merge}, {@code unknown}): calls and tokens
     */
    public Map<String, Tally> stats() {
        final Map<String, Tally> out = new LinkedHashMap<>();
        for (final String kind : List.of("extraction", "judge", "merge", "unknown")) {
            final LongAdder[] t = tallies.get(kind);
            out.put(kind, t == null ? new Tally(0, 0, 0) : new Tally(t[0].sum(), t[1].sum(), t[2].sum()));
        }
        return out;
    }

    /** @return the judge's answers by verdict (SAME, CONTRADICTS, COMPATIBLE), in that order */
    public Map<String, Long> verdicts() {
        final Map<String, Long> out = new LinkedHashMap<>();
        for (final String v : List.of("SAME", "CONTRADICTS", "COMPATIBLE")) {
            out.put(v, verdicts.containsKey(v) ? verdicts.get(v).sum() : 0L);
        }
        return out;
    }

    /** @return requests that had no recorded answer (answered 400) */
    public long unmatched() {
        return unmatched.get();
    }

    /** @return answers cut at {@code max_tokens} */
    public long truncated() {
        return truncated.get();
    }

    /** @return distinct conversations (session and speaker) that were asked for */
    public int conversationsExtracted() {
        return extracted.size();
    }

    /** @return conversations (session and speaker) in the file */
    public int conversations() {
        return conversations.size();
    }
}
