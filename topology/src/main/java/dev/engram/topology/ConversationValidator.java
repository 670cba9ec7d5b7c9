package dev.engram.topology;

import java.util.Map;
import java.util.Optional;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;

/**
 * Checks a decoded {@link ConversationCompleted} before extraction. An invalid conversation goes to
 * the dead-letter topic with the reason this class gives; it is never "repaired".
 *
 * <p>Invalid: a tenant or user that is not a valid {@link UserKey} (missing, blank, control or
 * surrogate characters, too long, a {@code /} in the tenant); a blank or over-long conversation id;
 * no messages; more than {@code input.max.messages} messages; a message longer than
 * {@code input.max.message.chars} characters; a blank role; a timestamp before 1970 (Kafka record
 * timestamps cannot be negative); and malformed text anywhere (conversation id, roles, contents,
 * metadata): a lone UTF-16 surrogate, or U+FFFD. U+FFFD is what a UTF-8 decoder yields for a lone
 * surrogate on the wire (a producer writing WTF-8/CESU-8, e.g. {@code ED A0 80}) or for any invalid
 * UTF-8, so it marks text that was already damaged before it reached Engram.
 *
 * <p>Reasons name the field and the limit, never the text itself (the dead-letter headers must not
 * leak conversation content).
 */
public final class ConversationValidator {

    /** Longest conversation id accepted, in characters. */
    public static final int MAX_CONVERSATION_ID_CHARS = 512;

    private final int maxMessages;
    private final int maxMessageChars;

    /**
     * @param maxMessages most messages a conversation may have, ≥ 1
     * @param maxMessageChars most characters one message may have, ≥ 1
     */
    public ConversationValidator(final int maxMessages, final int maxMessageChars) {
        this.maxMessages = maxMessages;
        this.maxMessageChars = maxMessageChars;
    }

    /**
     * @param config reads {@code input.max.messages} and {@code input.max.message.chars}
     * @return a validator with the configured limits
     */
    public static ConversationValidator from(final EngramConfig config) {
        return new ConversationValidator(config.getInt(EngramConfig.MAX_MESSAGES),
            config.getInt(EngramConfig.MAX_MESSAGE_CHARS));
    }

    /**
     * @param conversation a decoded conversation
     * @return why it is invalid, or empty when it is valid
     */
    public Optional<String> problem(final ConversationCompleted conversation) {
        try {
            new UserKey(conversation.getTenantId(), conversation.getUserId());
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.of("invalid user key: " + e.getMessage());
        }
        final String conversationId = conversation.getConversationId();
        if (conversationId == null || conversationId.isBlank()) {
            return Optional.of("conversationId is missing or blank");
        }
        if (conversationId.length() > MAX_CONVERSATION_ID_CHARS) {
            return Optional.of("conversationId is longer than " + MAX_CONVERSATION_ID_CHARS + " characters");
        }
        if (malformed(conversationId)) {
            return Optional.of("conversationId contains a lone surrogate or U+FFFD");
        }
        if (conversation.getCompletedAt() == null || conversation.getCompletedAt().toEpochMilli() < 0) {
            return Optional.of("completedAt is missing or before 1970");
        }
        if (conversation.getMessages() == null || conversation.getMessages().isEmpty()) {
            return Optional.of("conversation has no messages");
        }
        if (conversation.getMessages().size() > maxMessages) {
            return Optional.of("conversation has " + conversation.getMessages().size() + " messages, more than "
                + EngramConfig.MAX_MESSAGES + "=" + maxMessages);
        }
        for (int i = 0; i < conversation.getMessages().size(); i++) {
            final Optional<String> problem = problem(i, conversation.getMessages().get(i));
            if (problem.isPresent()) {
                return problem;
            }
        }
        if (conversation.getMetadata() != null) {
            for (final Map.Entry<String, String> e : conversation.getMetadata().entrySet()) {
                if (malformed(e.getKey()) || malformed(e.getValue())) {
                    return Optional.of("metadata contains a lone surrogate or U+FFFD");
                }
            }
        }
        return Optional.empty();
    }

    private Optional<String> problem(final int position, final Message message) {
        final String where = "message " + position;
        if (message == null) {
            return Optional.of(where + " is null");
        }
        if (message.getRole() == null || message.getRole().isBlank()) {
            return Optional.of(where + " has a missing or blank role");
        }
        if (message.getContent() == null) {
            return Optional.of(where + " has no content");
        }
        if (message.getContent().length() > maxMessageChars) {
            return Optional.of(where + " has " + message.getContent().length() + " characters, more than "
                + EngramConfig.MAX_MESSAGE_CHARS + "=" + maxMessageChars);
        }
        if (message.getTimestamp() == null || message.getTimestamp().toEpochMilli() < 0) {
            return Optional.of(where + " has a timestamp missing or before 1970");
        }
        if (malformed(message.getRole()) || malformed(message.getContent())) {
            return Optional.of(where + " contains a lone surrogate or U+FFFD");
        }
        return Optional.empty();
    }

    /**
     * @param text any text
     * @return true when it has a high surrogate not followed by a low one, a low surrogate not preceded by
     *     a high one, or U+FFFD
     */
    static boolean malformed(final String text) {
        if (text == null) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c == '\uFFFD') {
                return true;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
