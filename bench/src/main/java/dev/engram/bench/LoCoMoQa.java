package dev.engram.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.stack.ConversationSources;

/**
 * The LoCoMo samples as the quality benchmark needs them: every turn with its {@code dia_id} and the
 * text the pipeline sees ({@code text}, plus {@code " [image: caption]"} as {@link ConversationSources}
 * builds it), and the questions of categories 1–4 with their evidence ids normalized.
 *
 * <p>Evidence normalization (FORMAT.md): strip {@code (} and {@code )}; split on {@code ;}, {@code ,}
 * and whitespace; read each piece as {@code D<session>:<turn>} allowing an extra colon
 * ({@code D:11:26}) and leading zeros ({@code D30:05}); drop pieces that do not name an existing turn
 * (the empty {@code D}, the two ids past the end of a session). A question left with no evidence is
 * not scored.
 *
 * <p>Users to query: a question names a speaker when the speaker's first name occurs in it as a word
 * (case-insensitive; "Caroline's" counts). One speaker named → that speaker; both or none → both.
 */
public final class LoCoMoQa {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SESSION = Pattern.compile("session_(\\d+)");
    private static final Pattern EVIDENCE = Pattern.compile("D:?(\\d+):0*(\\d+)");

    /**
     * One turn.
     *
     * @param diaId e.g. {@code D1:3}
     * @param session session number
     * @param index index within the session (= the message index of the pipeline's conversation)
     * @param speaker who said it
     * @param text the content the pipeline sees
     */
    public record Turn(String diaId, int session, int index, String speaker, String text) {
    }

    /**
     * One scored question.
     *
     * @param question the text
     * @param category 1–4
     * @param evidence normalized evidence ids, non-empty
     * @param speakers the speakers to query (one, or both)
     */
    public record Question(String question, int category, Set<String> evidence, List<String> speakers) {
    }

    /**
     * One sample (conversation).
     *
     * @param sampleId e.g. {@code conv-26}
     * @param speakers speaker a and b
     * @param turns every turn, session order
     * @param questions scored questions
     * @param positions dia_id by {@code "<session>:<index>"}
     */
    public record Sample(String sampleId, List<String> speakers, List<Turn> turns, List<Question> questions,
                         Map<String, String> positions) {

        /**
         * @param session session number
         * @param index message index
         * @return the turn's dia_id, or null if there is no such turn
         */
        public String diaId(final int session, final int index) {
            return positions.get(session + ":" + index);
        }

        /** @return the pipeline's user id of a speaker: {@code <sample_id>:<speaker>} */
        public String userId(final String speaker) {
            return sampleId + ":" + speaker;
        }
    }

    private LoCoMoQa() {
    }

    /**
     * @param file LoCoMo JSON (an array of samples)
     * @return the samples, file order
     * @throws IOException if the file cannot be read or is not LoCoMo
     */
    public static List<Sample> read(final Path file) throws IOException {
        final JsonNode root = JSON.readTree(file.toFile());
        if (root == null || !root.isArray()) {
            throw new IOException("LoCoMo input must be a JSON array of samples: " + file);
        }
        final List<Sample> samples = new ArrayList<>();
        for (final JsonNode sample : root) {
            samples.add(sample(sample));
        }
        return samples;
    }

    private static Sample sample(final JsonNode sample) {
        final String sampleId = sample.path("sample_id").asText();
        final JsonNode conversation = sample.path("conversation");
        final List<String> speakers = List.of(conversation.path("speaker_a").asText(), conversation.path("speaker_b").asText());
        final List<Map.Entry<Integer, JsonNode>> sessions = new ArrayList<>();
        final Iterator<Map.Entry<String, JsonNode>> fields = conversation.fields();
        while (fields.hasNext()) {
            final Map.Entry<String, JsonNode> f = fields.next();
            final Matcher m = SESSION.matcher(f.getKey());
            if (m.matches() && f.getValue().isArray()) {
                sessions.add(Map.entry(Integer.parseInt(m.group(1)), f.getValue()));
            }
        }
        sessions.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
        final List<Turn> turns = new ArrayList<>();
        final Map<String, Turn> byId = new LinkedHashMap<>();
        for (final Map.Entry<Integer, JsonNode> session : sessions) {
            int index = 0;
            for (final JsonNode turn : session.getValue()) {
                final StringBuilder text = new StringBuilder(turn.path("text").asText(""));
                final String caption = turn.path("blip_caption").asText("");
                if (!caption.isBlank()) {
                    text.append(" [image: ").append(caption).append(']');
                }
                final Turn t = new Turn(turn.path("dia_id").asText(""), session.getKey(), index++,
                    turn.path("speaker").asText(""), text.toString());
                turns.add(t);
                byId.put(t.diaId(), t);
            }
        }
        final List<Question> questions = new ArrayList<>();
        for (final JsonNode qa : sample.path("qa")) {
            final int category = qa.path("category").asInt();
            if (category < 1 || category > 4) {
                continue;
            }
            final Set<String> evidence = new LinkedHashSet<>();
            for (final JsonNode e : qa.path("evidence")) {
                evidence.addAll(normalizeEvidence(e.asText("")));
            }
            evidence.retainAll(byId.keySet());
            if (evidence.isEmpty()) {
                continue;
            }
            final String question = qa.path("question").asText();
            questions.add(new Question(question, category, Set.copyOf(evidence), speakersNamed(question, speakers)));
        }
        final Map<String, String> positions = new java.util.HashMap<>();
        turns.forEach(t -> positions.put(t.session() + ":" + t.index(), t.diaId()));
        return new Sample(sampleId, speakers, List.copyOf(turns), List.copyOf(questions), Map.copyOf(positions));
    }

    /**
     * @param raw one evidence string as in the file
     * @return the ids it names, normalized to {@code D<s>:<t>} (not yet checked against the turns)
     */
    static List<String> normalizeEvidence(final String raw) {
        final List<String> ids = new ArrayList<>();
        for (final String piece : raw.replace("(", "").replace(")", "").split("[;,\\s]+")) {
            final Matcher m = EVIDENCE.matcher(piece.strip());
            if (m.matches()) {
                ids.add("D" + Integer.parseInt(m.group(1)) + ":" + Integer.parseInt(m.group(2)));
            }
        }
        return ids;
    }

    /**
     * @param question the question
     * @param speakers both speakers
     * @return the one speaker named, or both
     */
    static List<String> speakersNamed(final String question, final List<String> speakers) {
        final List<String> named = new ArrayList<>();
        for (final String speaker : speakers) {
            final String first = speaker.split("\\s+")[0];
            if (Pattern.compile("\\b" + Pattern.quote(first.toLowerCase(Locale.ROOT)) + "\\b")
                .matcher(question.toLowerCase(Locale.ROOT)).find()) {
                named.add(speaker);
            }
        }
        return named.size() == 1 ? List.copyOf(named) : List.copyOf(speakers);
    }
}
