package dev.engram.retriever;

import dev.engram.avro.Memory;
import dev.engram.consolidation.Outdated;
import dev.engram.runtime.ApiProblem;

/**
 * What a {@code PUT .../memories/{id}} correction becomes: the content and value the CORRECT command carries, given
 * the memory as it is and the request's fields. A correction never leaves a memory saying two things: new content
 * for a keyed fact needs the new value; the value alone rewrites the content where it names the old value
 * ("Lives in Graz" + {@code {"value": "Linz"}} → "Lives in Linz", {@link Outdated#withValue}), and is refused (400
 * naming {@code content}) when the content does not name it, or when the memory has no key. Used by the route and by anything that issues corrections the way
 * the route does ({@code bench consistency}).
 */
public final class Corrections {

    private Corrections() {
    }

    /**
     * The corrected fields.
     *
     * @param content the new content, or null to keep it
     * @param value the new value, or null to keep it
     */
    public record Correction(String content, String value) {
    }

    /**
     * @param current the memory as it is
     * @param content the request's content, or null
     * @param value the request's value, or null
     * @return the command's content and value
     * @throws ApiProblem 400 naming the missing field when the correction would leave the memory saying two things
     *     (see the class comment)
     */
    public static Correction resolve(final Memory current, final String content, final String value) {
        if (content == null && value == null) {
            throw ApiProblem.badRequest("give the corrected content and/or value, e.g. {\"content\": \"Lives in Braga\"}");
        }
        if (content != null && value == null && current.getKey() != null && !current.getKey().isBlank()) {
            // a keyed fact's content and value change together: the profile and supersession read the value,
            // so new content with the old value would leave the memory saying two things
            throw ApiProblem.badRequest("memory " + current.getMemoryId() + " is the fact \"" + current.getKey()
                + "\": a correction of its content must give the new \"value\" too, e.g. "
                + "{\"content\": \"Lives in Braga\", \"value\": \"Braga\"}");
        }
        final boolean keyed = current.getKey() != null && !current.getKey().isBlank();
        if (content == null && !keyed) {
            throw ApiProblem.badRequest("memory " + current.getMemoryId() + " is not a keyed fact and has no value: "
                + "correct its \"content\", e.g. {\"content\": \"Went hiking in the Alps in May\"}");
        }
        if (content == null) {
            // the value alone: the content says the same thing, so profile, list, search, context and export agree
            final String rewritten = Outdated.withValue(current.getContent(), current.getValue(), value);
            if (rewritten == null) {
                throw ApiProblem.badRequest("memory " + current.getMemoryId() + " says \"" + current.getContent()
                    + "\", which does not name its value \"" + current.getValue() + "\": give the corrected \"content\" "
                    + "with the \"value\", e.g. {\"content\": \"Lives in Braga\", \"value\": \"Braga\"}");
            }
            return new Correction(rewritten, value);
        }
        return new Correction(content, value);
    }
}
