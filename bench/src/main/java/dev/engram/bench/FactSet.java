package dev.engram.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The project's own labelled fact-extraction set ({@value #RESOURCE}): one JSON object per line, written for
 * {@code bench facts} (never copied from LoCoMo or MemoryBank), English and Chinese.
 *
 * <p>Each line: {@code id} ({@code en-001}), {@code lang} ({@code en}, {@code zh}), {@code kind} (compound,
 * family, pets, work, places, hobbies, preference, negation, health, other, none), {@code split} ({@code tune}: the
 * sentences the rules were developed against; {@code held-out}: every fourth sentence, only ever scored), {@code text}
 * (one user turn) and {@code facts}: the facts the turn states, each {@code subject} ({@code user}, or who else it is
 * about: {@code sister}, {@code Tom}), {@code key} and {@code value} in the extractor's key vocabulary, the memory
 * {@code category} and {@code negated} (true for a retraction, "I no longer use Asana"). A turn that states nothing
 * about anyone has no facts: it measures precision only.
 *
 * <p>Key vocabulary (value in brackets): {@code name}, {@code age}, {@code city}, {@code hometown},
 * {@code visited:<place>}, {@code speaks:<language>}, {@code family:<relation>:<name>} [name],
 * {@code friend:<name>} [name], {@code pet:<name>} [name] or {@code pet:<species>} [species] when no name is said,
 * {@code employer}, {@code role}, {@code preferred_language}, {@code ide}, {@code cloud_provider},
 * {@code uses:<tool>} [tool], {@code preference:<thing>} [like | dislike], {@code favorite:<kind>} [title],
 * {@code hobby:<activity>} [activity], {@code diet}, and the CONSTRAINT (safety) keys {@code allergy:<allergen>},
 * {@code intolerance:<substance>}, {@code condition:<condition>}, {@code medication:<medication>},
 * {@code avoids:<food>}, {@code accessibility:<need>} [the allergen, condition …, singular]. The part after the
 * colon is the value in lower-case snake_case.
 */
final class FactSet {

    /** The set shipped with the bench module, on its class path. */
    static final String RESOURCE = "/facts/fact-set.jsonl";
    /** The subject of a fact about the user. */
    static final String USER = "user";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One labelled fact.
     *
     * @param subject {@value #USER} or whom else it is about
     * @param key the slot
     * @param value the value
     * @param category the memory category (ROLE, CONSTRAINT, …)
     * @param negated true for a retraction
     */
    record Expected(String subject, String key, String value, String category, boolean negated) {

        /** @return true for a fact about the user */
        boolean aboutUser() {
            return USER.equals(subject);
        }
    }

    /**
     * One labelled turn.
     *
     * @param id stable id
     * @param lang language code
     * @param kind what it exercises
     * @param split {@code tune} or {@code held-out}
     * @param text the user's turn
     * @param facts the facts it states
     */
    record Sentence(String id, String lang, String kind, String split, String text, List<Expected> facts) {

        /** @return the facts about the user */
        List<Expected> userFacts() {
            return facts.stream().filter(Expected::aboutUser).toList();
        }
    }

    private FactSet() {
    }

    /**
     * @param file a JSON Lines file in the format above, or null for the shipped set
     * @return its sentences in file order
     * @throws IllegalArgumentException naming the line when a line is not a labelled sentence
     */
    static List<Sentence> load(final Path file) {
        try (InputStream in = file == null ? FactSet.class.getResourceAsStream(RESOURCE) : Files.newInputStream(file)) {
            if (in == null) {
                throw new IllegalStateException("fact set " + RESOURCE + " not on the class path");
            }
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            final List<Sentence> out = new ArrayList<>();
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (!line.isBlank()) {
                    out.add(parse(line, number));
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Sentence parse(final String line, final int number) throws IOException {
        final JsonNode node = JSON.readTree(line);
        final String text = node.path("text").asText("");
        if (text.isBlank() || !node.path("facts").isArray()) {
            throw new IllegalArgumentException("line " + number + ": a labelled sentence needs text and a facts array");
        }
        final List<Expected> facts = new ArrayList<>();
        for (final JsonNode f : node.path("facts")) {
            if (!f.path("key").isTextual() || !f.path("value").isTextual()) {
                throw new IllegalArgumentException("line " + number + ": every fact needs a key and a value");
            }
            facts.add(new Expected(f.path("subject").asText(USER), f.path("key").asText(), f.path("value").asText(),
                f.path("category").asText("").toUpperCase(Locale.ROOT), f.path("negated").asBoolean(false)));
        }
        return new Sentence(node.path("id").asText("line-" + number), node.path("lang").asText("en"),
            node.path("kind").asText("other"), node.path("split").asText("tune"), text, List.copyOf(facts));
    }
}
