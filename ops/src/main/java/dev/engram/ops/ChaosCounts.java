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

    /** Asks of one user before it counts as not served: a 503 or a timeout once is an answer delayed, not a loss. */
    private static final int ASKS = 4;

    /**
     * The retrievers must serve every memory on memory-updated, each once; users are asked in turn of the ports.
     * A user whose answer is not a 200 listing the memory is asked again (up to {@value #ASKS} times in all, 2 s
     * apart): only a memory still missing then is not served. Each user asked more than once, and each memory not
     * served, is printed with what the answers were (status, or the exception), the first ten of each.
     *
     * @param feeder what was published
     * @param updates every record of memory-updated
     * @param ports the retrievers' HTTP ports, on 127.0.0.1
     * @param out where the users asked again and the memories not served are named
     * @return missing, not served and duplicated counts
     */
    static Served served(final ChaosFeeder feeder, final List<MemoryUpdated> updates, final List<Integer> ports,
                         final java.io.PrintStream out) {
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
        int askedAgain = 0;
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
            final List<String> answers = new java.util.ArrayList<>();
            long unserved = ids.size();
            for (int ask = 0; ask < ASKS && unserved > 0; ask++) {
                if (ask > 0) {
                    Chaos.sleep(2);
                }
                unserved = unserved(http, port, user, ids, answers);
            }
            if (answers.size() > 1 && askedAgain++ < 10) {
                out.printf("chaos count: %s asked %d times on port %d: %s%n", user, answers.size(), port, answers);
            }
            if (unserved > 0) {
                if (notServed < 10) {
                    out.printf("chaos count: NOT SERVED: %d of %s's memories %s on port %d; answers: %s%n", unserved, user,
                        ids, port, answers);
                }
                notServed += unserved;
            }
        }
        if (askedAgain > 0) {
            out.printf("chaos count: %d users needed more than one ask%n", askedAgain);
        }
        return new Served(missing, notServed, duplicated);
    }

    /** @return how many of the ids one ask did not list; what was answered is added to {@code answers} */
    private static long unserved(final HttpClient http, final int port, final String user, final Set<String> ids,
                                 final List<String> answers) {
        try {
            final HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + port + "/v1/tenants/" + Chaos.TENANT + "/users/" + user + "/memories"))
                .header("Authorization", "Bearer " + Chaos.API_KEY).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            final long listed = ids.stream().filter(id -> answer.statusCode() == 200 && answer.body().contains(id)).count();
            answers.add(answer.statusCode() == 200 ? "200 listing " + listed + " of " + ids.size()
                : answer.statusCode() + " " + answer.body().substring(0, Math.min(160, answer.body().length())));
            return ids.size() - listed;
        } catch (IOException e) {
            answers.add(e.toString());
            return ids.size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}
