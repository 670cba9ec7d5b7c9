package dev.engram.stack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.extractor.ExtractorApp;
import dev.engram.retriever.RetrieverApp;
import dev.engram.runtime.StreamsRunner;
import dev.engram.topics.AppIds;

/**
 * The three apps of the demo in one JVM, each with its own Streams client, HTTP server and metrics
 * registry: {@link ExtractorApp}, {@link ConsolidatorApp}, {@link RetrieverApp}. Closed in reverse
 * order of start.
 */
public final class DemoApps implements AutoCloseable {

    private final ExtractorApp extractor;
    private final ConsolidatorApp consolidator;
    private final RetrieverApp.Handle retriever;
    private final String retrieverUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String bootstrapServers;
    /** The committed pending store, opened at the first {@link #extractorIdle} (guarded by this). */
    private PendingExtractions pendingExtractions;

    private DemoApps(final ExtractorApp extractor, final ConsolidatorApp consolidator, final RetrieverApp.Handle retriever,
                     final String bootstrapServers) {
        this.extractor = extractor;
        this.consolidator = consolidator;
        this.retriever = retriever;
        this.retrieverUrl = retriever.baseUrl();
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts extractor, consolidator and retriever; returns without waiting for them to be RUNNING
     * (they read from the beginning of their inputs, so records sent meanwhile are not missed).
     *
     * @param config the shared config (bootstrap servers, state dir, HTTP ports)
     * @return the running apps
     */
    public static DemoApps start(final EngramConfig config) {
        final ExtractorApp extractor = ExtractorApp.start(config);
        ConsolidatorApp consolidator = null;
        try {
            consolidator = ConsolidatorApp.start(config);
            return new DemoApps(extractor, consolidator, RetrieverApp.start(config),
                config.getString(dev.engram.config.CoreConfig.BOOTSTRAP_SERVERS));
        } catch (RuntimeException e) {
            if (consolidator != null) {
                consolidator.close();
            }
            extractor.close();
            throw e;
        }
    }

    /** @return the retriever's query embedder */
    public dev.engram.port.Embedder retrieverEmbedder() {
        return retriever.embedder();
    }

    /** @return the retriever's ranking (its query-vector cache) */
    public dev.engram.scoring.HybridScorer retrieverScorer() {
        return retriever.scorer();
    }

    /** @throws IllegalStateException if an app's Streams client died (ERROR or stopped), with its cause */
    public void requireAlive() {
        requireAlive(extractor.runner());
        requireAlive(consolidator.runner());
        requireAlive(retriever.runner());
    }

    private static void requireAlive(final StreamsRunner runner) {
        if (!runner.isLive()) {
            throw new IllegalStateException("The " + runner.appName() + " stopped (state " + runner.state()
                + "); see the log above", runner.failure());
        }
    }

    /**
     * Waits until the retriever answers 200 on {@code /health/ready}.
     *
     * @param timeout how long at most
     * @throws IllegalStateException if it does not within the timeout
     */
    public void awaitRetrieverReady(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (status("/health/ready") != 200) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The retriever was not ready within " + timeout);
            }
            try {
                Thread.sleep(100); // polling an HTTP probe; there is nothing to block on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
        }
    }

    /**
     * Whether every conversation the extractor has consumed has its candidates committed on {@code memory-candidates}:
     * its pending gauge is 0 (a quick first look: the gauge drops when the candidates are handed to the producer, before
     * they are committed), its {@code extraction-pending-store}, as committed on its changelog, is empty, and no
     * transaction is open on {@code memory-candidates} ({@link PendingExtractions#settled}, where the argument is). Its committed offsets already cover a pending conversation, so
     * "no lag" alone does not mean done; a settle takes "no lag" first, then this, then the next stage's lag.
     *
     * @return true when nothing consumed is still to be committed as candidates; false also when the changelog could
     *     not be read to its end within 30 s (a settle asks again)
     */
    public synchronized boolean extractorIdle() {
        if (extractor.pendingConversations() != 0) {
            return false;
        }
        if (pendingExtractions == null) {
            pendingExtractions = new PendingExtractions(TopicScan.client(bootstrapServers));
        }
        try {
            return pendingExtractions.settled(Duration.ofSeconds(30));
        } catch (IllegalStateException | org.apache.kafka.common.KafkaException e) {
            return false;
        }
    }

    /** @return the extractor's consumed conversations by outcome ({@link ExtractorApp#conversationOutcomes()}) */
    public java.util.Map<String, Long> conversationOutcomes() {
        return extractor.conversationOutcomes();
    }

    /**
     * @return each app's {@code /metrics} URL (Prometheus text) by {@code application.id}, in pipeline order; the
     *     extractor and the consolidator serve only health and metrics, on their own port
     */
    public java.util.Map<String, String> metricsUrls() {
        final java.util.Map<String, String> urls = new java.util.LinkedHashMap<>();
        urls.put(AppIds.EXTRACTOR, "http://localhost:" + extractor.httpPort() + "/metrics");
        urls.put(AppIds.CONSOLIDATOR, "http://localhost:" + consolidator.httpPort() + "/metrics");
        urls.put(AppIds.RETRIEVER, retrieverUrl + "/metrics");
        return urls;
    }

    /** @return the retriever's base URL, e.g. {@code http://localhost:8080} */
    public String retrieverUrl() {
        return retrieverUrl;
    }

    private int status(final String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(retrieverUrl + path)).timeout(Duration.ofSeconds(5)).GET()
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Closes retriever, consolidator, extractor, in that order. */
    @Override
    public void close() throws Exception {
        synchronized (this) {
            if (pendingExtractions != null) {
                pendingExtractions.close();
            }
        }
        try {
            retriever.close();
        } finally {
            try {
                consolidator.close();
            } finally {
                extractor.close();
            }
        }
    }
}
