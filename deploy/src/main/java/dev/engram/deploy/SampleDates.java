package dev.engram.deploy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.stack.ConversationSources;

/**
 * The shipped sample's dates moved to the demo's run: every timestamp of every conversation forward by the same whole
 * number of days, so that the latest conversation lands within the day before the demo started.
 *
 * <p>Why: reads and writes of the API are stamped with the wall clock (a read reports its hits on
 * {@code memory-access} as a use of those memories, which keeps them from going stale; a correction is a command
 * issued now), and the consolidator's clock is event time. With the sample's own dates (early 2025) the first read
 * moved that clock to today and the next lifecycle pass archived and deleted what months of disuse would. Moved, the
 * sample's history ends "now": its intervals (a fact restated two weeks later, a move three weeks after) are kept,
 * whole days keep each turn's weekday and time of day, and relative dates in the text ("last week") are read against
 * the moved timestamps, so the memories are the ones the original dates give, dated this year.
 */
final class SampleDates {

    private SampleDates() {
    }

    /**
     * @param file a conversation file
     * @param now the demo's start
     * @return the whole days to add so that the file's latest timestamp is in {@code (now − 1 day, now]}; zero when it
     *     is already not older than a day (or in the future), or when the file has no timestamp
     * @throws IOException if the file cannot be read
     */
    static Duration offset(final Path file, final Instant now) throws IOException {
        final Instant[] latest = {null};
        ConversationSources.read(file, conversation -> {
            final Instant last = latest(conversation);
            if (last != null && (latest[0] == null || last.isAfter(latest[0]))) {
                latest[0] = last;
            }
        });
        return latest[0] == null ? Duration.ZERO : offset(latest[0], now);
    }

    /**
     * @param latest the latest timestamp of the input
     * @param now the demo's start
     * @return whole days, ≥ 0, that move {@code latest} into {@code (now − 1 day, now]}
     */
    static Duration offset(final Instant latest, final Instant now) {
        return latest.isAfter(now) ? Duration.ZERO : Duration.ofDays(Duration.between(latest, now).toDays());
    }

    /**
     * @param offset what to add to every timestamp
     * @return a function giving a conversation with {@code completedAt} and every message's timestamp moved
     */
    static UnaryOperator<ConversationCompleted> shift(final Duration offset) {
        if (offset.isZero()) {
            return UnaryOperator.identity();
        }
        return conversation -> {
            final List<Message> messages = new ArrayList<>(conversation.getMessages().size());
            for (final Message message : conversation.getMessages()) {
                // field by field: Avro's copy builders deep-copy through a class check of their own
                messages.add(Message.newBuilder().setIndex(message.getIndex()).setRole(message.getRole())
                    .setContent(message.getContent()).setTimestamp(plus(message.getTimestamp(), offset)).build());
            }
            return ConversationCompleted.newBuilder().setTenantId(conversation.getTenantId())
                .setUserId(conversation.getUserId()).setConversationId(conversation.getConversationId())
                .setMessages(messages).setCompletedAt(plus(conversation.getCompletedAt(), offset))
                .setMetadata(conversation.getMetadata()).build();
        };
    }

    /**
     * Tells the demo's user that the dates were moved, when they were.
     *
     * @param offset the shift applied
     * @param out the demo's console
     */
    static void describe(final Duration offset, final java.io.PrintStream out) {
        if (!offset.isZero()) {
            out.printf("Sample dates moved forward %d days: its last conversation is from the 24 hours before now, so reading it "
                + "(a read counts as a use, stamped now) ages nothing (--original-dates keeps them)%n", offset.toDays());
        }
    }

    private static Instant latest(final ConversationCompleted conversation) {
        Instant latest = conversation.getCompletedAt();
        for (final Message message : conversation.getMessages()) {
            if (message.getTimestamp() != null && (latest == null || message.getTimestamp().isAfter(latest))) {
                latest = message.getTimestamp();
            }
        }
        return latest;
    }

    private static Instant plus(final Instant at, final Duration offset) {
        return at == null ? null : at.plus(offset);
    }
}
