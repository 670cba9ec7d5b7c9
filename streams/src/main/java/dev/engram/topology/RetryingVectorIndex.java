package dev.engram.topology;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.engram.avro.Memory;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import dev.engram.port.VectorIndexUnavailableException;
import dev.engram.streams.PipelineConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consolidator's guard around its {@link VectorIndex}: a call that fails with
 * {@link VectorIndexUnavailableException} never lets the task move past the record.
 *
 * <ol>
 *   <li>It is retried in place with exponential backoff (100 ms doubling to 1.6 s) for at most
 *       {@code qdrant.retry.budget.ms} (default 5 s). That budget stays below the 10 s transaction
 *       timeout Kafka Streams gives its exactly-once producer and far below
 *       {@code max.poll.interval.ms}, so a short outage costs a pause and nothing else.</li>
 *   <li>When the budget is spent, it throws Kafka Streams' {@link TaskMigratedException} (the outage
 *       as its cause). Streams rethrows that exception past the processing exception handler (it is
 *       neither logged-and-skipped nor fatal) and handles it in the stream thread: every task of the
 *       thread is closed dirty (under exactly-once the open transaction is aborted with a fresh
 *       producer, and the stores are restored from their changelogs), the consumer unsubscribes
 *       (leaving the group, dropping its fetch positions) and subscribes again; the reassigned task
 *       starts from the last committed offset, so the same record is processed again after the same
 *       in-place retries. This repeats by itself, one budget plus one quick rebalance at a time (about
 *       1.3 s per cycle with a 1 s budget in {@code QdrantConsolidationIT}), until the index answers.</li>
 * </ol>
 * Measured alternatives, rejected: {@code TaskCorruptedException} (also rethrown past the handler)
 * rebuilt the task on 4.3.1 without seeking back, so the next record ran and the held one would have
 * been skipped; failing the thread with {@code REPLACE_THREAD} works but the dead member stays in
 * the group until its 45 s session timeout, so each cycle stalled 45 s. ({@code StreamsRunner} still
 * answers {@code REPLACE_THREAD} for an outage that escapes some other way, see {@link #isIndexOutage}.)
 *
 * <p>Why it is safe: the processor calls the index before it writes a store or forwards anything for
 * a record, so a failing record leaves nothing half-done, and the aborted transaction takes every
 * uncommitted output with it; on the way back, deterministic ids and idempotent upserts make the
 * redone writes identical. No record is skipped and no offset moves past unfinished work. Other
 * failures (a wrong collection, a refused request) are not retried: they stop the app with the error.
 *
 * <p>Counters: {@code engram.vector.index.retries} (in-place retries) and
 * {@code engram.vector.index.rewinds} (budgets spent, each one a rejoin from the last commit), tag
 * {@code operation}.
 */
public final class RetryingVectorIndex implements VectorIndex {

    private static final Logger LOG = LoggerFactory.getLogger(RetryingVectorIndex.class);

    /**
     * Backoff and budget.
     *
     * @param initialBackoff first pause
     * @param maxBackoff longest pause (the pause doubles up to it)
     * @param budget total time spent retrying one call before the task is rewound
     */
    public record Policy(Duration initialBackoff, Duration maxBackoff, Duration budget) {

        /**
         * @param config {@code qdrant.retry.budget.ms}
         * @return 100 ms doubling to 1.6 s within the configured budget
         */
        public static Policy from(final EngramConfig config) {
            return new Policy(Duration.ofMillis(100), Duration.ofMillis(1600),
                Duration.ofMillis(config.getInt(PipelineConfig.QDRANT_RETRY_BUDGET_MS)));
        }
    }

    /** Pauses the calling thread; a seam for tests. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final VectorIndex delegate;
    private final Policy policy;
    private final Sleeper sleeper;
    private final LongSupplier nanoTime;
    private final MeterRegistry registry;
    private final String application;

    /**
     * @param delegate the index of the task
     * @param policy backoff and budget
     * @param registry where the counters go
     * @param application the {@code application} tag
     */
    public RetryingVectorIndex(final VectorIndex delegate, final Policy policy, final MeterRegistry registry,
                               final String application) {
        this(delegate, policy, d -> Thread.sleep(d.toMillis()), System::nanoTime, registry, application);
    }

    /**
     * Wraps every index a factory opens (the seam {@code ConsolidationTopology} uses for all its processors).
     *
     * @param factory the index factory
     * @param policy backoff and budget
     * @param registry where the counters go
     * @param application the {@code application} tag
     * @return a factory whose indexes retry and never let a task move past a record
     */
    public static VectorIndexFactory guard(final VectorIndexFactory factory, final Policy policy,
                                           final MeterRegistry registry, final String application) {
        return store -> new RetryingVectorIndex(factory.open(store), policy, registry, application);
    }

    RetryingVectorIndex(final VectorIndex delegate, final Policy policy, final Sleeper sleeper,
                        final LongSupplier nanoTime, final MeterRegistry registry, final String application) {
        this.nanoTime = nanoTime;
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.policy = policy;
        this.sleeper = sleeper;
        this.registry = registry;
        this.application = application;
    }

    /** @return the wrapped index (the consolidator asks whether it is the memories store itself) */
    VectorIndex delegate() {
        return delegate;
    }

    @Override
    public List<Hit> search(final Query query) {
        return call("search", () -> delegate.search(query));
    }

    @Override
    public void upsert(final Memory memory) {
        call("upsert", () -> {
            delegate.upsert(memory);
            return null;
        });
    }

    @Override
    public void delete(final UserKey user, final String memoryId) {
        call("delete", () -> {
            delegate.delete(user, memoryId);
            return null;
        });
    }

    @Override
    public void deleteUser(final UserKey user) {
        call("delete_user", () -> {
            delegate.deleteUser(user);
            return null;
        });
    }

    private <T> T call(final String operation, final Supplier<T> body) {
        final long start = nanoTime.getAsLong();
        Duration backoff = policy.initialBackoff();
        int attempt = 0;
        while (true) {
            try {
                final T result = body.get();
                if (attempt > 0) {
                    LOG.info("vector index {} succeeded after {} retries", operation, attempt);
                }
                return result;
            } catch (VectorIndexUnavailableException e) {
                final Duration spent = Duration.ofNanos(nanoTime.getAsLong() - start);
                if (spent.plus(backoff).compareTo(policy.budget()) > 0) {
                    counter("engram.vector.index.rewinds", "Task rewinds to the last commit after the vector index "
                        + "stayed unavailable for the retry budget", operation).increment();
                    LOG.warn("vector index {} unavailable for {} ms ({}): giving the record back; the stream thread "
                        + "drops its tasks and rejoins to resume from the last commit", operation, spent.toMillis(),
                        e.getMessage());
                    throw new TaskMigratedException("vector index " + operation + " unavailable for " + spent.toMillis()
                        + " ms: resuming from the last committed offset", e);
                }
                if (attempt == 0) {
                    LOG.warn("vector index {} unavailable ({}); retrying with backoff", operation, e.getMessage());
                }
                counter("engram.vector.index.retries", "In-place retries of an unavailable vector index", operation)
                    .increment();
                try {
                    sleeper.sleep(backoff);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                attempt++;
                backoff = backoff.multipliedBy(2).compareTo(policy.maxBackoff()) > 0 ? policy.maxBackoff()
                    : backoff.multipliedBy(2);
            }
        }
    }

    /**
     * @param error an exception that ended a stream thread
     * @return true when a {@link VectorIndexUnavailableException} is in its cause chain: the thread
     *     should be replaced (the record is processed again), not the client shut down
     */
    public static boolean isIndexOutage(final Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof VectorIndexUnavailableException) {
                return true;
            }
        }
        return false;
    }

    private Counter counter(final String name, final String description, final String operation) {
        return Counter.builder(name).description(description).tag("application", application)
            .tag("operation", operation).register(registry);
    }
}
