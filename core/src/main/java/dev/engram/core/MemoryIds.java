package dev.engram.core;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Deterministic identities. Replaying a topic produces the same ids, so writes to compacted topics,
 * state stores and Qdrant are idempotent.
 *
 * <p>All ids are name-based (type 3) UUIDs over NUL-separated parts.
 */
public final class MemoryIds {

    /** Compiled once: these run per memory and per candidate (String#replaceAll compiles its pattern at every call). */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[\\p{Punct}\\s]+$");
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");

    private MemoryIds() {
    }

    /**
     * Id of a candidate, and of the memory created from it.
     *
     * @param tenantId tenant
     * @param userId user
     * @param conversationId the conversation it came from
     * @param content the memory text; normalized by {@link #normalize(String)} first
     * @return a UUID string
     */
    public static String candidateId(final String tenantId, final String userId, final String conversationId,
                                     final String content) {
        return uuid("candidate", tenantId, userId, conversationId, normalize(content));
    }

    /**
     * Id of one {@code memory-updated} event.
     *
     * @param memoryId the memory changed
     * @param operation the UpdateOperation name
     * @param cause what caused it, e.g. {@code candidate:<id>}
     * @return a UUID string
     */
    public static String eventId(final String memoryId, final String operation, final String cause) {
        return uuid("event", memoryId, operation, cause);
    }

    /**
     * Normalizes text for identity and exact comparison: Unicode NFKC, lower case (ROOT), runs of
     * whitespace collapsed, trailing punctuation trimmed.
     *
     * @param text any text
     * @return the normalized text, never null
     */
    public static String normalize(final String text) {
        if (text == null) {
            return "";
        }
        final String nfkc = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        return TRAILING_PUNCTUATION.matcher(WHITESPACE.matcher(nfkc).replaceAll(" ").strip()).replaceAll("");
    }

    /**
     * Text as two values are compared for sameness: {@link #normalize} (NFKC, lower case, whitespace runs as one space,
     * trailing punctuation dropped) without accents ({@link #withoutAccents}), so "São Paulo", "Sao Paulo" and
     * "SÃO PAULO" fold to "sao paulo". The one comparison of the correction route (a content naming its value) and of
     * the consolidator (a restatement of a fact's value reinforces it).
     *
     * @param text any text, or null
     * @return the folded text, never null
     */
    public static String fold(final String text) {
        return withoutAccents(normalize(text));
    }

    /**
     * @param text any text, or null
     * @return the text without combining marks after canonical decomposition ("Zürich" → "Zurich"), composed again
     *     (NFC), letter case kept; null stays null
     */
    public static String withoutAccents(final String text) {
        if (text == null || text.chars().allMatch(c -> c < 0xC0)) {
            return text; // ASCII and Latin-1 symbols: no letter with an accent
        }
        return Normalizer.normalize(MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFD)).replaceAll(""),
            Normalizer.Form.NFC);
    }

    /**
     * @param parts the name parts
     * @return the name-based UUID of the parts joined by NUL
     */
    public static String uuid(final String... parts) {
        return UUID.nameUUIDFromBytes(String.join("\u0000", parts).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * The messages a memory cites, one key per message: {@code <conversationId>#<message index>}, so that two
     * memories citing the same message of the same conversation share a key.
     *
     * @param memory a memory
     * @return the keys of every message its sources name (empty without sources)
     */
    public static java.util.Set<String> citedMessages(final dev.engram.avro.Memory memory) {
        final java.util.Set<String> out = new java.util.HashSet<>();
        for (final dev.engram.avro.SourceRef ref : memory.getSources()) {
            for (final Integer index : ref.getMessageIndexes()) {
                out.add(ref.getConversationId() + "#" + index);
            }
        }
        return out;
    }
}
