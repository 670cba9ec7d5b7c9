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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.StoreNames;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * Two retriever instances of one application share the partitions of memory-updated; each answers for
 * every user, forwarding to the owner when the user's partition is on the other instance.
 */
class RetrieverForwardingIT {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final List<String> USERS = List.of("u-1", "u-2", "u-3", "u-4", "u-5", "u-6");

    private static EmbeddedKafka kafka;
    private static RetrieverApp.Handle first;
    private static RetrieverApp.Handle second;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        final List<EmbeddedKafka.Record<String, MemoryUpdated>> records = new ArrayList<>();
        for (final String user : USERS) {
            final MemoryUpdated event = updated(memory("t1", user, "m-" + user, "The locker code of " + user + " is 12",
                T0).build(), UpdateOperation.CREATED, T0);
            records.add(new EmbeddedKafka.Record<>("t1/" + user, event, T0));
        }
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            records);
        // The same admin key on both instances: a forwarded request carries the caller's key to the owner.
        first = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS, KEY + "=t1:admin")));
        second = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS, KEY + "=t1:admin")));
        EmbeddedKafka.waitUntil(() -> first.runner().state() == KafkaStreams.State.RUNNING
                && second.runner().state() == KafkaStreams.State.RUNNING
                && owners().size() == 2 && USERS.stream().allMatch(u -> status(first, u) == 200 && status(second, u) == 200),
            TIMEOUT, "both instances running, each owning a partition, and answering for every user");
    }

    @AfterAll
    static void stop() throws Exception {
        for (final RetrieverApp.Handle handle : new RetrieverApp.Handle[] {first, second}) {
            if (handle != null) {
                handle.close();
            }
        }
        kafka.close();
    }

    private static Set<HostInfo> owners() {
        final Set<HostInfo> owners = new HashSet<>();
        for (final String user : USERS) {
            final var metadata = first.runner().kafkaStreams().queryMetadataForKey(StoreNames.RETRIEVER_MEMORIES,
                "t1/" + user, Serdes.String().serializer());
            owners.add(metadata.activeHost());
        }
        return owners;
    }

    private static final String KEY = "t1-admin-key-forwarding-1";

    /** A ranked query that records no access: a hit folded between two answers would change the second's score. */
    private static HttpResponse<String> get(final RetrieverApp.Handle handle, final String user) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(handle.baseUrl() + "/v1/tenants/t1/users/" + user
                + "/memories?query=locker%20code&recordAccess=false")).GET().header("Authorization", "Bearer " + KEY).build(),
                HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int status(final RetrieverApp.Handle handle, final String user) {
        return get(handle, user).statusCode();
    }

    @Test
    void shouldAnswerTheSameFromEitherInstanceWhenTheOtherOwnsTheUser() {
        assertThat(owners()).hasSize(2);
        for (final String user : USERS) {
            final HttpResponse<String> fromFirst = get(first, user);
            final HttpResponse<String> fromSecond = get(second, user);
            assertThat(fromFirst.statusCode()).isEqualTo(200);
            assertThat(fromSecond.statusCode()).isEqualTo(200);
            assertThat(fromFirst.body()).isEqualTo(fromSecond.body()).contains("m-" + user);
            assertThat(fromFirst.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/json"));
        }
    }
}
