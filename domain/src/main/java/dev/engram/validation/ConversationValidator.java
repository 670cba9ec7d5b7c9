package dev.engram.validation;

import java.time.Instant;
import java.util.List;
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
 * <p>Event times ahead of the receiver ({@link #futureProblem}): a {@code completedAt} or message timestamp more than
 * {@code input.max.future.ms} after the wall clock of whoever checks it (the HTTP route, ingest, the extractor) is
 * refused. The record's event time is the consolidator's clock for every user of its partition, so one conversation
 * dated 9999 (a typo of 2062 for 2026, a client's wrong clock) would age all of them; the consolidator bounds its
 * lifecycle time the same way for what reaches it anyway. This is the one check that reads a wall clock, so it is
 * apart from {@link #problem}: a replay runs later than the live run, so what the live run accepted is accepted again;
 * only a conversation the live run refused can be accepted by a replay run after its date has passed.
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
    private final long maxFutureMs;

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
        this(maxMessages, maxMessageChars, maxRecordBytes, DomainConfig.DEFAULT_MAX_FUTURE_MS);
    }

    /**
     * @param maxMessages most messages a conversation may have, ≥ 1
     * @param maxMessageChars most characters one message may have, ≥ 1
     * @param maxRecordBytes largest serialized record, bytes ({@code input.max.record.bytes}: what ingest sends)
     * @param maxFutureMs how far after the receiver's wall clock an event time may lie, ms ({@code input.max.future.ms})
     */
    public ConversationValidator(final int maxMessages, final int maxMessageChars, final int maxRecordBytes,
                                 final long maxFutureMs) {
        this.maxMessages = maxMessages;
        this.maxMessageChars = maxMessageChars;
        this.maxRecordBytes = maxRecordBytes;
        this.maxFutureMs = maxFutureMs;
    }

    /**
     * @param config reads {@code input.max.messages}, {@code input.max.message.chars}, {@code input.max.record.bytes}
     *     and {@code input.max.future.ms}
     * @return a validator with the configured limits
     */
    public static ConversationValidator from(final ConfigValues config) {
        return new ConversationValidator(config.getInt(DomainConfig.MAX_MESSAGES),
            config.getInt(DomainConfig.MAX_MESSAGE_CHARS), config.getInt(CoreConfig.MAX_RECORD_BYTES),
            config.getLong(DomainConfig.MAX_FUTURE_MS));
    }

    /** @return how far after the receiver's wall clock an event time may lie, ms ({@code input.max.future.ms}) */
    public long maxFutureMs() {
        return maxFutureMs;
    }

    /**
     * Whether an event time of the conversation lies more than {@code input.max.future.ms} after the receiver's wall
     * clock: {@code completedAt} first (a message without a timestamp of its own takes it), then each message's
     * timestamp (each becomes the event time of the memories drawn from it).
     *
     * @param conversation a decoded conversation (missing times are {@link #problem}'s to report)
     * @param wallClockMs the receiver's wall-clock time now, ms since the epoch
     * @return why it is refused (the field, its value, the latest time accepted, the setting), or empty
     */
    public Optional<String> futureProblem(final ConversationCompleted conversation, final long wallClockMs) {
        return futureProblem(conversation, wallClockMs, maxFutureMs);
    }

    /**
     * {@link #futureProblem(ConversationCompleted, long)} with the bound given.
     *
     * @param conversation a decoded conversation
     * @param wallClockMs the receiver's wall-clock time now, ms since the epoch
     * @param maxFutureMs how far after it an event time may lie, ms ({@code input.max.future.ms})
     * @return why it is refused, or empty
     */
    public static Optional<String> futureProblem(final ConversationCompleted conversation, final long wallClockMs,
                                                 final long maxFutureMs) {
        final long latest = wallClockMs + maxFutureMs;
        if (conversation.getCompletedAt() != null && conversation.getCompletedAt().toEpochMilli() > latest) {
            return Optional.of(ahead("completedAt", conversation.getCompletedAt(), wallClockMs, maxFutureMs)
                + sameTimeAs(conversation));
        }
        if (conversation.getMessages() != null) {
            for (int i = 0; i < conversation.getMessages().size(); i++) {
                final Message message = conversation.getMessages().get(i);
                if (message != null && message.getTimestamp() != null && message.getTimestamp().toEpochMilli() > latest) {
                    return Optional.of(ahead("messages[" + i + "].timestamp", message.getTimestamp(), wallClockMs,
                        maxFutureMs));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Which message has {@code completedAt}'s time, when one has: a route fills a missing {@code completedAt} from the
     * last message's timestamp and a missing message timestamp from {@code completedAt}, so the sender may have set
     * only that message's (README trial: a message a day ahead without {@code completedAt} was reported as
     * {@code completedAt} alone).
     */
    private static String sameTimeAs(final ConversationCompleted conversation) {
        final List<Message> messages = conversation.getMessages() == null ? List.of() : conversation.getMessages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            final Message message = messages.get(i);
            if (message != null && conversation.getCompletedAt().equals(message.getTimestamp())) {
                return "; messages[" + i + "].timestamp has the same time (a message without a timestamp takes"
                    + " completedAt, and a conversation without completedAt takes its last message's timestamp)";
            }
        }
        return "";
    }

    private static String ahead(final String field, final Instant at, final long wallClockMs, final long maxFutureMs) {
        return field + " " + at + " lies ahead of this receiver's clock (" + Instant.ofEpochMilli(wallClockMs)
            + ") by more than " + DomainConfig.MAX_FUTURE_MS + "=" + maxFutureMs + " ms: the latest event time accepted"
            + " now is " + Instant.ofEpochMilli(wallClockMs + maxFutureMs) + " (an event time is when the conversation"
            + " happened; a date ahead would age the memories of every user of its partition)";
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
     * Whether a message index is negative or two messages share one: a memory's evidence names its messages by index,
     * so either would make it name the wrong message or two. Checked where a conversation comes in (the HTTP route and
     * MCP through it, {@code bin/engram ingest}), not by the extractor: records already on the topic replay as they were
     * taken (an index is never repaired, and what the extractor remembers does not change), so this is apart from
     * {@link #problem}.
     *
     * @param messages a conversation's messages, in order (null entries are {@link #problem}'s to report)
     * @return why they are refused, naming the positions ({@code messages[2].index 1 is also messages[1]'s: …}), or
     *     empty
     */
    public static Optional<String> indexProblem(final List<Message> messages) {
        if (messages == null) {
            return Optional.empty();
        }
        final Map<Integer, Integer> positions = new java.util.HashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            final Message message = messages.get(i);
            if (message == null) {
                continue;
            }
            if (message.getIndex() < 0) {
                return Optional.of("messages[" + i + "].index must not be negative (the message's position, from 0), was "
                    + message.getIndex());
            }
            final Integer other = positions.putIfAbsent(message.getIndex(), i);
            if (other != null) {
                return Optional.of("messages[" + i + "].index " + message.getIndex() + " is also messages[" + other
                    + "]'s: each message needs its own index (or leave index out: its position is taken)");
            }
        }
        return Optional.empty();
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
        return messagesProblem(conversation.getMessages());
    }

    /**
     * The checks of {@link #problem} on each message: a role of {@link #ROLES}, content neither missing nor blank nor
     * over the message size limit, a timestamp from 1970 on.
     *
     * @param messages a conversation's messages
     * @return why the first invalid message is invalid ("message 1 has the role 'robot', not one of …"), or empty
     */
    public Optional<String> messagesProblem(final List<Message> messages) {
        for (int i = 0; i < messages.size(); i++) {
            final Optional<String> problem = problem(i, messages.get(i));
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

    /**
     * The conversation with its messages' contents in the one form text is read in ({@link
     * dev.engram.core.Utf8Text#canonical}: NFC, format characters inside words removed), so that "Zu\u0308rich" and
     * "Zu\u200Brich" are read as the "Zürich" (or its spelling without accents) the user typed, whichever way the
     * conversation came in: the extractor's decoding applies it to every record of {@code conversations-completed},
     * which HTTP ingest, the ingest command and producers of the topic all write.
     *
     * @param conversation a decoded conversation
     * @return it with canonical message contents (the same instance when they already are)
     */
    public static ConversationCompleted canonical(final ConversationCompleted conversation) {
        List<Message> messages = null;
        for (int i = 0; i < conversation.getMessages().size(); i++) {
            final Message m = conversation.getMessages().get(i);
            final String content = dev.engram.core.Utf8Text.canonical(m.getContent());
            if (content != m.getContent() && messages == null) {
                messages = new java.util.ArrayList<>(conversation.getMessages());
            }
            if (messages != null) {
                messages.set(i, content == m.getContent() ? m : Message.newBuilder(m).setContent(content).build());
            }
        }
        return messages == null ? conversation
            : ConversationCompleted.newBuilder(conversation).setMessages(messages).build();
    }
}
