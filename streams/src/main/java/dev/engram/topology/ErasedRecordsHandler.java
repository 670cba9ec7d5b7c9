package dev.engram.topology;

import java.util.Map;

import dev.engram.config.KafkaConnection;
import dev.engram.topology.DeadLetters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import dev.engram.crypto.ErasedDataException;

/**
 * The deserialization handler of every Engram app: a record whose data key is erased
 * ({@link ErasedDataException}) is skipped and counted on {@value #METER} (tag {@code topic}), not
 * dead-lettered, since it is unreadable by design; every other failure is dead-lettered with the reason
 * ({@link DeadLetters.FromHandler}: the {@code engram.error.*} and {@code __streams.errors.*} headers, stage
 * {@code deserialization}, no stack trace), counted on {@code engram.dead.letters}, and the stream goes on. Nothing
 * of the record's content is logged. Both counters go to the app's registry
 * ({@link KafkaConnection#METER_REGISTRY_CONFIG}).
 */
public final class ErasedRecordsHandler implements DeserializationExceptionHandler {

    /** Counter of records skipped because their user's data key is erased, tag {@code topic}. */
    public static final String METER = "engram.erased.records.skipped";

    private MeterRegistry registry = Metrics.globalRegistry;
    private DeadLetters.FromHandler deadLetters;

    @Override
    public Response handleError(final ErrorHandlerContext context, final ConsumerRecord<byte[], byte[]> record,
                                final Exception exception) {
        if (ErasedDataException.isErased(exception)) {
            Counter.builder(METER).description("Records of erased users skipped on read (unreadable by design)")
                .tag("topic", context.topic()).register(registry).increment();
            return Response.resume();
        }
        return Response.resume(deadLetters.records(context, record.key(), record.value(),
            DeadLetters.STAGE_DESERIALIZATION, exception));
    }

    @Override
    public void configure(final Map<String, ?> configs) {
        if (configs.get(KafkaConnection.METER_REGISTRY_CONFIG) instanceof MeterRegistry r) {
            registry = r;
        }
        deadLetters = DeadLetters.FromHandler.configure(configs);
    }
}
