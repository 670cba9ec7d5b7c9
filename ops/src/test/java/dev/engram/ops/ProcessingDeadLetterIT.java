package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.engram.runtime.StreamsRunner;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topology.RetryingVectorIndex;
import dev.engram.topics.Topic;

/**
 * A record that makes a processor throw goes to the app's dead-letter topic with the reason in the
 * {@code __streams.errors.*} headers, and the records after it are processed: the
 * {@code processing.exception.handler} + KIP-1034 dead-letter queue configured in
 * {@link StreamsSettings}, exercised through a processor that throws on a marked record (Engram's own
 * processors validate before they process, so none is known to throw on a record that decodes).
 */
class ProcessingDeadLetterIT {

    private static final String APP = "engram-dlq-it";
    private static final String IN = "dlq-it-in";
    private static final String OUT = "dlq-it-out";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, List.of(IN, OUT, Topic.deadLetters(APP).name()));
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    /** Upper-cases values; throws on "poison". */
    private static final class Upper implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;

        @Override
        public void init(final ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(final Record<String, String> record) {
            if ("poison".equals(record.value())) {
                throw new IllegalStateException("cannot process poison for " + record.key());
            }
            context.forward(record.withValue(record.value().toUpperCase(java.util.Locale.ROOT)));
        }
    }

    @Test
    void shouldDeadLetterTheRecordThatThrowsAndProcessTheRestWhenAProcessorFails() {
        final Topology topology = new Topology()
            .addSource("read-in", Serdes.String().deserializer(), Serdes.String().deserializer(), IN)
            .addProcessor("upper-case", Upper::new, "read-in")
            .addSink("write-out", OUT, Serdes.String().serializer(), Serdes.String().serializer(), "upper-case");
        final Properties props = StreamsSettings.forApp(kafka.engramConfig(Map.of()), APP);
        final Instant t = Instant.parse("2026-01-01T00:00:00Z");
        kafka.send(IN, Serdes.String().serializer(), Serdes.String().serializer(), List.of(
            new EmbeddedKafka.Record<>("t/a", "first", t), new EmbeddedKafka.Record<>("t/a", "poison", t.plusSeconds(1)),
            new EmbeddedKafka.Record<>("t/a", "third", t.plusSeconds(2))));
        try (StreamsRunner runner = new StreamsRunner(topology, props, "dlq-it", new SimpleMeterRegistry(),
            RetryingVectorIndex::isIndexOutage)) {
            runner.start();
            final List<ConsumerRecord<String, String>> out = kafka.read(OUT, Serdes.String().deserializer(),
                // the wait includes the app's start (group join, transactions) at load 10+
                Serdes.String().deserializer(), 2, Duration.ofMinutes(3));
            final List<ConsumerRecord<byte[], byte[]>> dead = kafka.readRaw(Topic.deadLetters(APP).name(), 1, Duration.ofMinutes(1));

            assertThat(out).extracting(ConsumerRecord::value).containsExactly("FIRST", "THIRD");
            assertThat(dead).hasSize(1);
            assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("poison");
            final StringBuilder headers = new StringBuilder();
            for (final Header h : dead.get(0).headers()) {
                headers.append(h.key()).append('=').append(new String(h.value(), StandardCharsets.UTF_8)).append('\n');
            }
            assertThat(headers.toString()).contains("__streams.errors.exception", IllegalStateException.class.getName(),
                "cannot process poison for t/a");
            assertThat(runner.isLive()).isTrue();
        }
    }
}
