package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * A retriever started on a backlog of {@code memory-updated} (as after a restart: it was down while the consolidator
 * kept writing) is RUNNING before it has read the backlog. Until it has caught up ({@link CatchUp}) it must not call a
 * user of the backlog unknown: 503 with Retry-After (problem+json) and not ready, never 404; once caught up, an
 * unknown user is a 404 again and the probe is ready. The same holds for a partition that moves to a running
 * instance whose old owner stopped with a backlog behind it (the chaos scale-out's 404s).
 */
class RetrieverCatchUpIT {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    /** Enough events that reading them takes well over one catch-up check after RUNNING. */
    private static final int USERS = 6_000;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private EmbeddedKafka kafka;
    private RetrieverApp.Handle retriever;

    @AfterEach
    void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldAnswer503NotUnknownWhileReadingTheBacklogAfterStart() throws Exception {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        publishBacklog();
        final List<String> last = List.of(user(USERS - 1), user(USERS - 2), user(USERS - 3));
        retriever = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_ENABLED, false)));

        final List<String> wrong = new ArrayList<>();
        final int[] catchingUp = new int[1];
        final int[] notReadyWhileCatchingUp = new int[1];
        final boolean served = askUntilServed(last, Duration.ofSeconds(120), wrong, answer -> {
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
            if (answer.body().contains("still reading memory-updated")) {
                catchingUp[0]++;
                if (get("/health/ready").statusCode() == 503) {
                    notReadyWhileCatchingUp[0]++;
                }
            }
        });

        assertThat(wrong).as("%d answers other than 200/503 for users on memory-updated, the first: %s", wrong.size(),
            wrong.stream().limit(3).toList()).isEmpty();
        assertThat(served).as("every user of %s served within 120 s (%d 503s while catching up)", last, catchingUp[0])
            .isTrue();
        assertThat(catchingUp[0]).as("503s while the stores were queryable but the backlog not read").isPositive();
        assertThat(notReadyWhileCatchingUp[0]).as("/health/ready is 503 while catching up").isPositive();
        // caught up: unknown is an answer again, and the instance is ready
        EmbeddedKafka.waitUntil(() -> get("/v1/tenants/t1/users/u-nobody/profile").statusCode() == 404,
            Duration.ofSeconds(120), "an unknown user to be a 404 once caught up");
        assertThat(get("/health/ready").statusCode()).isEqualTo(200);
        final HttpResponse<String> first = get("/v1/tenants/t1/users/" + user(0) + "/memories");
        assertThat(first.statusCode()).as("the backlog's first user once caught up: %s", first.body()).isEqualTo(200);
    }

    @Test
    void shouldAnswer503NotUnknownForAMovedPartitionsBacklogAfterItsOwnerStops() throws Exception {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        // a stopped instance is noticed after the session timeout (static membership: closing does not leave), which
        // leaves the time to publish the whole backlog before the partition moves (what "moved with a backlog" means)
        final int sessionTimeoutMs = 30_000;
        final Map<String, Object> settings = Map.of(RetrieverConfig.AUTH_ENABLED, false, "kafka.session.timeout.ms",
            sessionTimeoutMs);
        final RetrieverApp.Handle first = RetrieverApp.start(kafka.engramConfig(settings));
        retriever = RetrieverApp.start(kafka.engramConfig(settings));
        try {
            EmbeddedKafka.waitUntil(() -> get("/health/ready").statusCode() == 200 && ready(first)
                && owned(first).size() == 1 && owned(retriever).size() == 1, Duration.ofMinutes(3),
                "both instances ready, one partition each");
            final int moving = owned(first).iterator().next();
            first.close();
            final long closedAt = System.nanoTime();
            // the backlog the stopped owner leaves: its partition's users only, published while nobody reads them
            final List<Integer> backlog = publishBacklog(moving);
            final long publishedMs = (System.nanoTime() - closedAt) / 1_000_000;
            assertThat(publishedMs).as("ms to publish the backlog (the partition moves after the %d ms session timeout; "
                + "a backlog published later is freshness, not a backlog)", sessionTimeoutMs).isLessThan(sessionTimeoutMs);
            assertThat(owned(retriever)).as("the partition has not moved while the backlog was published")
                .doesNotContain(moving);
            final List<String> last = backlog.subList(backlog.size() - 3, backlog.size()).stream()
                .map(RetrieverCatchUpIT::user).toList();

            final List<String> wrong = new ArrayList<>();
            final int[] notReadYet = new int[1];
            final List<String> movedDetails = new ArrayList<>();
            final boolean served = askUntilServed(last, Duration.ofMinutes(3), wrong, answer -> {
                notReadYet[0]++;
                if (answer.body().contains("moved to this instance")) {
                    movedDetails.add(answer.body());
                }
            });

            assertThat(wrong).as("%d answers other than 200/503 for users of the moved partition %d, the first: %s",
                wrong.size(), moving, wrong.stream().limit(3).toList()).isEmpty();
            assertThat(served).as("%s served within 3 minutes (%d 503s)", last, notReadYet[0]).isTrue();
            assertThat(notReadYet[0]).as("503s while the moved partition's backlog was read").isPositive();
            // while it is read, the 503 says which partition and since when, not only "not ready"
            assertThat(movedDetails).as("503s naming the moved partition").isNotEmpty().first().asString()
                .contains("partition " + moving + " of memory-updated moved to this instance");
            assertThat(get("/v1/tenants/t1/users/u-nobody-" + moving + "/profile").statusCode()).isIn(404, 503);
        } finally {
            first.close();
        }
    }

    /**
     * Asks for each user's profile every 10 ms until all are 200 or the timeout passes; a 503 must carry Retry-After
     * (then {@code on503} sees it), anything else but 200 is added to {@code wrong}.
     *
     * @return whether every user was served
     */
    private boolean askUntilServed(final List<String> users, final Duration timeout, final List<String> wrong,
                                   final java.util.function.Consumer<HttpResponse<String>> on503) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        boolean served = false;
        while (!served && System.nanoTime() < deadline) {
            served = true;
            for (final String user : users) {
                final HttpResponse<String> answer = get("/v1/tenants/t1/users/" + user + "/profile");
                if (answer.statusCode() == 503) {
                    assertThat(answer.headers().firstValue("Retry-After")).as(answer.body()).isPresent();
                    on503.accept(answer);
                } else if (answer.statusCode() != 200) {
                    wrong.add(answer.statusCode() + " for " + user + ": " + answer.body());
                }
                served &= answer.statusCode() == 200;
            }
            Thread.sleep(10);
        }
        return served;
    }

    private static boolean ready(final RetrieverApp.Handle handle) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(handle.baseUrl() + "/health/ready"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    /** @return the partitions of memory-updated in the instance's active tasks */
    private static java.util.Set<Integer> owned(final RetrieverApp.Handle handle) {
        return handle.runner().kafkaStreams().metadataForLocalThreads().stream()
            .flatMap(thread -> thread.activeTasks().stream()).flatMap(task -> task.topicPartitions().stream())
            .filter(tp -> tp.topic().equals(Topic.MEMORY_UPDATED.name())).map(tp -> tp.partition())
            .collect(java.util.stream.Collectors.toSet());
    }

    private static String user(final int i) {
        return "u-" + i;
    }

    /** One CREATED event per user, one embedding computed once (the embedding is not what is tested here). */
    private void publishBacklog() throws Exception {
        publishBacklog(-1);
    }

    /**
     * @param partition the partition of memory-updated (2 partitions) whose users are published, -1 for all
     * @return the numbers of the users published, in order
     */
    private List<Integer> publishBacklog(final int partition) throws Exception {
        final List<Integer> published = new ArrayList<>();
        final Memory base = memory("t1", "u-0", "m-0", "Keeps bees on the roof", T0).build();
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        // one request in flight: see OpsTestSupport.sendCandidates (KAFKA-15591, a batch lost to retries under load)
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        final Serializer<MemoryUpdated> values = AvroSerdes.serde(MemoryUpdated.class).serializer();
        final Map<String, String> failed = new java.util.concurrent.ConcurrentSkipListMap<>();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            // one partition's backlog as long as the whole topic's in the restart test
            for (int i = 0; i < (partition < 0 ? USERS : 2 * USERS); i++) {
                if (partition >= 0 && org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils
                    .murmur2(("t1/" + user(i)).getBytes(java.nio.charset.StandardCharsets.UTF_8))) % 2 != partition) {
                    continue;
                }
                published.add(i);
                final Instant at = T0.plusSeconds(i);
                final Memory m = Memory.newBuilder(base).setUserId(user(i)).setMemoryId("m-" + i).setCreatedAt(at)
                    .setUpdatedAt(at).build();
                final String key = "t1/" + user(i);
                producer.send(new ProducerRecord<>(Topic.MEMORY_UPDATED.name(), null, at.toEpochMilli(), key,
                    values.serialize(Topic.MEMORY_UPDATED.name(), updated(m, UpdateOperation.CREATED, at))),
                    (metadata, error) -> {
                        if (error != null) {
                            failed.put(key, error.toString());
                        }
                    });
            }
            producer.flush();
        }
        // a failed send would surface later as a 404 for a user of the backlog, which is what this test guards against
        assertThat(failed).as("failed sends of the backlog (key -> error)").isEmpty();
        return published;
    }

    private HttpResponse<String> get(final String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
