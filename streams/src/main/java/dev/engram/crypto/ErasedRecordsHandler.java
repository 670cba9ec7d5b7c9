package dev.engram.crypto;

import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;

/**
 * The deserialization handler of every Engram app: a record whose data key is erased
 * ({@link ErasedDataException}) is skipped and counted on {@value #METER} (tag {@code topic}), not
 * dead-lettered, since it is unreadable by design; every other failure is handled as before (logged,
 * dead-lettered with the reason, the stream goes on). Nothing about the record is logged.
 */
public final class ErasedRecordsHandler extends LogAndContinueExceptionHandler {

    /** Counter of records skipped because their user's data key is erased, tag {@code topic}. */
    public static final String METER = "engram.erased.records.skipped";

    @Override
    public Response handleError(final ErrorHandlerContext context, final ConsumerRecord<byte[], byte[]> record,
                                final Exception exception) {
        if (ErasedDataException.isErased(exception)) {
            Counter.builder(METER).description("Records of erased users skipped on read (unreadable by design)")
                .tag("topic", context.topic()).register(Metrics.globalRegistry).increment();
            return Response.resume();
        }
        return super.handleError(context, record, exception);
    }

    @Override
    public void configure(final Map<String, ?> configs) {
        super.configure(configs);
    }
}
