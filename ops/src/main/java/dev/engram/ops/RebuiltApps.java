package dev.engram.ops;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.embedder.KnownVectors;
import dev.engram.extractor.ExtractorApp;
import dev.engram.retriever.RetrieverReadModel;
import dev.engram.runtime.StreamsRunner;
import dev.engram.stack.PendingExtractions;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The apps a {@link Rebuild} runs in this JVM, all started at once (each consumes what the one before writes as it is
 * written: the consolidator the extractor's candidates, the retriever the consolidator's {@code memory-updated}) and
 * closed in reverse order. The consolidator runs with its embedder counted ({@link KnownVectors}, no vector known): a
 * rebuild without re-extraction embeds nothing, and the report says so. The retriever runs as its read model only
 * ({@link RetrieverReadModel}: the same topology and stores, no HTTP API or clients). Not thread-safe.
 */
final class RebuiltApps implements AutoCloseable {

    private final List<AutoCloseable> running = new ArrayList<>();
    private final Map<Rebuild.App, StreamsRunner> runners = new EnumMap<>(Rebuild.App.class);
    private final Map<Rebuild.App, Long> started = new EnumMap<>(Rebuild.App.class);
    private final PrintStream out;
    private ExtractorApp extractor;
    private RetrieverReadModel retriever;
    private KnownVectors observations;

    /** @param out where a failure to stop an app is told */
    RebuiltApps(final PrintStream out) {
        this.out = out;
    }

    /**
     * Starts the apps, in order; returns once each was asked to start (not when RUNNING).
     *
     * @param apps the apps, in flow order (extractor, consolidator, retriever)
     * @param config their config ({@link ReplayConfig#of})
     * @param partitions the partition count of their topics (more stream threads than tasks would idle)
     */
    void start(final List<Rebuild.App> apps, final EngramConfig config, final int partitions) {
        // the cores shared among the apps rebuilt at once: with the extractor (its embedding takes every core) or the
        // consolidator and the retriever together, a second thread each only added transactions (bench rebuild, 150
        // conversations, one and two threads side by side: broker and JIT CPU up, wall time not down)
        final EngramConfig threaded = withStreamThreads(config,
            Runtime.getRuntime().availableProcessors() / apps.size(), partitions);
        for (final Rebuild.App a : apps) {
            started.put(a, System.nanoTime());
            switch (a) {
                case EXTRACTOR -> {
                    // its conversations are extracted and embedded on pools of their own already
                    extractor = ExtractorApp.start(config);
                    running.add(extractor);
                    runners.put(a, extractor.runner());
                }
                case CONSOLIDATOR -> {
                    final KnownVectors[] wrapped = new KnownVectors[1];
                    final ConsolidatorApp c = ConsolidatorApp.start(threaded, e -> wrapped[0] = new KnownVectors(e, Map.of()));
                    observations = wrapped[0];
                    running.add(c);
                    runners.put(a, c.runner());
                }
                default -> {
                    // its read model only: the rebuilt state is the stores and their changelogs, read back through
                    // interactive queries; the HTTP API and its clients serve nobody here
                    retriever = RetrieverReadModel.start(threaded);
                    running.add(retriever);
                    runners.put(a, retriever.runner());
                }
            }
        }
    }

    /**
     * The rebuilt consolidator's and retriever's config: one stream thread per core it has to itself, up to one per
     * task, at least one ({@code kafka.num.stream.threads}, unless the deployment sets it). A live app runs one thread,
     * its instances spread over machines; a consolidator or retriever rebuilt alone replays every partition in one
     * process, and one thread left the second core to the broker alone (the consolidator's catch-up is its thread's
     * CPU). Each task still runs on one thread, in order, and its state is its own (users are partitioned), so the
     * rebuilt state does not depend on the threads.
     *
     * @param config the replay config
     * @param cores available processors per app rebuilt at once
     * @param partitions tasks per app (the topics' partition count)
     * @return the config with the thread count
     */
    static EngramConfig withStreamThreads(final EngramConfig config, final int cores, final int partitions) {
        final String key = CoreConfig.KAFKA_PREFIX + StreamsConfig.NUM_STREAM_THREADS_CONFIG;
        if (config.kafkaProperties().containsKey(StreamsConfig.NUM_STREAM_THREADS_CONFIG)) {
            return config;
        }
        return config.with(Map.of(key, Math.max(1, Math.min(cores, partitions))));
    }

    /** @return the app's Streams runner */
    StreamsRunner runner(final Rebuild.App a) {
        return runners.get(a);
    }

    /** @return wall time since the app was started, seconds */
    double secondsSinceStart(final Rebuild.App a) {
        return (System.nanoTime() - started.get(a)) / 1e9;
    }

    /**
     * For the extractor: whether every conversation it consumed has its candidates committed — its pending gauge is 0
     * (a quick first look; it drops before the candidates are committed), its {@code extraction-pending-store} as
     * committed on its changelog is empty and no transaction is open on {@code memory-candidates}
     * ({@link PendingExtractions#settled}, read after the reset that deleted the changelog; closed with the apps). A changelog not read to its end in 30 s is "not yet". For the others always true.
     *
     * @param a the app
     * @param client consumer properties with at least {@code bootstrap.servers}
     * @return the condition, asked after the app's lag is 0
     */
    BooleanSupplier idle(final Rebuild.App a, final Map<String, Object> client) {
        if (a != Rebuild.App.EXTRACTOR) {
            return () -> true;
        }
        final ExtractorApp x = extractor;
        final PendingExtractions committed = new PendingExtractions(client);
        running.add(committed);
        return () -> {
            if (x.pendingConversations() != 0) {
                return false;
            }
            try {
                return committed.settled(java.time.Duration.ofSeconds(30));
            } catch (IllegalStateException | org.apache.kafka.common.KafkaException e) {
                return false;
            }
        };
    }

    /** @return the rebuilt retriever's read model, or null when it is not rebuilt */
    RetrieverReadModel retriever() {
        return retriever;
    }

    /** @return observation texts the rebuilt consolidator took from known vectors (0 without a consolidator) */
    long observationVectorsReused() {
        return observations == null ? 0 : observations.reused();
    }

    /** @return observation texts the rebuilt consolidator embedded (0 without a consolidator) */
    long observationTextsEmbedded() {
        return observations == null ? 0 : observations.embedded();
    }

    @Override
    public void close() {
        for (int i = running.size() - 1; i >= 0; i--) {
            try {
                running.get(i).close();
            } catch (Exception e) {
                out.println("Error while stopping " + running.get(i).getClass().getSimpleName() + ": " + e);
            }
        }
    }
}
