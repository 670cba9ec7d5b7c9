package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.engram.avro.MemoryUpdated;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.retriever.RetrieverApp;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.testing.EmbeddedKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * Two consolidator instances share the partitions; one is stopped: the other takes its partitions
 * over and every candidate (before and after the stop) yields exactly one {@code memory-updated}
 * event. Meanwhile the retriever is asked for a known user's memories the whole time and answers
 * either 200 with that memory or 503 with {@code Retry-After} — never a wrong answer.
 */
class ConsolidatorFailoverIT {

    private static final int PER_PHASE = 200;
    private static final String KEY = "ops-failover-it-admin-key";
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(4, Topic.allNames());
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    @Test
    void shouldTakeOverAndKeepAnsweringWhenOneOfTwoConsolidatorsStops() throws Exception {
        final String bootstrap = kafka.bootstrapServers();
        // a stopped instance is noticed after the session timeout (Streams does not leave the group on close)
        final Map<String, Object> fastFailover = Map.of("kafka.session.timeout.ms", 6000);
        final ConsolidatorApp a = ConsolidatorApp.start(kafka.engramConfig(fastFailover));
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        final AtomicInteger answered = new AtomicInteger();
        // no answer within the request's 30 s at load 10+ is no answer, not a wrong one: counted and reported apart
        final AtomicInteger timeouts = new AtomicInteger();
        final AtomicBoolean asking = new AtomicBoolean(true);
        try (ConsolidatorApp b = ConsolidatorApp.start(kafka.engramConfig(fastFailover));
             RetrieverApp.Handle retriever = RetrieverApp.start(kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS, KEY + "=t:admin")))) {
            OpsTestSupport.sendCandidates(bootstrap, 0, PER_PHASE);
            OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name()), Duration.ofMinutes(3));
            OpsTestSupport.awaitNoLag(bootstrap, AppIds.RETRIEVER, Set.of(Topic.MEMORY_UPDATED.name()), Duration.ofMinutes(3));
            final String expectedId = OpsTestSupport.candidate(7).getCandidateId();
            final URI uri = URI.create(retriever.baseUrl() + "/v1/tenants/t/users/u-7/memories");
            final Thread asker = new Thread(() -> {
                while (asking.get()) {
                    try {
                        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + KEY).GET().build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200 && r.body().contains(expectedId)) {
                            answered.incrementAndGet();
                        } else if (!(r.statusCode() == 503 && r.headers().firstValue("Retry-After").isPresent())) {
                            wrong.add(r.statusCode() + " " + r.body());
                        }
                    } catch (java.net.http.HttpTimeoutException e) {
                        timeouts.incrementAndGet();
                    } catch (Exception e) {
                        wrong.add(e.toString());
                    }
                }
            }, "failover-asker");
            asker.start();

            a.close();
            OpsTestSupport.sendCandidates(bootstrap, PER_PHASE, 2 * PER_PHASE);
            OpsTestSupport.awaitConsolidated(bootstrap, Set.of(Topic.MEMORY_CANDIDATES.name()), Duration.ofMinutes(3));
            // at least one answer while the survivor runs alone (at load 10+ the first may take a while)
            EmbeddedKafka.waitUntil(() -> answered.get() > 0 || !wrong.isEmpty(), Duration.ofMinutes(2),
                "an answer from the retriever after the failover (requests time out after 30 s; a timeout is not an answer)");
            asking.set(false);
            asker.join(60_000);

            final List<MemoryUpdated> updates = OpsTestSupport.committedUpdates(bootstrap);
            assertThat(b.runner().isLive()).isTrue();
            OpsTestSupport.assertExactlyOncePerCandidate(updates, 2 * PER_PHASE, 4);
            assertThat(wrong).as("%d wrong answers (%d right, %d timeouts), the first: %s", wrong.size(), answered.get(),
                timeouts.get(), wrong.stream().limit(3).toList()).isEmpty();
            assertThat(answered.get()).as("answers with the memory (%d timeouts)", timeouts.get()).isPositive();
        } finally {
            asking.set(false);
            a.close();
        }
    }
}
