package dev.engram.retriever;

import dev.engram.avro.Memory;
import dev.engram.runtime.ApiProblem;

/**
 * What a {@code PUT .../memories/{id}} correction becomes: the content and value the CORRECT command carries, given
 * the memory as it is and the request's fields. Used by the route and by anything that issues corrections the way
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
        return new Correction(content, value);
    }
}
