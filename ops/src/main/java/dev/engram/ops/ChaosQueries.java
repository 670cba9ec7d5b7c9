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

/** Four queries a second against the retriever on users already published; counts statuses. */
final class ChaosQueries {
    private final ChaosFeeder feeder;
    private final Map<Integer, Long> answers = new ConcurrentHashMap<>();
    private final AtomicLong unreachable = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger port = new AtomicInteger();
    private Thread thread;

    ChaosQueries(final ChaosFeeder feeder) {
        this.feeder = feeder;
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
            final long n = Math.max(1, feeder.sent());
            final String user = ChaosFeeder.user(random.nextLong(n));
            try {
                final HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + port.get() + "/v1/tenants/" + Chaos.TENANT + "/users/" + user + "/memories?query=chaos%20item&k=3"))
                    .header("Authorization", "Bearer " + Chaos.API_KEY).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding());
                answers.merge(answer.statusCode(), 1L, Long::sum);
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
        // 404: a user whose memory is not in the read model yet is an honest answer only before the
        // restarted instance catches up; the soak asks for users already consolidated, so it counts.
        return answers.entrySet().stream().filter(e -> e.getKey() != 200 && e.getKey() != 503)
            .mapToLong(Map.Entry::getValue).sum();
    }

    long unreachable() {
        return unreachable.get();
    }
}
