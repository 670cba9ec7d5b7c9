package dev.engram.validation;

import java.util.Map;
import java.util.Optional;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.config.ConfigValues;
import dev.engram.config.CoreConfig;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;

/**
 * Checks a decoded {@link ConversationCompleted} before extraction. An invalid conversation goes to
 * the dead-letter topic with the reason this class gives; it is never "repaired".
 *
 * <p>Invalid: a serialized record larger than {@code input.max.record.bytes} ({@link #sizeProblem}, before
 * decoding: the one size limit ingest, producers and topics share); a tenant or user that is not a valid {@link UserKey} (missing, blank, control or
 * unpaired surrogates, too long, a {@code /} in the tenant); a blank or over-long conversation id;
 * no messages; more than {@code input.max.messages} messages; a message longer than
 * {@code input.max.message.chars} characters; a blank role, or a role other than {@link #ROLES} (case and
 * surrounding blanks aside; a "wizard" turn would otherwise be read by no extractor and vanish); a message
 * without content or with blank content (ingest reads a missing {@code content} as empty, so that it
 * arrives here); a timestamp before 1970 (Kafka record
 * timestamps cannot be negative); and a malformed conversation id (a lone UTF-16 surrogate, or U+FFFD):
 * identifiers are never repaired, two broken ids would become one. Text (roles, contents, metadata) is
 * handled as on every other way in (ingest, the HTTP API): invalid UTF-8 on the wire has become U+FFFD
 * when the record was decoded (a lone surrogate written as WTF-8/CESU-8, e.g. {@code ED A0 80}, too),
 * which is accepted and counted ({@link #replacements}); a lone surrogate still in a decoded string is
 * counted the same way.
 *
 * <p>Reasons name the field and the limit, never the text itself (the dead-letter headers must not
 * leak conversation content).
 */
public final class ConversationValidator {

    /** Longest conversation id accepted, in characters. */
    public static final int MAX_CONVERSATION_ID_CHARS = 512;

    /** The roles a message may have (as chat APIs name them); the rule-based extractor reads user and assistant. */
    public static final java.util.List<String> ROLES = java.util.List.of("user", "assistant", "system", "tool");
    /** How much of an unknown role a reason quotes. */
    private static final int ROLE_QUOTE_CHARS = 32;

    private final int maxMessages;
    private final int maxMessageChars;
    private final int maxRecordBytes;

    /**
     * @param maxMessages most messages a conversation may have, ≥ 1
     * @param maxMessageChars most characters one message may have, ≥ 1
     */
    public ConversationValidator(final int maxMessages, final int maxMessageChars) {
        this(maxMessages, maxMessageChars, CoreConfig.DEFAULT_MAX_RECORD_BYTES);
    }

    /**
     * @param maxMessages most messages a conversation may have, ≥ 1
     * @param maxMessageChars most characters one message may have, ≥ 1
     * @param maxRecordBytes largest serialized record, bytes ({@code input.max.record.bytes}: what ingest sends)
     */
    public ConversationValidator(final int maxMessages, final int maxMessageChars, final int maxRecordBytes) {
        this.maxMessages = maxMessages;
        this.maxMessageChars = maxMessageChars;
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * @param config reads {@code input.max.messages}, {@code input.max.message.chars} and {@code input.max.record.bytes}
     * @return a validator with the configured limits
     */
    public static ConversationValidator from(final ConfigValues config) {
        return new ConversationValidator(config.getInt(DomainConfig.MAX_MESSAGES),
            config.getInt(DomainConfig.MAX_MESSAGE_CHARS), config.getInt(CoreConfig.MAX_RECORD_BYTES));
    }

    /**
     * The size limit of ingest, applied to what arrives however it was produced: the topic allows
     * {@code input.max.record.bytes} plus 1 MiB of headroom (so the dead letter, the same bytes with its
     * headers, still fits), and a record in that headroom is dead-lettered here, not extracted.
     *
     * @param recordBytes the serialized value's size, bytes
     * @return why it is too large, or empty
     */
    public Optional<String> sizeProblem(final int recordBytes) {
        return recordBytes > maxRecordBytes
            ? Optional.of("record of " + recordBytes + " bytes is larger than " + CoreConfig.MAX_RECORD_BYTES + "="
                + maxRecordBytes)
            : Optional.empty();
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
                + DomainConfig.MAX_MESSAGES + "=" + maxMessages);
        }
        for (int i = 0; i < conversation.getMessages().size(); i++) {
            final Optional<String> problem = problem(i, conversation.getMessages().get(i));
            if (problem.isPresent()) {
                return problem;
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
        final String role = message.getRole().strip().toLowerCase(java.util.Locale.ROOT);
        if (!ROLES.contains(role)) {
            final String quoted = role.length() > ROLE_QUOTE_CHARS ? role.substring(0, ROLE_QUOTE_CHARS) + "…" : role;
            return Optional.of(where + " has the role '" + quoted + "', not one of " + String.join(", ", ROLES));
        }
        if (message.getContent() == null || message.getContent().isBlank()) {
            return Optional.of(where + " has no content (missing or blank)");
        }
        if (message.getContent().length() > maxMessageChars) {
            return Optional.of(where + " has " + message.getContent().length() + " characters, more than "
                + DomainConfig.MAX_MESSAGE_CHARS + "=" + maxMessageChars);
        }
        if (message.getTimestamp() == null || message.getTimestamp().toEpochMilli() < 0) {
            return Optional.of(where + " has a timestamp missing or before 1970");
        }
        return Optional.empty();
    }

    /**
     * @param conversation a valid conversation
     * @return U+FFFD characters and lone surrogates in its roles, contents and metadata
     */
    public static int replacements(final ConversationCompleted conversation) {
        int count = 0;
        for (final Message message : conversation.getMessages()) {
            count += replacements(message.getRole()) + replacements(message.getContent());
        }
        if (conversation.getMetadata() != null) {
            for (final Map.Entry<String, String> e : conversation.getMetadata().entrySet()) {
                count += replacements(e.getKey()) + replacements(e.getValue());
            }
        }
        return count;
    }

    private static int replacements(final String text) {
        if (text == null) {
            return 0;
        }
        // a lone surrogate becomes U+FFFD too: count each U+FFFD once
        return (int) dev.engram.core.Utf8Text.clean(text).text().chars()
            .filter(c -> c == dev.engram.core.Utf8Text.REPLACEMENT).count();
    }

    /**
     * @param text any text
     * @return true when it has a high surrogate not followed by a low one, a low surrogate not preceded by
     *     a high one, or U+FFFD
     */
    public static boolean malformed(final String text) {
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
