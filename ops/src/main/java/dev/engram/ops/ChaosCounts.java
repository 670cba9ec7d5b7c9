package dev.engram.ops;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;

/**
 * The end counts of a chaos run ({@link Chaos}, {@link ChaosScaleOut}): what the feeder published against what
 * reached {@code memory-updated} (lost, duplicated) and what the retrievers serve (missing, not served).
 */
final class ChaosCounts {

    private ChaosCounts() {
    }

    /** Lost and duplicated counts. */
    record Count(long lost, long duplicated) {
    }

    /**
     * Every published item's user must have its memories created once each and nothing else: one user per item, so
     * any second event for a memory id (a REINFORCED from a re-delivered candidate, a CREATED twice) is a
     * duplicate, and a user without any event is a lost item. Items never published ({@link ChaosFeeder#unsent()})
     * are not counted.
     *
     * @param feeder what was published
     * @param updates every record of memory-updated
     * @return lost and duplicated counts
     */
    static Count updates(final ChaosFeeder feeder, final List<MemoryUpdated> updates) {
        final Set<String> users = new HashSet<>();
        final Set<String> memories = new HashSet<>();
        long duplicated = 0;
        for (final MemoryUpdated update : updates) {
            users.add(update.getMemory().getUserId());
            if (!memories.add(update.getMemoryId()) || update.getOperation() != UpdateOperation.CREATED) {
                duplicated++;
            }
        }
        long lost = 0;
        for (long i = 0; i < feeder.sent(); i++) {
            if (feeder.published(i) && !users.contains(ChaosFeeder.user(i))) {
                lost++;
            }
        }
        return new Count(lost, duplicated);
    }

    /**
     * What the retrievers serve at the end.
     *
     * @param missing published items without any event on memory-updated (the pipeline's loss)
     * @param notServed memories on memory-updated that the retriever asked did not list
     * @param duplicated memory ids that reached one user twice on memory-updated
     */
    record Served(long missing, long notServed, long duplicated) {
    }

    /**
     * The retrievers must serve every memory on memory-updated, each once; users are asked in turn of the ports.
     *
     * @param feeder what was published
     * @param updates every record of memory-updated
     * @param ports the retrievers' HTTP ports, on 127.0.0.1
     * @return missing, not served and duplicated counts
     */
    static Served served(final ChaosFeeder feeder, final List<MemoryUpdated> updates, final List<Integer> ports) {
        final Map<String, Set<String>> logged = new HashMap<>();
        long duplicated = 0;
        for (final MemoryUpdated update : updates) {
            if (!logged.computeIfAbsent(update.getMemory().getUserId(), u -> new HashSet<>())
                .add(update.getMemoryId())) {
                duplicated++;
            }
        }
        final HttpClient http = HttpClient.newHttpClient();
        long missing = 0;
        long notServed = 0;
        for (long i = 0; i < feeder.sent(); i++) {
            if (!feeder.published(i)) {
                continue;
            }
            final String user = ChaosFeeder.user(i);
            final Set<String> ids = logged.getOrDefault(user, Set.of());
            if (ids.isEmpty()) {
                missing++; // never reached memory-updated: counted against the pipeline
                continue;
            }
            final int port = ports.get((int) (i % ports.size()));
            try {
                final HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + port + "/v1/tenants/" + Chaos.TENANT + "/users/" + user + "/memories"))
                    .header("Authorization", "Bearer " + Chaos.API_KEY).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
                for (final String id : ids) {
                    if (answer.statusCode() != 200 || !answer.body().contains(id)) {
                        notServed++;
                    }
                }
            } catch (IOException e) {
                notServed += ids.size();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
        }
        return new Served(missing, notServed, duplicated);
    }
}
