package dev.engram.ops;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Four queries a second against the retriever, each for a user published at least {@link #SETTLED_SECONDS}
 * before (the consolidator is not killed in the retriever's soak, so that user's memory is on
 * {@code memory-updated} by then); counts statuses, and prints each answer other than 200/503 with the
 * seconds since the retriever instance was started.
 */
final class ChaosQueries {
    /** How long before a query its user was published: well over the pipeline's freshness (p99 ~1 s). */
    static final int SETTLED_SECONDS = 10;

    private final java.io.PrintStream out;
    private final int rate;
    private volatile long instanceStartedAt = System.nanoTime();
    private final ChaosFeeder feeder;
    private final Map<Integer, Long> answers = new ConcurrentHashMap<>();
    private final AtomicLong unreachable = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger port = new AtomicInteger();
    private Thread thread;

    /**
     * @param feeder the input, whose count says which users are published
     * @param rate items the feeder publishes per second (one user each)
     * @param out where wrong answers are reported
     */
    ChaosQueries(final ChaosFeeder feeder, final int rate, final java.io.PrintStream out) {
        this.feeder = feeder;
        this.rate = rate;
        this.out = out;
    }

    /** A new retriever instance was started now (the seconds in the wrong-answer lines count from here). */
    void instanceStarted() {
        instanceStartedAt = System.nanoTime();
    }

    void start(final int retrieverPort) {
        port.set(retrieverPort);
        running.set(true);
        thread = new Thread(this::loop, "chaos-queries");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        final Random random = new Random(16);
        while (running.get()) {
            final long settled = feeder.sent() - (long) SETTLED_SECONDS * rate;
            if (settled < 1) {
                Chaos.sleep(0.25);
                continue;
            }
            final String user = ChaosFeeder.user(random.nextLong(settled));
            try {
                final HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + port.get() + "/v1/tenants/" + Chaos.TENANT + "/users/" + user + "/memories?query=chaos%20item&k=3"))
                    .header("Authorization", "Bearer " + Chaos.API_KEY).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding());
                answers.merge(answer.statusCode(), 1L, Long::sum);
                if (answer.statusCode() != 200 && answer.statusCode() != 503) {
                    out.printf("chaos retriever: %d for %s %.1f s after the instance started%n", answer.statusCode(), user,
                        (System.nanoTime() - instanceStartedAt) / 1e9);
                }
            } catch (java.net.ConnectException e) {
                unreachable.incrementAndGet();
            } catch (IOException e) {
                // the process died with the request in flight: no answer either
                unreachable.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            Chaos.sleep(0.25);
        }
    }

    void stop() {
        if (running.getAndSet(false) && thread != null) {
            try {
                thread.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Map<Integer, Long> answers() {
        return new TreeMap<>(answers);
    }

    long wrong() {
        // 404: the user's memory has been on memory-updated for SETTLED_SECONDS, so a retriever that says
        // it does not know the user answers wrong (it should be 503 until it has caught up)
        return answers.entrySet().stream().filter(e -> e.getKey() != 200 && e.getKey() != 503)
            .mapToLong(Map.Entry::getValue).sum();
    }

    long unreachable() {
        return unreachable.get();
    }
}
