package dev.engram.llm;

import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.Message;

/**
 * Splits a conversation into chunks that fit a token budget, so no request goes past the model's
 * context. Tokens are estimated as {@code ceil(chars / 4) + 4} per message (the usual English
 * average for BPE tokenizers plus the chat-format overhead per message); the budget should leave
 * room for the system prompt and the answer.
 *
 * <p>Messages stay whole and in order where they fit; a single message above the budget is cut into
 * consecutive pieces that each fit, every piece keeping the message's index (so evidence indexes
 * stay valid). Pure and deterministic.
 */
public final class ConversationChunker {

    /** Estimated tokens a message costs beyond its text. */
    public static final int MESSAGE_OVERHEAD_TOKENS = 4;

    private ConversationChunker() {
    }

    /** One message or a piece of one, as sent. @param index the message's index @param role role @param content text */
    public record Part(int index, String role, String content) {
    }

    /**
     * @param text any text
     * @return its estimated token count, ≥ 0
     */
    public static int tokens(final String text) {
        return (text.length() + 3) / 4;
    }

    /**
     * @param messages the conversation's messages, in order
     * @param budgetTokens most estimated tokens per chunk, ≥ 16
     * @return chunks in order, each non-empty and within the budget
     */
    public static List<List<Part>> chunks(final List<Message> messages, final int budgetTokens) {
        final int maxChars = Math.max(16, (budgetTokens - MESSAGE_OVERHEAD_TOKENS) * 4);
        final List<List<Part>> chunks = new ArrayList<>();
        List<Part> current = new ArrayList<>();
        int used = 0;
        for (int i = 0; i < messages.size(); i++) {
            final Message message = messages.get(i);
            final int index = message.getIndex();
            final String content = message.getContent();
            final List<String> pieces = new ArrayList<>();
            for (int from = 0; from < content.length() || pieces.isEmpty(); from += maxChars) {
                pieces.add(content.substring(Math.min(from, content.length()), Math.min(content.length(), from + maxChars)));
            }
            for (final String piece : pieces) {
                final int cost = tokens(piece) + MESSAGE_OVERHEAD_TOKENS;
                if (!current.isEmpty() && used + cost > budgetTokens) {
                    chunks.add(List.copyOf(current));
                    current = new ArrayList<>();
                    used = 0;
                }
                current.add(new Part(index, message.getRole(), piece));
                used += cost;
            }
        }
        if (!current.isEmpty()) {
            chunks.add(List.copyOf(current));
        }
        return chunks;
    }
}
