package dev.engram.topology;

import java.util.Optional;
import java.util.function.LongSupplier;

import dev.engram.avro.ConversationCompleted;
import dev.engram.privacy.PiiFilter;
import dev.engram.topics.Topic;
import dev.engram.validation.ConversationValidator;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The extractor's way from a consumed {@code conversations-completed} value (bytes in the topic's format) to a
 * conversation it may extract: secrets redacted from the bytes before they are kept anywhere
 * ({@link #withoutSecrets}), then decoded, validated ({@link ConversationValidator}) and put in canonical text form
 * ({@link #decode}); what fails is a {@link RejectedConversation} naming its dead-letter stage. Used on the stream
 * thread of one {@link ExtractMemoriesProcessor}: the serdes are that processor's.
 */
final class ConversationDecoder {

    private final ConversationValidator validator;
    private final PiiFilter pii;
    private final ExtractionMeters counters;
    private final Deserializer<ConversationCompleted> deserializer;
    private final Serializer<ConversationCompleted> serializer;

    /**
     * @param validator the extractor's validator (size, content, time)
     * @param pii the filter whose {@link PiiFilter#withoutSecrets} redacts the consumed value
     * @param counters the extractor's meters ({@link ExtractionMeters#replaced} counts U+FFFD characters)
     * @param deserializer the value deserializer of {@code conversations-completed}
     * @param serializer its serializer (re-encodes a redacted value)
     */
    ConversationDecoder(final ConversationValidator validator, final PiiFilter pii, final ExtractionMeters counters,
                        final Deserializer<ConversationCompleted> deserializer,
                        final Serializer<ConversationCompleted> serializer) {
        this.validator = validator;
        this.pii = pii;
        this.counters = counters;
        this.deserializer = deserializer;
        this.serializer = serializer;
    }

    /**
     * The record's value with the secrets of its messages redacted ({@link PiiFilter#withoutSecrets}, re-encoded in
     * the topic's format), so that neither the pending store's changelog nor a dead letter keeps a secret: Engram's
     * own topics never hold one, sealed or not. The value as read when it holds none or does not decode (a dead
     * letter then, as it came).
     *
     * @param bytes the consumed value, or null (a tombstone)
     * @return the value without secrets; {@code bytes} itself when there is nothing to redact
     */
    byte[] withoutSecrets(final byte[] bytes) {
        if (bytes == null || validator.sizeProblem(bytes.length).isPresent()) {
            return bytes;
        }
        try {
            final ConversationCompleted conversation = deserializer.deserialize(Topic.CONVERSATIONS_COMPLETED.name(), bytes);
            final ConversationCompleted clean = pii.withoutSecrets(conversation);
            return clean == conversation ? bytes : serializer.serialize(Topic.CONVERSATIONS_COMPLETED.name(), clean);
        } catch (RuntimeException e) {
            return bytes; // decode() rejects it with the reason
        }
    }

    /**
     * Decodes and validates a consumed value on the stream thread: size, format, the validator's problems (also a
     * time ahead of the wall clock), then counts the U+FFFD replacements and returns the canonical text form.
     *
     * @param bytes the consumed value (after {@link #withoutSecrets}), or null (a tombstone)
     * @param now the wall clock, epoch ms (the processor's {@code currentSystemTimeMs}), read only when the
     *     conversation is otherwise valid
     * @return the conversation in canonical form ({@link ConversationValidator#canonical})
     * @throws RejectedConversation a tombstone or undecodable value (stage {@code deserialization}), too large or
     *     invalid (stage {@code validation})
     */
    ConversationCompleted decode(final byte[] bytes, final LongSupplier now) throws RejectedConversation {
        if (bytes == null) {
            throw new RejectedConversation(DeadLetters.STAGE_DESERIALIZATION, "null", "null value (tombstone) on "
                + Topic.CONVERSATIONS_COMPLETED.name());
        }
        final Optional<String> tooLarge = validator.sizeProblem(bytes.length);
        if (tooLarge.isPresent()) {
            throw new RejectedConversation(DeadLetters.STAGE_VALIDATION, "validation", tooLarge.get());
        }
        final ConversationCompleted conversation;
        try {
            conversation = deserializer.deserialize(Topic.CONVERSATIONS_COMPLETED.name(), bytes);
        } catch (RuntimeException e) {
            throw new RejectedConversation(DeadLetters.STAGE_DESERIALIZATION, e.getClass().getName(),
                undecodable(bytes, e.getMessage()));
        }
        // a time ahead of this wall clock would move the consolidator's lifecycle time for its whole partition; a
        // replay runs later, so what the live run accepted it accepts again (ConversationValidator#futureProblem)
        final Optional<String> problem = validator.problem(conversation)
            .or(() -> validator.futureProblem(conversation, now.getAsLong()));
        if (problem.isPresent()) {
            throw new RejectedConversation(DeadLetters.STAGE_VALIDATION, "validation", problem.get());
        }
        // invalid UTF-8 in text was replaced by U+FFFD when decoding (as ingest and the HTTP API do): count it
        counters.replaced().increment(ConversationValidator.replacements(conversation));
        // one text form on every way in: NFC, no zero-width characters inside words ("Zu\u0308rich" is "Zürich")
        return ConversationValidator.canonical(conversation);
    }

    /**
     * The dead-letter reason of a value that does not decode. JSON written straight to the topic (Kafka's console
     * producer, a Python or Node client without Avro) failed with Avro's bare "Unrecognized header bytes: 0x7B 0x22";
     * such a value is now named as JSON with the two ways that take it.
     *
     * @param bytes the consumed value
     * @param message the deserializer's message
     * @return {@code message}, preceded by what to do when the value looks like JSON
     */
    static String undecodable(final byte[] bytes, final String message) {
        return undecodable(bytes, message, Topic.CONVERSATIONS_COMPLETED.name(), "ConversationCompleted",
            "sends the JSON to POST /v1/tenants/{tenant}/users/{user}/conversations or runs bin/engram ingest");
    }

    /**
     * The dead-letter reason of a value of any Engram topic that does not decode: the same words for JSON on
     * {@code memory-commands} as on {@code conversations-completed} (session 15 trial: the consolidator's dead letter
     * said only "Unrecognized header bytes: 0x7B 0x22").
     *
     * @param bytes the consumed value
     * @param message the deserializer's message
     * @param topic the topic's name
     * @param record the Avro record the topic takes ("MemoryCommand")
     * @param instead what a client without Avro does instead ("sends … to …")
     * @return {@code message}, preceded by what to do when the value looks like JSON
     */
    static String undecodable(final byte[] bytes, final String message, final String topic, final String record,
                              final String instead) {
        final int first = bytes == null ? -1 : firstNonBlank(bytes);
        if (first != '{' && first != '[') {
            return message;
        }
        return "the value looks like JSON (it starts with '" + (char) first + "'), not Avro: "
            + topic + " takes a " + record + " in Avro single-object encoding"
            + " (C3 01, the schema fingerprint, the binary body; the schemas: bin/engram schemas export DIR) or in the"
            + " schema registry wire format (serde.format=registry); a client without Avro " + instead + " (" + message + ")";
    }

    /** @return the first byte that is not JSON white space or a UTF-8 byte order mark, or -1 */
    private static int firstNonBlank(final byte[] bytes) {
        int i = bytes.length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF ? 3 : 0;
        while (i < bytes.length && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) {
            i++;
        }
        return i < bytes.length ? bytes[i] : -1;
    }
}
