package dev.engram.topology;

import java.util.Map;

import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The processing exception handler of every Engram app ({@link StreamsSettings}): a record that makes a processor
 * throw is set aside to {@code <application.id>-dlq} as it was read (the source record's raw key and value,
 * KIP-1034), with {@link DeadLetters}' header set (stage {@value DeadLetters#STAGE_PROCESSING}, the exception class
 * and message; no stack trace), counted on {@value DeadLetters#METER} of the app, and the stream goes on with the next
 * record. A failed punctuation has no record to set aside: it is logged and processing goes on.
 */
public final class DeadLetterProcessingHandler implements ProcessingExceptionHandler {

    private DeadLetters.FromHandler deadLetters;

    @Override
    public Response handleError(final ErrorHandlerContext context, final Record<?, ?> record, final Exception exception) {
        return Response.resume(deadLetters.records(context, context.sourceRawKey(), context.sourceRawValue(),
            DeadLetters.STAGE_PROCESSING, exception));
    }

    @Override
    public void configure(final Map<String, ?> configs) {
        deadLetters = DeadLetters.FromHandler.configure(configs);
    }
}
