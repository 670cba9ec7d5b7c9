package dev.engram.client;

import java.time.Instant;
import java.util.List;

/**
 * The README's "Use it from your chat platform" example, runnable against {@code bin/engram demo}:
 * {@code java -cp … dev.engram.client.Example [API-URL] [BOOTSTRAP-SERVERS]}. It prints Mira's context block and
 * search hits from the demo's sample, then (with the broker's address, which the demo prints) publishes a new
 * conversation of a new user and waits until its memories are retrievable. The API key comes from
 * {@code ENGRAM_API_KEY} (none for the demo, which runs with keys off).
 */
public final class Example {

    private Example() {
    }

    /**
     * @param args {@code [API-URL [BOOTSTRAP-SERVERS]]}, default {@code http://localhost:8080} and no publishing
     * @throws InterruptedException if interrupted while waiting for the new memories
     */
    public static void main(final String[] args) throws InterruptedException {
        final String apiUrl = args.length > 0 ? args[0] : "http://localhost:8080";
        final String bootstrapServers = args.length > 1 ? args[1] : null;
        // readme:start
        EngramClient engram = EngramClient.builder(apiUrl).apiKey(System.getenv("ENGRAM_API_KEY")).build();
        EngramClient.User mira = engram.user("acme", "mira");

        // before answering Mira's next message: the memories that matter, as a prompt block
        Views.Context context = mira.context("Which editor should I set up for the new service?", 200);
        System.out.println(context.context());
        for (Views.Hit hit : mira.search("Where does Mira live?", 3).memories()) {
            System.out.printf("%.3f  %s%n", hit.score(), hit.content());
        }

        // after a conversation ends: publish it (key tenant/user, Engram's Avro serde)
        if (bootstrapServers != null) {
            try (ConversationPublisher publisher = new ConversationPublisher(bootstrapServers)) {
                publisher.publish(ConversationPublisher.conversation("acme", "ravi", "ravi-1", List.of(
                    new ConversationPublisher.Turn("user", "I live in Madrid and I mostly write Go.", Instant.now())))).join();
            }
            EngramClient.User ravi = engram.user("acme", "ravi");
            for (int tries = 0; tries < 100; tries++) {
                try {
                    System.out.println(ravi.list().count() + " memories of ravi: " + ravi.context("What language?").context());
                    break;
                } catch (EngramApiException.NotFound notYet) { // not consolidated yet
                    Thread.sleep(300);
                }
            }
        }
        // readme:end
    }
}
