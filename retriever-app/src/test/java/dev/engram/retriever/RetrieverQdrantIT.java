package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.qdrant.QdrantConfig;
import dev.engram.qdrant.QdrantSettings;
import dev.engram.qdrant.QdrantVectorIndex;
import dev.engram.qdrant.testing.QdrantDouble;
import dev.engram.serde.AvroSerdes;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Points.QueryPoints;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * The retriever with {@code vector.index=qdrant} (the Qdrant double on a TCP port, reached through the
 * real client settings): dense candidates come from a user-scoped Qdrant query (case-05 over Qdrant),
 * and while Qdrant is down a search answers 503 with Retry-After while profile and list views are
 * still served from the stores; when it is back, searches work again without a restart.
 */
class RetrieverQdrantIT {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String LOCKER = id("ana-locker");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedKafka kafka;
    private static QdrantDouble qdrant;
    private static RetrieverApp.Handle retriever;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        qdrant = QdrantDouble.start();
        final int port = qdrant.startTcp();
        final EngramConfig config = kafka.engramConfig(Map.of(RetrieverConfig.AUTH_ENABLED, false,
            QdrantConfig.VECTOR_INDEX, "qdrant",
            QdrantConfig.QDRANT_HOST, "localhost", QdrantConfig.QDRANT_PORT, port, QdrantConfig.QDRANT_TIMEOUT_MS, 10_000,
            PipelineConfig.QDRANT_RETRY_BUDGET_MS, 2000));

        // What the consolidator writes: the same memories into Qdrant and onto memory-updated.
        final List<Memory> memories = List.of(
            memory("t1", "u-ana", LOCKER, "My gym locker code is 4417.", T0).build(),
            memory("t1", "u-ana", id("ana-chess"), "Plays chess on Sundays.", T0.plusSeconds(60)).build(),
            memory("t1", "u-ben", id("ben-bike"), "Rides a bike to work.", T0.plusSeconds(120)).build());
        try (QdrantVectorIndex writer = QdrantVectorIndex.connect(new QdrantSettings("localhost", port, false, null,
            "engram-memories", Duration.ofSeconds(5)), ScriptRoutedEmbedder.defaults().modelName(),
            ScriptRoutedEmbedder.defaults().dimensions(), new SimpleMeterRegistry())) {
            memories.forEach(writer::upsert);
        }
        final List<EmbeddedKafka.Record<String, MemoryUpdated>> records = new ArrayList<>();
        for (final Memory m : memories) {
            records.add(new EmbeddedKafka.Record<>(m.getTenantId() + "/" + m.getUserId(),
                updated(m, UpdateOperation.CREATED, m.getCreatedAt()), m.getCreatedAt()));
        }
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            records);
        retriever = RetrieverApp.start(config);
        EmbeddedKafka.waitUntil(() -> get("/v1/tenants/t1/users/u-ana/memories").statusCode() == 200
                && get("/v1/tenants/t1/users/u-ben/memories").statusCode() == 200,
            TIMEOUT, "the retriever to serve both users");
    }

    @AfterAll
    static void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        qdrant.close();
        kafka.close();
    }

    @Test
    void shouldSearchQdrantScopedToTheUserAndAnswer503WhileItIsDown() throws Exception {
        qdrant.clearCalls();
        // the first query is the gRPC channel's first call: a deadline of 10 s (not the default 2) lets a CI machine at
        // load 100 make it; Qdrant down below is refused at once, so the 503 does not wait for the deadline
        final HttpResponse<String> benResponse = get("/v1/tenants/t1/users/u-ben/memories?query=" + q("locker code"));
        assertThat(benResponse.statusCode()).as(benResponse.body()).isEqualTo(200);
        final JsonNode ben = JSON.readTree(benResponse.body());
        assertThat(ben.get("memories")).isNotNull();
        assertThat(ben.get("memories").toString()).doesNotContain("4417");
        final JsonNode ana = JSON.readTree(get("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker code")).body());
        assertThat(ana.get("memories").get(0).toString()).contains("4417");
        final List<QueryPoints> queries = qdrant.requests(QueryPoints.class);
        assertThat(queries).hasSize(2);
        assertThat(queries.get(0).getFilter().getMustList()).extracting(RetrieverQdrantIT::keyword)
            .containsExactlyInAnyOrder("tenant_id=t1", "user_id=u-ben", "status=ACTIVE",
                "embedding_model=" + ScriptRoutedEmbedder.defaults().modelName()); // never another model's vectors
        // k = 5: a list re-orders the best 15 (over-fetch 3) with the kind prior, from a ranking that over-fetches 3 × 15
        assertThat(queries.get(0).getLimit()).isEqualTo(45);

        qdrant.stop();
        final HttpResponse<String> down = get("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker code"));
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(down.headers().firstValue("Content-Type")).hasValueSatisfying(
            t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(get("/v1/tenants/t1/users/u-ana/context?message=" + q("locker")).statusCode()).isEqualTo(503);
        assertThat(get("/v1/tenants/t1/users/u-ana/profile").statusCode()).isEqualTo(200);
        assertThat(get("/v1/tenants/t1/users/u-ana/memories").statusCode()).isEqualTo(200);

        qdrant.startServer();
        EmbeddedKafka.waitUntil(() -> get("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker code"))
            .statusCode() == 200, Duration.ofSeconds(120), "searches to work again");
    }

    private static String keyword(final Condition c) {
        return c.getField().getKey() + "=" + c.getField().getMatch().getKeyword();
    }

    private static String id(final String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static HttpResponse<String> get(final String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String q(final String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
