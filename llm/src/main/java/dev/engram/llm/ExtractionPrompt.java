package dev.engram.llm;

import java.util.List;
import java.util.TreeMap;

import dev.engram.avro.ProfileFact;
import dev.engram.avro.UserProfile;

/** The user message of an extraction request: what is already known about the user, then the numbered turns. */
final class ExtractionPrompt {

    private ExtractionPrompt() {
    }

    /**
     * @param chunk the turns of one request, with their message indexes
     * @param profile the user's profile (its facts are listed so the model does not extract them again), or null
     * @return the prompt: "Already known about the user:" with {@code key = value} lines, then "Conversation:" with one
     *     {@code [index] role: content} line per turn
     */
    static String user(final List<ConversationChunker.Part> chunk, final UserProfile profile) {
        final StringBuilder out = new StringBuilder();
        if (profile != null && !profile.getFacts().isEmpty()) {
            out.append("Already known about the user:\n");
            for (final ProfileFact fact : new TreeMap<>(profile.getFacts()).values()) {
                out.append("- ").append(fact.getKey()).append(" = ").append(fact.getValue()).append('\n');
            }
            out.append('\n');
        }
        out.append("Conversation:\n");
        for (final ConversationChunker.Part part : chunk) {
            out.append('[').append(part.index()).append("] ").append(part.role()).append(": ")
                .append(part.content()).append('\n');
        }
        return out.toString();
    }
}
