package dev.engram.topology;

import java.nio.ByteBuffer;

import dev.engram.scoring.AccessCounts;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The value Serde of the access stores ({@link StoreNames#ACCESS}, {@link StoreNames#RETRIEVER_ACCESS}): an
 * {@link AccessCounts} as 12 bytes, the hits (int) then the latest access time (long, epoch ms), big-endian. Ids and
 * counts only, like {@code memory-access} itself, so it is never sealed.
 */
final class AccessCountsSerde {

    /** Bytes of one value. */
    static final int BYTES = Integer.BYTES + Long.BYTES;

    private AccessCountsSerde() {
    }

    /**
     * @return the Serde; a value of another length than {@value #BYTES} bytes fails with a
     *     {@link SerializationException} naming its length
     */
    static Serde<AccessCounts> serde() {
        final Serializer<AccessCounts> serializer = (topic, value) -> value == null ? null
            : ByteBuffer.allocate(BYTES).putInt(value.hits()).putLong(value.lastAccessedAt()).array();
        final Deserializer<AccessCounts> deserializer = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            if (bytes.length != BYTES) {
                throw new SerializationException("An access count of " + bytes.length + " bytes: " + BYTES + " expected");
            }
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            return new AccessCounts(buffer.getInt(), buffer.getLong());
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }
}
