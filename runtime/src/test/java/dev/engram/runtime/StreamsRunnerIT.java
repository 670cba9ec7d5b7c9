package dev.engram.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import dev.engram.testing.EmbeddedKafka;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class StreamsRunnerIT {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startCluster() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(1, List.of("runner-in", "runner-out", "boom-in", "boom-out", "txn-in", "txn-out",
            "engram-runner-it-dlq", "engram-runner-boom-dlq", "engram-runner-txn-dlq"));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        kafka.close();
    }

    private static Topology passThrough(final String in, final String out, final boolean fail) {
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()).withName("read-" + in))
            .mapValues(v -> {
                if (fail) {
                    throw new IllegalStateException("bug in processor");
                }
                return v.toUpperCase(java.util.Locale.ROOT);
            }, Named.as("upper-case"))
            .to(out, Produced.with(Serdes.String(), Serdes.String()).withName("write-" + out));
        return builder.build();
    }

    @Test
    void shouldBecomeReadyAndExposeKafkaStreamMetricsWhenStarted() throws Exception {
        final PrometheusMeterRegistry registry = AppMetrics.registry("engram-runner-it", "it");
        final Properties props = kafka.streamsConfig("engram-runner-it");
        final StreamsRunner runner = new StreamsRunner(passThrough("runner-in", "runner-out", false), props,
            "runner-it", registry, failure -> false);
        try (AppHttpServer server = AppHttpServer.forRunner(0, registry, runner, app -> { }).start()) {
            final HttpClient http = HttpClient.newHttpClient();
            assertThat(get(http, server, "/health/ready").statusCode()).isEqualTo(503);
            runner.start();
            assertThat(runner.awaitRunning(Duration.ofSeconds(60))).isTrue();
            assertThat(runner.isLive()).isTrue();
            EmbeddedKafka.waitUntil(runner::isReady, Duration.ofSeconds(120), "RUNNING");
            assertThat(get(http, server, "/health/ready").statusCode()).isEqualTo(200);
            assertThat(get(http, server, "/health/live").statusCode()).isEqualTo(200);
            EmbeddedKafka.waitUntil(() -> scrape(http, server).contains("kafka_stream"), Duration.ofSeconds(120),
                "kafka_stream metrics in /metrics");
            assertThat(scrape(http, server)).contains("application=\"engram-runner-it\"");

            runner.close(Duration.ofSeconds(30));
            assertThat(runner.state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
            assertThat(runner.isLive()).isFalse();
            assertThat(get(http, server, "/health/live").statusCode()).isEqualTo(503);
            assertThat(scrape(http, server)).doesNotContain("kafka_stream_thread");
        } finally {
            runner.close(Duration.ofSeconds(30));
            registry.close();
        }
    }

    @Test
    void shouldEndInErrorWithNonZeroExitCodeWhenAProcessorThrows() {
        final PrometheusMeterRegistry registry = AppMetrics.registry("engram-runner-boom", "it");
        final Properties props = kafka.streamsConfig("engram-runner-boom");
        // Engram's apps send a record that makes a processor throw to the DLQ (StreamsSettings); here the
        // failure path of the runner itself is under test, so processing exceptions fail the client
        props.put(org.apache.kafka.streams.StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
            org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler.class);
        final StreamsRunner runner = new StreamsRunner(passThrough("boom-in", "boom-out", true),
            props, "runner-boom", registry, failure -> false);
        kafka.send("boom-in", new StringSerializer(), new StringSerializer(),
            List.of(new EmbeddedKafka.Record<>("k", "v", Instant.parse("2025-01-01T00:00:00Z"))));
        try {
            final int code = runner.runUntilShutdown();
            assertThat(code).isEqualTo(StreamsRunner.EXIT_ERROR);
            assertThat(runner.state()).isEqualTo(KafkaStreams.State.ERROR);
            assertThat(runner.isLive()).isFalse();
            assertThat(runner.failure()).isNotNull();
        } finally {
            runner.close(Duration.ofSeconds(30));
            registry.close();
        }
    }

    @Test
    void shouldReplaceTheStreamThreadAndProcessTheRecordAgainWhenTheBrokerRefusesATransaction() throws Exception {
        final PrometheusMeterRegistry registry = AppMetrics.registry("engram-runner-txn", "it");
        final Properties props = kafka.streamsConfig("engram-runner-txn");
        props.put(org.apache.kafka.streams.StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
            org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler.class);
        // what a commit got in the chaos scale-out after a broker was killed, twice, then the broker is back
        final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger(2);
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream("txn-in", Consumed.with(Serdes.String(), Serdes.String()).withName("read-txn-in"))
            .mapValues(v -> {
                if (refusals.getAndDecrement() > 0) {
                    throw new org.apache.kafka.common.errors.InvalidTxnStateException(
                        "The producer attempted a transactional operation in an invalid state.");
                }
                return v.toUpperCase(java.util.Locale.ROOT);
            }, Named.as("upper-case"))
            .to("txn-out", Produced.with(Serdes.String(), Serdes.String()).withName("write-txn-out"));
        kafka.send("txn-in", new StringSerializer(), new StringSerializer(),
            List.of(new EmbeddedKafka.Record<>("k", "v", Instant.parse("2025-01-01T00:00:00Z"))));
        try (StreamsRunner runner = new StreamsRunner(builder.build(), props, "runner-txn", registry, failure -> false)) {
            runner.start();
            final List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> out = kafka.read("txn-out",
                Serdes.String().deserializer(), Serdes.String().deserializer(), 1, Duration.ofMinutes(3));

            assertThat(out).extracting(org.apache.kafka.clients.consumer.ConsumerRecord::value).containsExactly("V");
            assertThat(refusals.get()).as("processed again after each refusal").isNegative();
            assertThat(runner.state()).isIn(KafkaStreams.State.RUNNING, KafkaStreams.State.REBALANCING);
            assertThat(runner.failure()).isNull();
            assertThat(StreamsRunner.isTransactionFailure(new IllegalStateException("bug"))).isFalse();
        } finally {
            registry.close();
        }
    }

    private static HttpResponse<String> get(final HttpClient http, final AppHttpServer server, final String path)
        throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static String scrape(final HttpClient http, final AppHttpServer server) {
        try {
            return get(http, server, "/metrics").body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
