package dev.engram.consolidation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import dev.engram.text.CaselessPattern;

/**
 * Echoes are not evidence: the assistant restating what the user said ("As you told me, you're vegetarian and live
 * in Paris") is never a source for a user fact, never reinforces one and is never presented as the user's. Applied
 * to any extractor's output, with the conversation's roles at hand:
 * <ul>
 *   <li>a fact (SEMANTIC or PROCEDURAL) whose source messages are all the assistant's is dropped: facts about the
 *       user come from the user's own words; so is a fact whose value only a cited echo names, none of its cited user
 *       messages (a model citing the user's question and the assistant's "as you told me, you live in Paris" for
 *       "Lives in Paris": the value is the assistant's);</li>
 *   <li>an episode (not a conversation summary) citing an assistant message that is an echo ({@link #isEcho}) is
 *       dropped: an exchange would serve the assistant's restatement, possibly wrong, as what was said about the
 *       user; the user's own turn keeps its own memories.</li>
 * </ul>
 * An echo is a sentence of the assistant attributing a statement to the user: "as/like you told me / said /
 * mentioned", "you told me / said / mentioned …", or a second-person state after a causal connective ("since you
 * live in Leeds", "because you're vegan", "given that you work at …"), a sentence opening with the user's state
 * ("You live in Berlin, so …", "Sure! You live in Madrid and you work at Oracle"), also after an acknowledgement
 * ("Noted: you work at SAP and you are allergic to peanuts", "Got it, you're allergic to peanuts"), or the user's fact as an apposition
 * ("As a Berlin resident, …"). Recommendations ("you should try …") are not
 * echoes. Pure, deterministic.
 */
public final class Echoes {

    private static final String ASSISTANT = "assistant";
    private static final String USER = "user";
    private static final CaselessPattern ECHO = CaselessPattern.compile(
        "\\b(?:as|like)\\s+you(?:'ve|\\s+have)?\\s+(?:told|said|mentioned|shared|noted|explained)\\b"
            + "|\\byou(?:'ve|\\s+have)?\\s+(?:told\\s+me|said|mentioned|shared|noted)\\b"
            + "|\\b(?:since|because|given(?:\\s+that)?|as|now\\s+that)\\s+you(?:'re|\\s+are|\\s+live|\\s+work|\\s+have|'ve"
            + "|\\s+eat|\\s+use|\\s+moved|\\s+were)\\b"
            // a sentence that opens by stating the user's life to them: "You live in Berlin, so …", "Sure! You live in
            // Madrid and you work at Oracle", "You're vegan, so …"
            // "Noted: you work at SAP …", "Got it, you're allergic to peanuts": the acknowledgement of a claim it makes
            + "|(?:^|(?<=[.!?]\\s{0,3}))\\s*(?:(?:noted|got\\s+it|okay|ok|understood|so|right)\\s*[:,.!\u2014-]?\\s*)?"
            + "you(?:\\s+(?:live|work|moved|eat)\\s|(?:'re|\\s+are)\\s+(?:based\\s|allergic\\b|(?:an?\\s+)?"
            + "(?:vegan|vegetarian)\\b))"
            // the user's fact as an apposition: "As a Berlin resident, …", "As a vegan, …"
            + "|\\bas\\s+an?\\s+(?:[\\p{L}-]+\\s+){0,2}(?:resident|local|native|vegan|vegetarian)\\b"
            + "|你(?:说过|提到过|告诉过我)|正如你(?:说|所说)");

    private Echoes() {
    }

    /**
     * @param text a message of the assistant
     * @return whether it restates something as the user's (see the class comment)
     */
    public static boolean isEcho(final String text) {
        return text != null && ECHO.matcher(text).find();
    }

    /**
     * @param conversation the conversation the memories were extracted from
     * @param extracted the extractor's memories
     * @return them without the ones an echo or the assistant alone is the source of, in order
     */
    public static List<ExtractedMemory> withoutEchoes(final ConversationCompleted conversation,
                                                      final List<ExtractedMemory> extracted) {
        final List<ExtractedMemory> out = new ArrayList<>(extracted.size());
        for (final ExtractedMemory memory : extracted) {
            if (!fromEcho(conversation, memory)) {
                out.add(memory);
            }
        }
        return out.size() == extracted.size() ? extracted : out;
    }

    private static boolean fromEcho(final ConversationCompleted conversation, final ExtractedMemory memory) {
        if (memory.sourceMessageIndexes().isEmpty() || ExtractedMemory.isSummary(memory.type(), memory.displayName())) {
            return false;
        }
        boolean user = false;
        boolean echo = false;
        boolean userNamesValue = false;
        boolean echoNamesValue = false;
        final String value = memory.value();
        for (final Integer index : memory.sourceMessageIndexes()) {
            final Message message = message(conversation, index);
            if (message == null) {
                return false; // an index the extractor made up: nothing to say about it here
            }
            final String role = message.getRole().strip().toLowerCase(Locale.ROOT);
            final boolean isEcho = ASSISTANT.equals(role) && isEcho(message.getContent());
            user |= USER.equals(role);
            echo |= isEcho;
            if (value != null && !value.isBlank()) {
                userNamesValue |= USER.equals(role) && Outdated.states(message.getContent(), value);
                echoNamesValue |= isEcho && Outdated.states(message.getContent(), value);
            }
        }
        return memory.type() == MemoryType.EPISODIC ? echo : !user || echoNamesValue && !userNamesValue;
    }

    private static Message message(final ConversationCompleted conversation, final int index) {
        for (final Message m : conversation.getMessages()) {
            if (m.getIndex() == index) {
                return m;
            }
        }
        return null;
    }
}
