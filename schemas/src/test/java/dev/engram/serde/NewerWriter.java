package dev.engram.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** For schema-evolution tests: a writer of a later release, with a changed schema, in the registry wire format. */
public final class NewerWriter {

    private NewerWriter() {
    }

    /**
     * @param schema a record schema
     * @param fieldJson one more field, as Avro JSON
     * @return the schema with that field appended
     */
    public static Schema withField(final Schema schema, final String fieldJson) {
        try {
            final ObjectMapper json = new ObjectMapper();
            final ObjectNode node = (ObjectNode) json.readTree(schema.toString());
            node.withArray("fields").add(json.readTree(fieldJson));
            return new Schema.Parser().parse(node.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param id the schema's registry id
     * @param schema the writer schema
     * @param record a record of that schema
     * @return magic byte 0, the id (4 bytes, big-endian), the Avro binary body
     */
    public static byte[] wire(final int id, final Schema schema, final GenericRecord record) {
        try {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(id).array());
            final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
