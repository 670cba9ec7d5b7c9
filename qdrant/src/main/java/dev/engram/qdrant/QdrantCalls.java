package dev.engram.qdrant;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import com.google.common.util.concurrent.ListenableFuture;
import dev.engram.port.VectorIndexUnavailableException;
import io.grpc.Status;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;

/**
 * How {@link QdrantVectorIndex} makes one gRPC call: the call's deadline ({@code qdrant.timeout.ms}),
 * bounded once more by the Future's own wait in case the deadline never fires; the gRPC status mapped to
 * {@link VectorIndexUnavailableException} (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED,
 * INTERNAL, CANCELLED: retry later) or {@link QdrantCallException} (any other code: a
 * retry does not fix it); every call timed in {@link QdrantMetrics} with its status.
 */
final class QdrantCalls {

    private static final Set<Status.Code> RETRIABLE = EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED,
        Status.Code.RESOURCE_EXHAUSTED, Status.Code.ABORTED, Status.Code.INTERNAL, Status.Code.CANCELLED);
    /** The Future's own bound, beyond the gRPC deadline, in case the deadline never fires. */
    private static final long FUTURE_SLACK_MS = 1000;

    private final QdrantClient client;
    private final String collection;
    private final Duration timeout;
    private final QdrantMetrics metrics;

    /**
     * @param client the connected client (its channel's connect backoff is reset after UNAVAILABLE)
     * @param collection the collection, named in error messages
     * @param timeout the deadline of every call
     * @param metrics where each call's time and status go
     */
    QdrantCalls(final QdrantClient client, final String collection, final Duration timeout, final QdrantMetrics metrics) {
        this.client = client;
        this.collection = collection;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    /**
     * A write asked with {@code wait=true}: the call, then its update status checked.
     *
     * @param operation the metric's and the errors' operation name
     * @param request starts the call
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now or did not complete the update
     * @throws QdrantCallException if Qdrant refused the call
     */
    void update(final String operation, final Supplier<ListenableFuture<UpdateResult>> request) {
        checkCompleted(operation, call(operation, request));
    }

    static void checkCompleted(final String operation, final UpdateResult result) {
        if (result.getStatus() != UpdateStatus.Completed) {
            // wait=true was asked: anything else means the change may not be searchable yet
            throw new VectorIndexUnavailableException(operation, result.getStatus().name(),
                "Qdrant " + operation + " was not completed: " + result.getStatus(), null);
        }
    }

    /**
     * @param operation the metric's and the errors' operation name
     * @param request starts the call
     * @param <T> the answer's type
     * @return the answer
     * @throws VectorIndexUnavailableException if Qdrant cannot answer now
     * @throws QdrantCallException if Qdrant refused the call
     */
    <T> T call(final String operation, final Supplier<ListenableFuture<T>> request) {
        final long start = System.nanoTime();
        try {
            final T result = request.get().get(timeout.toMillis() + FUTURE_SLACK_MS, TimeUnit.MILLISECONDS);
            metrics.record(operation, "OK", System.nanoTime() - start);
            return result;
        } catch (ExecutionException e) {
            final Status status = Status.fromThrowable(e.getCause());
            final String code = status.getCode().name();
            metrics.record(operation, code, System.nanoTime() - start);
            final String message = "Qdrant " + operation + " on collection '" + collection + "' failed: " + code
                + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
            if (status.getCode() == Status.Code.UNAVAILABLE) {
                // the caller paces its retries: let the next one reconnect now, not after gRPC's own backoff
                client.grpcClient().channel().resetConnectBackoff();
            }
            if (RETRIABLE.contains(status.getCode())) {
                throw new VectorIndexUnavailableException(operation, code, message, e.getCause());
            }
            throw new QdrantCallException(operation, code, message, e.getCause());
        } catch (TimeoutException e) {
            metrics.record(operation, Status.Code.DEADLINE_EXCEEDED.name(), System.nanoTime() - start);
            throw new VectorIndexUnavailableException(operation, Status.Code.DEADLINE_EXCEEDED.name(),
                "Qdrant " + operation + " did not answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            metrics.record(operation, Status.Code.CANCELLED.name(), System.nanoTime() - start);
            throw new VectorIndexUnavailableException(operation, Status.Code.CANCELLED.name(),
                "interrupted while waiting for Qdrant " + operation, e);
        }
    }
}
