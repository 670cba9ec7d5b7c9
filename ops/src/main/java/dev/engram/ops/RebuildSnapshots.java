package dev.engram.ops;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.engram.avro.MemoryUpdated;
import dev.engram.stack.MemoryStateTail;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A {@link Rebuild}'s two reads of {@code memory-updated}, made beside the reset and the rebuilt apps instead of before
 * and after them (each was a second or so of a LoCoMo-sized rebuild: the topic folded while nothing else ran):
 *
 * <ul>
 *   <li><b>before</b>: the topic up to the last stable offsets taken before anything was reset
 *       ({@link MemorySnapshot#between}), on a thread of its own, so what the rebuilt consolidator appends meanwhile is
 *       not part of it; {@code before.json} is written as soon as it is read, so it is there for
 *       {@code bin/engram verify --before} even when the rebuild fails later;</li>
 *   <li><b>appended</b> (a consolidator rebuild's state after): what the rebuilt consolidator appends from those
 *       offsets on, folded as it is written ({@link MemoryStateTail}); once the consolidator is done only the rest is
 *       read.</li>
 * </ul>
 */
final class RebuildSnapshots implements AutoCloseable {

    private final CompletableFuture<MemorySnapshot> before;
    private final MemoryStateTail appended;
    private final Path beforeFile;
    private final Duration timeout;

    private RebuildSnapshots(final CompletableFuture<MemorySnapshot> before, final MemoryStateTail appended,
                             final Path beforeFile, final Duration timeout) {
        this.before = before;
        this.appended = appended;
        this.beforeFile = beforeFile;
        this.timeout = timeout;
    }

    /**
     * Starts reading.
     *
     * @param client consumer properties with at least {@code bootstrap.servers}
     * @param end where {@code memory-updated} ended before the rebuild (per partition, exclusive)
     * @param timeout how long each read may take at most
     * @param decoders the deployment's MemoryUpdated deserializers (one per reader)
     * @param beforeFile where the state before is written ({@code before.json})
     * @param tailAppended whether to fold what is appended after {@code end} too (a consolidator rebuild)
     * @return the reads under way
     */
    static RebuildSnapshots start(final Map<String, Object> client, final Map<TopicPartition, Long> end,
                                  final Duration timeout, final Supplier<Deserializer<MemoryUpdated>> decoders,
                                  final Path beforeFile, final boolean tailAppended) {
        final CompletableFuture<MemorySnapshot> read = new CompletableFuture<>();
        final Deserializer<MemoryUpdated> decoder = decoders.get();
        final Thread reader = new Thread(() -> {
            try {
                final MemorySnapshot state = MemorySnapshot.between(client, null, end, timeout, decoder);
                state.write(beforeFile);
                read.complete(state);
            } catch (RuntimeException | Error e) {
                read.completeExceptionally(e);
            }
        }, "engram-topic-scan-before");
        reader.setDaemon(true);
        reader.start();
        final MemoryStateTail tail = tailAppended
            ? MemoryStateTail.start(client, end, decoders.get(), "engram-topic-scan-after") : null;
        return new RebuildSnapshots(read, tail, beforeFile, timeout);
    }

    /**
     * Waits for the state before and tells it.
     *
     * @param out where its summary is printed
     * @return the state before
     * @throws IllegalStateException if it could not be read within the timeout
     */
    MemorySnapshot before(final PrintStream out) {
        final MemorySnapshot state;
        try {
            state = before.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the state before", e);
        } catch (ExecutionException | TimeoutException e) {
            final Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("The state before (memory-updated up to its end at the start) was not read: "
                + cause, cause);
        }
        out.printf("Before: %s (%,d memory-updated events); written to %s%n", state.summary(), state.events(), beforeFile);
        return state;
    }

    /**
     * @param ends the last stable offsets of {@code memory-updated} once the rebuilt consolidator is done
     * @return the fold of what was appended after the rebuild's start offsets up to those ends
     * @throws IllegalStateException if the tail was not started, or could not read to the ends within the timeout
     */
    MemorySnapshot appended(final Map<TopicPartition, Long> ends) {
        if (appended == null) {
            throw new IllegalStateException("not following what the rebuild appends");
        }
        final var state = appended.readTo(ends, timeout);
        return MemorySnapshot.of(state.events(), state.memories());
    }

    @Override
    public void close() {
        if (appended != null) {
            appended.close();
        }
    }
}
