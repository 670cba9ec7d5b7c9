package dev.engram.testing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;

/**
 * Test fixtures for {@code conversations-completed} records: a conversation built the way a chat platform
 * publishes it, from user and assistant turns ({@code {role, content, ISO-8601 time}}).
 */
public final class Conversations {

    private Conversations() {
    }

    /**
     * Builds a conversation the way a chat platform publishes it.
     *
     * @param tenant tenant
     * @param user user
     * @param conversationId conversation id
     * @param turns each turn is {role, content, ISO-8601 time}; completedAt is the last turn's time
     * @return the record
     */
    public static ConversationCompleted conversation(final String tenant, final String user,
                                                     final String conversationId, final String[]... turns) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < turns.length; i++) {
            messages.add(new Message(i, turns[i][0], turns[i][1], Instant.parse(turns[i][2])));
        }
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId(user)
            .setConversationId(conversationId).setMessages(messages)
            .setCompletedAt(messages.get(messages.size() - 1).getTimestamp()).build();
    }

    /**
     * @param content text
     * @param isoTime ISO-8601 instant
     * @return a user turn {role, content, time}
     */
    public static String[] user(final String content, final String isoTime) {
        return new String[] {"user", content, isoTime};
    }

    /**
     * @param content text
     * @param isoTime ISO-8601 instant
     * @return an assistant turn {role, content, time}
     */
    public static String[] assistant(final String content, final String isoTime) {
        return new String[] {"assistant", content, isoTime};
    }

    // ---------------------------------------------------------------- input
}
