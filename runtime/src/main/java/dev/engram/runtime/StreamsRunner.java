package dev.engram.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KafkaStreams.State;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

import dev.engram.core.ExitDrains;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one Kafka Streams application: the shared runtime of every Engram app (after
 * bakdata/streams-bootstrap's {@code StreamsRunner} and {@code StreamsShutdownStateListener}).
 *
 * <p>On {@link #start()} it logs {@code topology.describe()}, sets the uncaught exception handler (log,
 * then {@code SHUTDOWN_CLIENT}: a bug stops this client, it does not spin on a poison record; a failure
 * the app declares transient, e.g. an outage of the vector index, instead replaces the thread, and so does a
 * transaction the broker refused while a broker restarted ({@link #isTransactionFailure}), at most
 * {@value #MAX_TRANSACTION_REPLACEMENTS} times in 10 minutes), a state
 * listener that feeds the health probes, binds Micrometer's {@link KafkaStreamsMetrics} (closed on
 * {@link #close(Duration)}) and the gauges {@code engram.streams.live} / {@code engram.streams.ready} (0/1) and starts the client without blocking, so several apps can share one JVM
 * (the demo). {@link #runUntilShutdown()} is the one-app-per-JVM form: start, block until a terminal
 * state (NOT_RUNNING or ERROR), return the process exit code.
 *
 * <p>Thread-safe: state is read from Kafka Streams, listeners run on stream threads.
 */
public final class StreamsRunner implements AutoCloseable {

    /** Exit code when the client ended in ERROR or a stream thread died with an uncaught exception. */
    public static final int EXIT_ERROR = 1;
    /** Exit code of a clean shutdown. */
    public static final int EXIT_OK = 0;

    private static final Logger LOG = LoggerFactory.getLogger(StreamsRunner.class);

    private final String appName;
    private final Topology topology;
    private final KafkaStreams streams;
    private final MeterRegistry registry;
    private final CountDownLatch terminal = new CountDownLatch(1);
    private final CountDownLatch running = new CountDownLatch(1);
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<Throwable> uncaught = new AtomicReference<>();
    private final List<KafkaStreams.StateListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<KafkaStreamsMetrics> metrics = new AtomicReference<>();
    private final Predicate<Throwable> transientFailure;
    /** Most stream-thread replacements after a transaction failure within {@link #TRANSACTION_WINDOW}. */
    static final int MAX_TRANSACTION_REPLACEMENTS = 5;
    private static final Duration TRANSACTION_WINDOW = Duration.ofMinutes(10);
    /** nanoTime of the recent replacements after a transaction failure. */
    private final java.util.Deque<Long> transactionReplacements = new java.util.ArrayDeque<>();

    /**
     * Creates the client (not started).
     *
     * @param topology the topology to run
     * @param properties Streams properties (e.g. from {@code StreamsSettings.forApp})
     * @param appName a short name for logs, e.g. {@code retriever}
     * @param registry the registry the Kafka Streams metrics are bound to
     * @param transientFailure true for an exception that ended a stream thread but should replace the
     *     thread (the record is processed again from the last commit) instead of shutting the client
     *     down, e.g. {@code RetryingVectorIndex::isIndexOutage}; {@code t -> false} for none
     */
    public StreamsRunner(final Topology topology, final Properties properties, final String appName,
                         final MeterRegistry registry, final Predicate<Throwable> transientFailure) {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.transientFailure = Objects.requireNonNull(transientFailure, "transientFailure");
        this.appName = Objects.requireNonNull(appName, "appName");
        this.registry = Objects.requireNonNull(registry, "registry");
        final Properties withRegistry = new Properties();
        withRegistry.putAll(Objects.requireNonNull(properties, "properties"));
        // the exception handlers Streams instantiates count their dead letters on this app's registry
        withRegistry.put(dev.engram.config.KafkaConnection.METER_REGISTRY_CONFIG, registry);
        this.streams = new KafkaStreams(topology, withRegistry);
        this.streams.setUncaughtExceptionHandler(this::onUncaught);
        this.streams.setStateListener(this::onStateChange);
    }

    /**
     * Adds a listener called after the runner's own on every state change (e.g. to log progress).
     * Must be called before {@link #start()}.
     *
     * @param listener a listener; runs on a stream thread, must not block
     */
    public void addStateListener(final KafkaStreams.StateListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Logs the topology, binds the metrics and starts the client; returns at once.
     *
     * @throws IllegalStateException if already started
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException(appName + " already started");
        }
        LOG.info("{}: starting with topology\n{}", appName, topology.describe());
        final KafkaStreamsMetrics binder = new KafkaStreamsMetrics(streams);
        binder.bindTo(registry);
        // the probes as gauges, so alerts can see an app in ERROR (1 = live / ready, 0 = not)
        io.micrometer.core.instrument.Gauge.builder("engram.streams.live", this, r -> r.isLive() ? 1 : 0)
            .description("1 while the Streams client is alive (not ERROR, not stopped)").register(registry);
        io.micrometer.core.instrument.Gauge.builder("engram.streams.ready", this, r -> r.isReady() ? 1 : 0)
            .description("1 while the Streams client is RUNNING").register(registry);
        metrics.set(binder);
        streams.start();
    }

    /**
     * Starts (unless started), installs a JVM shutdown hook that closes the client (then waits for {@link ExitDrains}), and blocks until
     * the client reaches NOT_RUNNING or ERROR.
     *
     * @return {@link #EXIT_OK} after a clean shutdown, {@link #EXIT_ERROR} if it ended in ERROR or a
     *     stream thread died with an uncaught exception
     */
    public int runUntilShutdown() {
        final Thread hook = new Thread(() -> {
            close(Duration.ofSeconds(30));
            ExitDrains.awaitAll(ExitDrains.EXIT_DRAIN); // a stream thread that did not stop may still be in native code
        }, appName + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (!started.get()) {
            start();
        }
        try {
            terminal.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final int code = exitCode();
        close(Duration.ofSeconds(30));
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the JVM is exiting; the hook runs (or ran) close, which is idempotent
        }
        return code;
    }

    /**
     * Waits until the client is RUNNING.
     *
     * @param timeout how long to wait at most
     * @return true if RUNNING was reached in time (it may have moved on since, e.g. to REBALANCING)
     * @throws IllegalStateException if the client ended (ERROR, NOT_RUNNING) before running
     */
    public boolean awaitRunning(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (running.await(50, TimeUnit.MILLISECONDS)) {
                    return true;
                }
                final State s = streams.state();
                if (s == State.ERROR || s == State.PENDING_ERROR || (started.get() && s == State.NOT_RUNNING)) {
                    throw new IllegalStateException(appName + " ended in " + s + " before running", uncaught.get());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return running.getCount() == 0;
    }

    /** @return the client's current state */
    public State state() {
        return streams.state();
    }

    /**
     * Liveness: false once the client is in ERROR, PENDING_ERROR, or NOT_RUNNING after having been
     * started; a restart is the cure for all three.
     *
     * @return whether the process is alive from the Streams point of view
     */
    public boolean isLive() {
        final State s = streams.state();
        if (s == State.ERROR || s == State.PENDING_ERROR) {
            return false;
        }
        return !(started.get() && s == State.NOT_RUNNING);
    }

    /** @return readiness: true only while the client is RUNNING (stores queryable, tasks assigned) */
    public boolean isReady() {
        return streams.state() == State.RUNNING;
    }

    /** @return the uncaught exception that stopped the client, or null */
    public Throwable failure() {
        return uncaught.get();
    }

    /** @return the Kafka Streams client, for interactive queries */
    public KafkaStreams kafkaStreams() {
        return streams;
    }

    /** @return the app name given at construction */
    public String appName() {
        return appName;
    }

    /**
     * Closes the client and unbinds its metrics; idempotent.
     *
     * @param timeout how long to wait for the stream threads to stop
     */
    public void close(final Duration timeout) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("{}: closing (state {})", appName, streams.state());
        final boolean stopped = streams.close(timeout);
        if (!stopped) {
            LOG.warn("{}: stream threads did not stop within {}", appName, timeout);
        }
        final KafkaStreamsMetrics binder = metrics.getAndSet(null);
        if (binder != null) {
            binder.close();
        }
        terminal.countDown();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }

    private int exitCode() {
        return streams.state() == State.ERROR || uncaught.get() != null ? EXIT_ERROR : EXIT_OK;
    }

    private StreamThreadExceptionResponse onUncaught(final Throwable e) {
        if (transientFailure.test(e)) {
            // The record was given back unfinished: a new thread resumes from the last commit (no skip).
            LOG.warn("{}: transient failure past the retry budget ({}); replacing the stream thread", appName,
                e.toString());
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        if (isTransactionFailure(e) && transactionReplacementAllowed()) {
            // Seen in the chaos scale-out: a commit after a broker was SIGKILLed failed with InvalidTxnStateException
            // and the retriever shut down for good. Under exactly_once_v2 the thread's open transaction is aborted and
            // a new thread (a new producer, fencing the old one) processes its tasks again from the last commit.
            LOG.warn("{}: a transaction failed at the broker ({}); replacing the stream thread, which processes again "
                + "from the last commit", appName, e.toString());
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error("{}: uncaught exception in a stream thread, shutting the client down", appName, e);
        uncaught.compareAndSet(null, e);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /**
     * A commit or send the broker refused because of the transaction's state on its side (a coordinator or leader that
     * moved while a broker restarted), not because of the records: {@code InvalidTxnStateException} or {@code
     * TransactionAbortableException} anywhere in the cause chain. Fencing ({@code ProducerFencedException}) is not
     * one: Kafka Streams handles it itself as a task migration.
     *
     * @param e what ended a stream thread
     * @return true when replacing the thread (processing again from the last commit) is the recovery
     */
    static boolean isTransactionFailure(final Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof org.apache.kafka.common.errors.InvalidTxnStateException
                || c instanceof org.apache.kafka.common.errors.TransactionAbortableException) {
                return true;
            }
        }
        return false;
    }

    /** @return whether another replacement after a transaction failure fits the budget (and counts it) */
    private boolean transactionReplacementAllowed() {
        synchronized (transactionReplacements) {
            final long now = System.nanoTime();
            while (!transactionReplacements.isEmpty()
                && now - transactionReplacements.peekFirst() > TRANSACTION_WINDOW.toNanos()) {
                transactionReplacements.pollFirst();
            }
            if (transactionReplacements.size() >= MAX_TRANSACTION_REPLACEMENTS) {
                return false;
            }
            transactionReplacements.addLast(now);
            return true;
        }
    }

    private void onStateChange(final State newState, final State oldState) {
        LOG.info("{}: state {} -> {}", appName, oldState, newState);
        if (newState == State.RUNNING) {
            running.countDown();
        }
        if (newState == State.ERROR || newState == State.NOT_RUNNING) {
            terminal.countDown();
        }
        for (final KafkaStreams.StateListener listener : listeners) {
            listener.onChange(newState, oldState);
        }
    }
}
