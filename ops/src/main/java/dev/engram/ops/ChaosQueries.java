package dev.engram.ops;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import dev.engram.topics.Topic;

/**
 * Four queries a second against the retriever, each for a user whose {@code memory-updated} event has been committed
 * for at least {@link #SETTLED_SECONDS} (a read_committed consumer of the soak tails the topic and notes when it
 * first saw each user): such a user is on the retriever's input, so a retriever that has caught up answers 200 and one
 * still reading its backlog 503; a 404 is the retriever's fault, not the pipeline's freshness (picking users by
 * when the feeder published them counted the consolidator's start-up lag as the retriever's). Counts statuses and
 * prints each answer other than 200/503 with the seconds since the retriever instance was started.
 *
 * <p>With several retriever instances it acts as a load balancer: each query goes to the next instance in turn, and a
 * connection refused (the instance is down) is counted as {@code unreachable} and the query sent to the next one; an
 * answer so obtained is counted as served by a survivor. Every answer's latency (from sending the request to the
 * instance that answered to its last byte) is kept for the percentiles.
 */
final class ChaosQueries {
    /** How long before a query its user's event was committed on memory-updated: well over the retriever's freshness. */
    static final int SETTLED_SECONDS = 10;

    private final java.io.PrintStream out;
    private final String bootstrap;
    private final int settledSeconds;
    private volatile long instanceStartedAt = System.nanoTime();
    /** Users in the order their first memory-updated event was seen, and when (nanoTime), appended by the tail. */
    private final java.util.List<String> seenUsers = new java.util.ArrayList<>();
    private final java.util.List<Long> seenAt = new java.util.ArrayList<>();
    private Thread tail;
    private final Map<Integer, Long> answers = new ConcurrentHashMap<>();
    private final AtomicLong unreachable = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile List<Integer> ports = List.of();
    private final AtomicLong servedBySurvivor = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final Map<Integer, Long> answeredBy = new ConcurrentHashMap<>();
    /** Latency of every answer, ms. */
    private final List<Double> latencies = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private Thread thread;

    /**
     * @param bootstrap the soak's broker, whose memory-updated is tailed
     * @param out where wrong answers are reported
     */
    ChaosQueries(final String bootstrap, final java.io.PrintStream out) {
        this(bootstrap, out, SETTLED_SECONDS);
    }

    /**
     * @param bootstrap the soak's cluster, whose memory-updated is tailed
     * @param out where wrong answers are reported
     * @param settledSeconds how long before a query its user's event must have been committed (the scale-out run,
     *     whose broker kills pause every consumer for a leader election, allows more than {@link #SETTLED_SECONDS})
     */
    ChaosQueries(final String bootstrap, final java.io.PrintStream out, final int settledSeconds) {
        this.bootstrap = bootstrap;
        this.out = out;
        this.settledSeconds = settledSeconds;
    }

    /** A new retriever instance was started now (the seconds in the wrong-answer lines count from here). */
    void instanceStarted() {
        instanceStartedAt = System.nanoTime();
    }

    /**
     * Starts the tail and the queries.
     *
     * @param retrieverPorts the retriever instances' HTTP ports, asked in turn
     */
    void start(final List<Integer> retrieverPorts) {
        ports = List.copyOf(retrieverPorts);
        running.set(true);
        tail = new Thread(this::tail, "chaos-memory-updated-tail");
        tail.setDaemon(true);
        tail.start();
        thread = new Thread(this::loop, "chaos-queries");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        final Random random = new Random(16);
        int turn = 0;
        while (running.get()) {
            final String user = settledUser(random);
            if (user == null) {
                Chaos.sleep(0.25);
                continue;
            }
            final int first = turn++ % ports.size();
            for (int attempt = 0; attempt < ports.size(); attempt++) {
                final int port = ports.get((first + attempt) % ports.size());
                try {
                    final long sentAt = System.nanoTime();
                    final HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + port + "/v1/tenants/" + Chaos.TENANT + "/users/" + user + "/memories?query=chaos%20item&k=3"))
                        .header("Authorization", "Bearer " + Chaos.API_KEY).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding());
                    latencies.add((System.nanoTime() - sentAt) / 1e6);
                    answers.merge(answer.statusCode(), 1L, Long::sum);
                    answeredBy.merge(port, 1L, Long::sum);
                    if (attempt > 0) {
                        servedBySurvivor.incrementAndGet();
                    }
                    if (answer.statusCode() != 200 && answer.statusCode() != 503) {
                        out.printf("chaos retriever: %d for %s from port %d, %.1f s after an instance started%n",
                            answer.statusCode(), user, port, (System.nanoTime() - instanceStartedAt) / 1e9);
                    }
                    break;
                } catch (java.net.http.HttpTimeoutException e) {
                    // a live instance that did not answer within 10 s: no answer either; the next one is asked
                    timeouts.incrementAndGet();
                } catch (IOException e) {
                    // refused while the process is down, or it died with the request in flight: no answer; the
                    // next instance is asked, as a load balancer would
                    unreachable.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            Chaos.sleep(0.25);
        }
    }

    /** @return a random user whose first memory-updated event was seen the settled seconds ago or more, or null */
    private String settledUser(final Random random) {
        final long cutoff = System.nanoTime() - java.util.concurrent.TimeUnit.SECONDS.toNanos(settledSeconds);
        synchronized (seenUsers) {
            int settled = java.util.Collections.binarySearch(seenAt, cutoff);
            settled = settled >= 0 ? settled + 1 : -settled - 1; // entries seen at or before the cutoff
            return settled == 0 ? null : seenUsers.get(random.nextInt(settled));
        }
    }

    /** Reads memory-updated (read_committed, every partition, from the beginning) and notes each new user's time. */
    private void tail() {
        final java.util.Map<String, Object> props = java.util.Map.of("bootstrap.servers", bootstrap,
            "isolation.level", "read_committed", "enable.auto.commit", false);
        final java.util.Set<String> known = new java.util.HashSet<>();
        try (org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> consumer =
                 new org.apache.kafka.clients.consumer.KafkaConsumer<>(props,
                     new org.apache.kafka.common.serialization.StringDeserializer(),
                     new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            final java.util.List<org.apache.kafka.common.TopicPartition> partitions = consumer
                .partitionsFor(Topic.MEMORY_UPDATED.name(), Duration.ofSeconds(30)).stream()
                .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running.get()) {
                for (final org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> r
                    : consumer.poll(Duration.ofMillis(200))) {
                    // key tenant/user; one user per item, so a user's first event is its memory's CREATED
                    if (r.key() != null && known.add(r.key())) {
                        synchronized (seenUsers) {
                            seenUsers.add(r.key().substring(r.key().indexOf('/') + 1));
                            seenAt.add(System.nanoTime());
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            out.println("chaos retriever: the memory-updated tail stopped (no more queries): " + e);
        }
    }

    void stop() {
        if (running.getAndSet(false) && thread != null) {
            try {
                thread.join(15_000);
                tail.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Map<Integer, Long> answers() {
        return new TreeMap<>(answers);
    }

    long wrong() {
        // 404: the user's memory has been committed on memory-updated for SETTLED_SECONDS, so a retriever that
        // says it does not know the user answers wrong (it should be 503 until it has caught up)
        return answers.entrySet().stream().filter(e -> e.getKey() != 200 && e.getKey() != 503)
            .mapToLong(Map.Entry::getValue).sum();
    }

    long unreachable() {
        return unreachable.get();
    }

    /** @return requests that got no answer within 10 s from a running instance */
    long timeouts() {
        return timeouts.get();
    }

    /** @return answers received from another instance after the one asked first could not be reached */
    long servedBySurvivor() {
        return servedBySurvivor.get();
    }

    /** @return answers by the HTTP port of the instance that gave them */
    Map<Integer, Long> answeredBy() {
        return new TreeMap<>(answeredBy);
    }

    /**
     * @param quantile e.g. 0.99
     * @return that quantile of the answers' latencies, ms (nearest rank), 0 without answers
     */
    double latencyMs(final double quantile) {
        final double[] sorted;
        synchronized (latencies) {
            sorted = latencies.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        }
        if (sorted.length == 0) {
            return 0;
        }
        final int rank = (int) Math.ceil(quantile * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
