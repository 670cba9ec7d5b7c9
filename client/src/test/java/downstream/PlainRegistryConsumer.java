package downstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A downstream service's consumer written with nothing of Engram: Kafka's consumer, Apache Avro's generic reader,
 * and the Confluent Schema Registry REST API ({@code GET /schemas/ids/{id}}). It reads a record in the registry wire
 * format (magic byte 0, 4-byte big-endian schema id, Avro binary), fetches the writer schema by id and decodes it,
 * resolved to its own reader schema when it has one (a consumer built against an older schema), else to the writer
 * schema. This package imports no {@code dev.engram} class ({@code RegistryConsumerIT} checks the source).
 */
public final class PlainRegistryConsumer implements AutoCloseable {

    private final String registryUrl;
    private final Schema readerSchema;
    private final KafkaConsumer<String, byte[]> consumer;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final Map<Integer, Schema> writers = new ConcurrentHashMap<>();

    /**
     * @param bootstrapServers the cluster
     * @param registryUrl the schema registry
     * @param topic the topic to read from the beginning
     * @param readerSchema the consumer's own schema, or null to read with each record's writer schema
     */
    public PlainRegistryConsumer(final String bootstrapServers, final String registryUrl, final String topic,
                                 final Schema readerSchema) {
        this.registryUrl = registryUrl;
        this.readerSchema = readerSchema;
        this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.GROUP_ID_CONFIG, "downstream-" + topic + "-" + System.nanoTime(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
    }

    /**
     * @param atLeast how many records to wait for
     * @param timeout how long at most
     * @return the records read, decoded
     */
    public List<GenericRecord> read(final int atLeast, final Duration timeout) {
        final List<GenericRecord> out = new ArrayList<>();
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < atLeast && System.nanoTime() < deadline) {
            for (final ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                out.add(decode(record.value()));
            }
        }
        return out;
    }

    /**
     * @param value a record value in the registry wire format
     * @return the decoded record
     * @throws IllegalArgumentException if the value is not in the wire format
     */
    public GenericRecord decode(final byte[] value) {
        if (value == null || value.length < 5 || value[0] != 0) {
            throw new IllegalArgumentException("not in the schema registry wire format");
        }
        final int id = ByteBuffer.wrap(value, 1, 4).getInt();
        final Schema writer = writers.computeIfAbsent(id, this::fetch);
        try {
            return new GenericDatumReader<GenericRecord>(writer, readerSchema == null ? writer : readerSchema)
                .read(null, DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param id a schema id
     * @return the schema the registry has under that id
     */
    public Schema fetch(final int id) {
        try {
            final HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(registryUrl + "/schemas/ids/" + id))
                .header("Accept", "application/vnd.schemaregistry.v1+json").build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("registry answered " + response.statusCode() + ": " + response.body());
            }
            return new Schema.Parser().parse(json.readTree(response.body()).get("schema").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
