package dev.engram.topology;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A consumed record as kept in {@link StoreNames#EXTRACTION_PENDING}: the original key, bytes, timestamp and headers,
 * and its source coordinates (for dead-letter headers after a restore).
 */
record PendingConversation(String key, byte[] value, long timestamp, Headers headers, String topic, int partition,
                long offset) {

    byte[] encode() {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
             DataOutputStream out = new DataOutputStream(bytes)) {
            writeNullable(out, key == null ? null : key.getBytes(StandardCharsets.UTF_8));
            writeNullable(out, value);
            out.writeLong(timestamp);
            out.writeUTF(topic);
            out.writeInt(partition);
            out.writeLong(offset);
            final Header[] all = headers.toArray();
            out.writeInt(all.length);
            for (final Header header : all) {
                out.writeUTF(header.key());
                writeNullable(out, header.value());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PendingConversation decode(final byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            final byte[] key = readNullable(in);
            final byte[] value = readNullable(in);
            final long timestamp = in.readLong();
            final String topic = in.readUTF();
            final int partition = in.readInt();
            final long offset = in.readLong();
            final int count = in.readInt();
            final Headers headers = new RecordHeaders();
            for (int i = 0; i < count; i++) {
                headers.add(in.readUTF(), readNullable(in));
            }
            return new PendingConversation(key == null ? null : new String(key, StandardCharsets.UTF_8), value, timestamp,
                headers, topic, partition, offset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeNullable(final DataOutputStream out, final byte[] bytes) throws IOException {
        out.writeInt(bytes == null ? -1 : bytes.length);
        if (bytes != null) {
            out.write(bytes);
        }
    }

    private static byte[] readNullable(final DataInputStream in) throws IOException {
        final int length = in.readInt();
        if (length < 0) {
            return null;
        }
        final byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
