package dev.engram.client;

import java.time.Instant;
import java.util.List;

/**
 * The README's "Use it from your chat platform" example, runnable against {@code bin/engram demo}:
 * {@code java -cp … dev.engram.client.Example [API-URL] [BOOTSTRAP-SERVERS]}. It prints Mira's context block and
 * search hits from the demo's sample without recording them as use (so it moves neither her memories' access nor
 * the consolidator's clock), then publishes a new conversation of a new user (over HTTP, or to Kafka when given the
 * broker's address, which the demo prints) and waits until its memories are retrievable. The API key comes from
 * {@code ENGRAM_API_KEY} (none for the demo, which runs with keys off).
 */
public final class Example {

    private Example() {
    }

    /**
     * @param args {@code [API-URL [BOOTSTRAP-SERVERS]]}, default {@code http://localhost:8080} and publishing over HTTP
     * @throws InterruptedException if interrupted while waiting for the new memories
     */
    public static void main(final String[] args) throws InterruptedException {
        final String apiUrl = args.length > 0 ? args[0] : "http://localhost:8080";
        final String bootstrapServers = args.length > 1 ? args[1] : null;
        // readme:start
        EngramClient engram = EngramClient.builder(apiUrl).apiKey(System.getenv("ENGRAM_API_KEY")).build();
        EngramClient.User mira = engram.user("acme", "mira");

        // before answering Mira's next message: the memories that matter, as a prompt block. A chat backend keeps
        // the default, which counts the hits as a use of those memories (used memories do not go stale); this look
        // around the demo is not a use, so it says recordAccess=false
        ReadOptions look = ReadOptions.defaults().withoutRecordingAccess();
        Views.Context context = mira.context("Which editor should I set up for the new service?", 200, look);
        System.out.println(context.context());
        for (Views.Hit hit : mira.search("Where does Mira live?", 3, look).memories()) {
            System.out.printf("%.3f  %s%n", hit.score(), hit.content());
        }

        // after a conversation ends: publish it, over HTTP (202 once the broker has it) or straight to Kafka
        EngramClient.User ravi = engram.user("acme", "ravi");
        List<ConversationPublisher.Turn> turns = List.of(
            new ConversationPublisher.Turn("user", "I live in Madrid and I mostly write Go.", Instant.now()));
        if (bootstrapServers == null) {
            ravi.postConversation("ravi-1", turns);
        } else {
            try (ConversationPublisher publisher = new ConversationPublisher(bootstrapServers)) {
                publisher.publish(ConversationPublisher.conversation("acme", "ravi", "ravi-1", turns)).join();
            }
        }
        for (int tries = 0; tries < 100; tries++) {
            try {
                System.out.println(ravi.list().count() + " memories of ravi: "
                    + ravi.context("What language?", 200, look).context());
                break;
            } catch (EngramApiException.NotFound notYet) { // not consolidated yet
                Thread.sleep(300);
            }
        }
        // readme:end
    }
}
