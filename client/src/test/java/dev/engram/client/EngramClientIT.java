package dev.engram.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.engram.bench.EmbeddedStack;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.engram.topics.Topic;

/**
 * The client against the real embedded stack (in-process KRaft broker, extractor, consolidator, retriever with
 * the MiniLM model) with API keys on: a conversation published with {@link ConversationPublisher} becomes
 * memories the HTTP calls see, writes are applied, and the API's errors arrive as typed exceptions.
 */
class EngramClientIT {

    private static final String MIRA_KEY = "k-mira-0123456789";
    private static final String ANA_KEY = "k-ana-0123456789";
    private static final String ADMIN_KEY = "k-admin-0123456789";

    @TempDir
    static Path dir;

    private static EmbeddedStack stack;
    private static EngramClient mira;

    @BeforeAll
    static void start() {
        stack = EmbeddedStack.start(dir.resolve("run"), Map.of(
            EngramConfig.AUTH_ENABLED, true,
            EngramConfig.AUTH_KEYS, MIRA_KEY + "=acme:user:mira," + ANA_KEY + "=acme:user:ana,"
                + ADMIN_KEY + "=acme:admin"));
        stack.apps().awaitRetrieverReady(Duration.ofSeconds(90));
        mira = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(MIRA_KEY).build();
        try (ConversationPublisher publisher = new ConversationPublisher(stack.bootstrapServers())) {
            final Instant t = Instant.parse("2025-01-06T09:00:00Z");
            publisher.publish(ConversationPublisher.conversation("acme", "mira", "mira-1", List.of(
                new ConversationPublisher.Turn("user", "Hi, I work at Ferrovia Labs as a backend engineer.", t),
                new ConversationPublisher.Turn("user", "These days I write almost everything in Kotlin and I use IntelliJ.",
                    t.plusSeconds(40))))).join();
            publisher.publish(ConversationPublisher.conversation("acme", "mira", "mira-2", List.of(
                new ConversationPublisher.Turn("user", "I live in Berlin, so keep meeting suggestions in CET.",
                    t.plus(Duration.ofDays(14)))))).join();
            publisher.publish(ConversationPublisher.conversation("acme", "leo", "leo-1", List.of(
                new ConversationPublisher.Turn("user", "I live in Porto. These days I write almost everything in Rust.", t))))
                .join();
        }
        stack.awaitSettled(Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void shouldPublishWithTheKeyAndTopicThePipelineReads() {
        assertThat(ConversationPublisher.TOPIC).isEqualTo(Topic.CONVERSATIONS_COMPLETED.name());
        assertThat(ConversationPublisher.key("acme", "mira/work")).isEqualTo(new UserKey("acme", "mira/work").wire());
        assertThatThrownBy(() -> ConversationPublisher.key("a/b", "u")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldGetContextSearchListProfileAndExportOfThePublishedConversations() {
        final EngramClient.User user = mira.user("acme", "mira");

        final Views.Context context = user.context("Which language should I use for the new service?", 200);
        assertThat(context.context()).contains("Kotlin");
        assertThat(context.estimatedTokens()).isLessThanOrEqualTo(200);
        final Views.SearchResult search = user.search("Where do I live?", 3);
        assertThat(search.memories()).isNotEmpty().hasSizeLessThanOrEqualTo(3);
        assertThat(search.memories()).anyMatch(hit -> hit.content().contains("Berlin"));
        final Views.MemoryList list = user.list();
        assertThat(list.count()).isEqualTo(list.memories().size()).isGreaterThanOrEqualTo(2);
        assertThat(list.memories()).allMatch(m -> m.createdAt() != null && m.sources() != null);
        assertThat(user.profile().activeMemories()).isPositive();
        final Views.Export export = user.export();
        assertThat(export.format()).isEqualTo("engram-export-v1");
        assertThat(export.memories()).extracting(Views.MemoryView::memoryId)
            .containsExactlyInAnyOrderElementsOf(list.memories().stream().map(Views.MemoryView::memoryId).toList());
    }

    @Test
    void shouldCorrectAndDeleteAMemoryAndEraseTheUser() {
        final EngramClient.User user = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .user("acme", "leo");
        final Views.MemoryView porto = user.list().memories().stream()
            .filter(m -> m.content().contains("Porto")).findFirst().orElseThrow();
        final Views.MemoryView rust = user.list().memories().stream()
            .filter(m -> m.content().contains("Rust")).findFirst().orElseThrow();

        assertThat(user.correct(porto.memoryId(), "Lives in Braga", porto.key() == null ? null : "Braga").commandId()).isNotBlank();
        await(() -> user.list().memories().stream().anyMatch(m -> m.memoryId().equals(porto.memoryId())
            && "CORRECTED".equals(m.source()) && m.content().equals("Lives in Braga")));
        assertThat(user.delete(rust.memoryId()).commandId()).isNotBlank();
        await(() -> user.list().memories().stream().noneMatch(m -> m.memoryId().equals(rust.memoryId())
            && "ACTIVE".equals(m.status())));
        assertThatThrownBy(() -> user.delete("no-such-memory")).isInstanceOf(EngramApiException.NotFound.class);

        assertThat(user.erase().commandId()).isNotBlank();
        await(() -> {
            try {
                user.list();
                return false;
            } catch (EngramApiException.NotFound e) {
                return true;
            }
        });
    }

    @Test
    void shouldRaiseTheApisErrorsAsTypedExceptions() {
        assertThatThrownBy(() -> mira.user("acme", "ana").list())
            .isInstanceOfSatisfying(EngramApiException.Forbidden.class, e -> assertThat(e.status()).isEqualTo(403));
        final EngramClient ana = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ANA_KEY).build();
        assertThatThrownBy(() -> ana.user("acme", "ana").context("anything at all"))
            .isInstanceOfSatisfying(EngramApiException.NotFound.class, e -> assertThat(e.detail()).contains("ana"));
        assertThatThrownBy(() -> EngramClient.builder(stack.apps().retrieverUrl()).apiKey("wrong").build()
            .user("acme", "mira").list()).isInstanceOf(EngramApiException.Unauthorized.class);
        assertThatThrownBy(() -> mira.user("acme", "mira").search("Kotlin", 0))
            .isInstanceOf(EngramApiException.BadRequest.class).hasMessageContaining("k must be between");
        assertThatThrownBy(() -> mira.user("acme", " ")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void await(final Supplier<Boolean> condition) {
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within 60 s");
            }
            try {
                Thread.sleep(200); // polling the HTTP API: the command is applied asynchronously
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
