package dev.engram.retriever;

import dev.engram.avro.Memory;
import dev.engram.core.MemoryIds;
import dev.engram.consolidation.Outdated;
import dev.engram.runtime.ApiProblem;

/**
 * What a {@code PUT .../memories/{id}} correction becomes: the content and value the CORRECT command carries, given
 * the memory as it is and the request's fields. A correction never leaves a memory saying two things: new content
 * for a keyed fact needs the new value; the value alone rewrites the content where it names the old value
 * ("Lives in Graz" + {@code {"value": "Linz"}} → "Lives in Linz", {@link Outdated#withValue}), and is refused (400
 * naming {@code content}) when the content does not name it; a value for a memory without a key (an episode) is refused
 * whether content comes with it or not (400 naming {@code content}); content and value given
 * together must agree: the value must occur in the content, compared without letter case or accents (a stance such
 * as {@code dislike} excepted), else 400 naming both. Used by the route and by anything that issues corrections the way
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
            throw ApiProblem.badRequest("give the corrected content and/or value, e.g. " + example(current.getKey()));
        }
        if (content != null && value == null && current.getKey() != null && !current.getKey().isBlank()) {
            // a keyed fact's content and value change together: the profile and supersession read the value,
            // so new content with the old value would leave the memory saying two things
            throw ApiProblem.badRequest("memory " + current.getMemoryId() + " is the fact \"" + current.getKey()
                + "\": a correction of its content must give the new \"value\" too, e.g. " + example(current.getKey()));
        }
        final boolean keyed = current.getKey() != null && !current.getKey().isBlank();
        if (!keyed && value != null) {
            // README trial: {"content": …, "value": …} on an episode was accepted and the value dropped; with or without
            // content, a value for a memory that has none is refused the same way
            throw ApiProblem.badRequest("memory " + current.getMemoryId() + " is not a keyed fact and has no value: "
                + "correct its \"content\", e.g. " + example(null));
        }
        if (content == null) {
            // the value alone: the content says the same thing, so profile, list, search, context and export agree
            final String rewritten = Outdated.withValue(current.getContent(), current.getValue(), value);
            if (rewritten == null) {
                throw ApiProblem.badRequest("memory " + current.getMemoryId() + " says \"" + current.getContent()
                    + "\", which does not name its value \"" + current.getValue() + "\": give the corrected \"content\" "
                    + "with the \"value\", e.g. " + example(current.getKey()));
            }
            return new Correction(rewritten, value);
        }
        if (value != null && !Outdated.isPolarity(value) && !MemoryIds.fold(content).contains(MemoryIds.fold(value))) {
            // content and value are one statement: "Lives in Rome" with the value Paris left the memory saying Rome
            // and the profile Paris
            throw ApiProblem.badRequest("the corrected content \"" + content + "\" does not name the corrected value \""
                + value + "\" (compared without letter case or accents): the memory would say one thing and the profile "
                + "another; give a content that states the value, e.g. " + example(current.getKey()));
        }
        return new Correction(content, value);
    }


    /**
     * A correction body that fits the fact: the content as the offline extractor words a fact of that key, with a value
     * of the key's kind ({@code preferred_language} a programming language, {@code city} a city, …); an episode (no
     * key) its content alone; a key of no built-in kind (a custom category's, an LLM's) content and value in words.
     *
     * @param key the memory's key, or null
     * @return the JSON example
     */
    static String example(final String key) {
        if (key == null || key.isBlank()) {
            return "{\"content\": \"Went hiking in the Alps in May\"}";
        }
        final String slot = key.contains(":") ? key.substring(0, key.indexOf(':')) : key;
        final String[] contentAndValue = switch (slot) {
            case "city" -> new String[] {"Lives in Braga", "Braga"};
            case "employer" -> new String[] {"Works at Hooli", "Hooli"};
            case "role" -> new String[] {"Works as a data engineer", "data engineer"};
            case "preferred_language" -> new String[] {"Main programming language is Kotlin", "Kotlin"};
            case "ide" -> new String[] {"Uses IntelliJ IDEA as IDE", "IntelliJ IDEA"};
            case "cloud_provider" -> new String[] {"Uses Azure as cloud provider", "Azure"};
            case "uses" -> new String[] {"Uses Linear", "Linear"};
            case "diet" -> new String[] {"Is vegetarian", "vegetarian"};
            case "name" -> new String[] {"Name is Mira", "Mira"};
            case "preference" -> new String[] {"Dislikes " + subject(key), "dislike"};
            case "response_style" -> new String[] {"Prefers step-by-step answers", "step-by-step"};
            // the statement names its value: content and value given together must agree
            default -> new String[] {"the corrected statement, naming the corrected value", "the corrected value"};
        };
        return "{\"content\": \"" + contentAndValue[0] + "\", \"value\": \"" + contentAndValue[1] + "\"}";
    }

    /** @return a preference key's subject in words ({@code preference:hiking_trips} → "hiking trips"), else "jazz" */
    private static String subject(final String key) {
        final String slug = key.substring(key.indexOf(':') + 1);
        return slug.matches("[a-z0-9_]{1,40}") ? slug.replace('_', ' ') : "jazz";
    }
}
