package dev.engram.topology;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The retrieval hits of one memory not applied yet ({@link Stores#ACCESS_PENDING}): how many, the stream time at
 * which they are due, the latest access time (event time, ms) and the id of the latest {@code memory-access} record
 * that listed it. Ids and counts only, like {@code memory-access} itself, so it is never sealed.
 *
 * @param hits hits so far, ≥ 1
 * @param dueAt stream time (epoch ms) from which they are applied: the first hit's stream time plus the interval
 * @param lastAccessedAt the latest access time among them, epoch ms
 * @param cause the cause of the change that will apply them ({@code access:<record id>} of the latest record)
 */
record PendingAccess(int hits, long dueAt, long lastAccessedAt, String cause) {

    private static final int FIXED_BYTES = Integer.BYTES + 2 * Long.BYTES;

    /**
     * @param more hits of a later record
     * @param at its access time, epoch ms
     * @param laterCause its cause
     * @return these hits and the record's together (due as before; the latest time; the record's cause)
     */
    PendingAccess plus(final int more, final long at, final String laterCause) {
        return new PendingAccess(hits + more, dueAt, Math.max(lastAccessedAt, at), laterCause);
    }

    /** @return the store's value Serde: hits (int), due and access time (longs), the cause's UTF-8 bytes */
    static Serde<PendingAccess> serde() {
        final Serializer<PendingAccess> serializer = (topic, value) -> {
            if (value == null) {
                return null;
            }
            final byte[] cause = value.cause().getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(FIXED_BYTES + cause.length)
                .putInt(value.hits()).putLong(value.dueAt()).putLong(value.lastAccessedAt()).put(cause).array();
        };
        final Deserializer<PendingAccess> deserializer = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            if (bytes.length < FIXED_BYTES) {
                throw new SerializationException("A pending access of " + bytes.length + " bytes: at least "
                    + FIXED_BYTES + " expected");
            }
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            final int hits = buffer.getInt();
            final long due = buffer.getLong();
            final long at = buffer.getLong();
            return new PendingAccess(hits, due, at,
                new String(bytes, buffer.position(), buffer.remaining(), StandardCharsets.UTF_8));
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }
}
