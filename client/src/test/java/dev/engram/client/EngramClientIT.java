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
import dev.engram.core.UserKey;
import dev.engram.retriever.RetrieverConfig;
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
            RetrieverConfig.AUTH_ENABLED, true,
            RetrieverConfig.AUTH_KEYS, MIRA_KEY + "=acme:user:mira," + ANA_KEY + "=acme:user:ana,"
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
            // days before the run: the corrections are stamped with the wall clock, and the lifecycle pass they move
            // to today would expire a 2025 employer fact (ROLE, 120 days) before its correction
            final Instant recent = Instant.now().minus(Duration.ofDays(3)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            publisher.publish(ConversationPublisher.conversation("acme", "sam", "sam-1", List.of(
                new ConversationPublisher.Turn("user", "I live in Graz, it's a small city in Austria.", recent)))).join();
            publisher.publish(ConversationPublisher.conversation("acme", "sam", "sam-2", List.of(
                new ConversationPublisher.Turn("user", "I work at Initech.", recent.plus(Duration.ofDays(1)))))).join();
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
        // an ACTIVE one: an archived memory is history, its correction a 409
        final Views.MemoryView porto = user.list().memories().stream()
            .filter(m -> m.content().contains("Porto") && "ACTIVE".equals(m.status())).findFirst().orElseThrow();
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

    /**
     * Issue 26: a correction of the value alone (the JVM client's {@code correct(id, null, value)}, the MCP tool
     * {@code correct_memory} with only {@code value}) rewrites the content, so the list, the profile, search, the
     * context block and the export all say the new value and none states the old one as current.
     */
    @Test
    void shouldAgreeEverywhereWhenOnlyTheValueIsCorrectedThroughTheClientOrTheMcpTool() throws Exception {
        final EngramClient.User sam = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .user("acme", "sam");
        final Views.MemoryView city = activeFact(sam, "city");
        final Views.MemoryView employer = activeFact(sam, "employer");
        assertThat(city.value()).isEqualTo("Graz");
        assertThat(employer.value()).isEqualTo("Initech");

        assertThat(sam.correct(city.memoryId(), null, "Linz").commandId()).isNotBlank();
        final java.net.http.HttpResponse<String> mcp = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(stack.apps().retrieverUrl() + "/mcp"))
                .header("Authorization", "Bearer " + ADMIN_KEY).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                    + "\"tools/call\",\"params\":{\"name\":\"correct_memory\",\"arguments\":{\"tenantId\":\"acme\","
                    + "\"userId\":\"sam\",\"memoryId\":\"" + employer.memoryId() + "\",\"value\":\"Hooli\"}}}"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(mcp.statusCode()).as(mcp.body()).isEqualTo(200);
        assertThat(mcp.body()).as("the tool's answer").doesNotContain("\"isError\":true").contains("commandId");

        await(() -> sam.list().memories().stream().anyMatch(m -> m.memoryId().equals(city.memoryId())
                && "Linz".equals(m.value()))
            && sam.list().memories().stream().anyMatch(m -> m.memoryId().equals(employer.memoryId())
                && "Hooli".equals(m.value())));
        assertCoherent(sam, city.memoryId(), "city", "Graz", "Linz", "Which city do I live in?");
        assertCoherent(sam, employer.memoryId(), "employer", "Initech", "Hooli", "Where do I work?");
    }

    private static Views.MemoryView activeFact(final EngramClient.User user, final String key) {
        return user.list().memories().stream().filter(m -> key.equals(m.key()) && "ACTIVE".equals(m.status()))
            .findFirst().orElseThrow(() -> new AssertionError("no ACTIVE " + key + " in " + user.list().memories()));
    }

    /** List, profile, search, context and export all name the new value and state the old one nowhere as current. */
    private static void assertCoherent(final EngramClient.User user, final String memoryId, final String key,
                                       final String old, final String now, final String question) {
        final Views.MemoryView corrected = user.list().memories().stream().filter(m -> m.memoryId().equals(memoryId))
            .findFirst().orElseThrow();
        assertThat(corrected.source()).isEqualTo("CORRECTED");
        assertThat(corrected.content()).as("list").contains(now).doesNotContain(old);
        assertThat(user.profile().facts().values().stream().flatMap(List::stream).filter(f -> key.equals(f.key())))
            .as("profile").extracting(Views.Fact::value).containsExactly(now);
        assertThat(user.search(question, 5).memories()).as("search").anyMatch(h -> h.content().contains(now))
            .noneMatch(h -> h.content().contains(old));
        final String context = user.context(question, 512).context();
        final int past = context.indexOf("Earlier, no longer current");
        assertThat(past < 0 ? context : context.substring(0, past)).as("context").contains(now).doesNotContain(old);
        assertThat(user.export().memories()).as("export").filteredOn(m -> m.memoryId().equals(memoryId))
            .singleElement().satisfies(m -> assertThat(m.content()).contains(now).doesNotContain(old));
    }

    @Test
    void shouldTurnAConversationPostedOverHttpIntoMemoriesOnceWhateverTheRetries() {
        final EngramClient.User zoe = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .user("acme", "zoe");
        final List<ConversationPublisher.Turn> turns = List.of(new ConversationPublisher.Turn("user",
            "I live in Lyon. These days I write almost everything in Elixir.", Instant.parse("2025-03-01T10:00:00Z")));

        final Views.ConversationAccepted accepted = zoe.postConversation("zoe-1", turns);
        assertThat(accepted.conversationId()).isEqualTo("zoe-1");
        assertThat(accepted.status()).isEqualTo("ACCEPTED");
        await(() -> {
            try {
                return zoe.list().memories().stream().anyMatch(m -> m.content().contains("Lyon"));
            } catch (EngramApiException.NotFound notYet) {
                return false;
            }
        });
        stack.awaitSettled(Duration.ofSeconds(120));
        final List<String> first = zoe.list().memories().stream().map(Views.MemoryView::memoryId).sorted().toList();
        // a retry of the same conversation, then another one: once the other is in, the retry has been applied
        zoe.postConversation("zoe-1", turns);
        zoe.postConversation("zoe-2", List.of(new ConversationPublisher.Turn("user", "I started learning the oboe.",
            Instant.parse("2025-03-02T10:00:00Z"))));
        await(() -> zoe.list().memories().stream().anyMatch(m -> m.content().contains("oboe")));
        stack.awaitSettled(Duration.ofSeconds(120));
        final Views.MemoryList after = zoe.list();
        assertThat(after.memories().stream().filter(m -> !m.content().contains("oboe") && !"Observation".equals(m.displayName()))
            .map(Views.MemoryView::memoryId).sorted().toList()).as("the retry created nothing: " + after.memories().stream()
                .map(m -> m.memoryId() + " " + m.displayName() + ": " + m.content()).toList()).isSubsetOf(first);
        assertThat(after.memories()).filteredOn(m -> m.memoryId().equals(first.get(0)))
            .allSatisfy(m -> assertThat(m.reinforcementCount()).isLessThanOrEqualTo(1));
        assertThatThrownBy(() -> zoe.postConversation("zoe-3", List.of(new ConversationPublisher.Turn("wizard", "hi",
            Instant.parse("2025-03-03T10:00:00Z"))))).isInstanceOfSatisfying(EngramApiException.BadRequest.class,
                e -> assertThat(e.detail()).contains("wizard"));
    }

    @Test
    void shouldReadWithMinScoreAsOfHistoryAndFilters() {
        final EngramClient.User user = mira.user("acme", "mira");
        final Views.MemoryView berlin = user.list().memories().stream().filter(m -> m.content().contains("Berlin"))
            .findFirst().orElseThrow();
        final ReadOptions look = ReadOptions.defaults().withoutRecordingAccess();

        final Views.SearchResult all = user.search("Where do I live?", 5, look);
        assertThat(all.memories()).anyMatch(hit -> hit.memoryId().equals(berlin.memoryId()));
        final double best = all.memories().get(0).score();
        assertThat(user.search("Where do I live?", 5, look.withMinScore(best)).memories())
            .allSatisfy(hit -> assertThat(hit.score()).isGreaterThanOrEqualTo(best)).isNotEmpty();
        assertThat(user.search("Where do I live?", 5, look.withAsOf(Instant.parse("2025-01-07T00:00:00Z"))).memories())
            .as("before she said it").noneMatch(hit -> hit.memoryId().equals(berlin.memoryId()));
        assertThat(user.context("Where should we meet?", 200, look).memoryIds()).isNotNull();
        assertThatThrownBy(() -> user.context("Where?", 200, look.withMinScore(0.5)))
            .isInstanceOf(IllegalArgumentException.class);

        final Views.History history = user.history(berlin.memoryId());
        assertThat(history.versions()).isNotEmpty();
        assertThat(history.versions().get(0).operation()).isEqualTo("CREATED");
        assertThat(history.versions().get(0).memory().content()).contains("Berlin");
        assertThat(user.list("SEMANTIC", "ACTIVE").memories()).allSatisfy(m -> {
            assertThat(m.type()).isEqualTo("SEMANTIC");
            assertThat(m.status()).isEqualTo("ACTIVE");
        });
    }

    @Test
    void shouldTurnMemoryOffAndOnAndCheckAnErasureWithAnAdminKey() {
        final EngramClient admin = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build();
        final EngramClient.User user = admin.user("acme", "mira");

        assertThat(user.setMemoryEnabled(false).kind()).isEqualTo("SET_MEMORY_ENABLED");
        await(() -> !user.profile().memoryEnabled());
        assertThat(user.search("Where do I live?", 3, ReadOptions.defaults().withoutRecordingAccess()).memories())
            .as("memory off: nothing is returned").isEmpty();
        user.setMemoryEnabled(true);
        await(() -> user.profile().memoryEnabled());

        final Views.Erasure erasure = admin.user("acme", "nobody-ever").erasure();
        assertThat(erasure.userId()).isEqualTo("nobody-ever");
        assertThat(erasure.places()).containsKey("dataKey");
        assertThatThrownBy(() -> mira.user("acme", "mira").erasure()).isInstanceOf(EngramApiException.Forbidden.class);
    }

    @Test
    void shouldScopeReadsToAnAgentWhenConversationsArePostedForIt() {
        final EngramClient.User noa = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .user("acme", "noa");
        noa.postConversation("noa-1", List.of(new ConversationPublisher.Turn("user",
            "We hiked the Besseggen ridge last weekend and camped by the lake.", Instant.parse("2025-06-01T10:00:00Z"))),
            "travel");
        await(() -> {
            try {
                return noa.list().memories().stream().anyMatch(m -> m.content().contains("Besseggen"));
            } catch (EngramApiException.NotFound notYet) {
                return false;
            }
        });
        final ReadOptions look = ReadOptions.defaults().withoutRecordingAccess();

        assertThat(noa.search("Where did we hike?", 5, look.withAgentId("travel")).memories())
            .anyMatch(hit -> hit.content().contains("Besseggen") && "travel".equals(hit.agentId()))
            .allMatch(hit -> hit.agentId() == null || "travel".equals(hit.agentId()));
        assertThat(noa.list().memories()).filteredOn(m -> m.content().contains("Besseggen"))
            .allSatisfy(m -> assertThat(m.agentId()).isEqualTo("travel"));
        assertThat(noa.search("Where did we hike?", 5, look.withAgentId("coding")).memories())
            .noneMatch(hit -> hit.content().contains("Besseggen"));
        assertThat(noa.context("Where did we hike?", 200, look.withAgentId("coding")).context()).doesNotContain("Besseggen");
    }

    /**
     * A turn that names a fact's old value stays ACTIVE (it is what the user said) once the fact is corrected; the
     * search hit the client reads says it is outdated, since when, and which memory holds the new value.
     */
    @Test
    void shouldReadAHitAsOutdatedWithWhatReplacedItWhenTheFactItNamesIsCorrected() {
        final EngramClient.User dana = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .user("acme", "dana");
        // days before the run: the correction is stamped with the wall clock (see start())
        final Instant recent = Instant.now().minus(Duration.ofDays(3)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        // with the reply, the turn is also kept as said (an episode without a key), as in KnowledgeUpdateReproductionsTest
        dana.postConversation("dana-1", List.of(new ConversationPublisher.Turn("user",
            "My name is Dana Whitfield and I work at Umbrella Labs.", recent),
            new ConversationPublisher.Turn("assistant", "Nice to meet you, Dana.", recent.plusSeconds(30))));
        await(() -> {
            try {
                return dana.list().memories().stream().anyMatch(m -> "employer".equals(m.key()));
            } catch (EngramApiException.NotFound notYet) {
                return false;
            }
        });
        stack.awaitSettled(Duration.ofSeconds(120));
        final Views.MemoryView employer = activeFact(dana, "employer");
        final Views.MemoryView turn = dana.list().memories().stream()
            .filter(m -> m.key() == null && m.content().contains("Umbrella Labs") && "ACTIVE".equals(m.status()))
            .findFirst().orElseThrow(() -> new AssertionError("the turn's episode: " + dana.list().memories()));
        final ReadOptions look = ReadOptions.defaults().withoutRecordingAccess();
        assertThat(dana.search("Where does Dana work?", 10, look).memories()).as("before the correction")
            .noneMatch(Views.Hit::outdated);

        dana.correct(employer.memoryId(), null, "Cyberdyne Systems");
        await(() -> dana.list().memories().stream().anyMatch(m -> m.memoryId().equals(turn.memoryId())
            && m.validTo() != null));

        final Views.MemoryView marked = dana.list().memories().stream().filter(m -> m.memoryId().equals(turn.memoryId()))
            .findFirst().orElseThrow();
        final List<Views.Hit> hits = dana.search("Where does Dana work?", 10, look).memories();
        assertThat(hits).filteredOn(h -> h.memoryId().equals(turn.memoryId())).singleElement().satisfies(h -> {
            assertThat(h.status()).isEqualTo("ACTIVE");
            assertThat(h.outdated()).isTrue();
            assertThat(h.validTo()).isEqualTo(marked.validTo());
            assertThat(h.supersededBy()).isEqualTo(employer.memoryId());
            assertThat(h.agentId()).isNull();
        });
        assertThat(hits).filteredOn(h -> h.memoryId().equals(employer.memoryId())).singleElement().satisfies(h -> {
            assertThat(h.content()).contains("Cyberdyne Systems");
            assertThat(h.outdated()).isFalse();
            assertThat(h.validTo()).isNull();
            assertThat(h.supersededBy()).isNull();
        });
    }

    @Test
    void shouldWriteAndReadATenantsSettingsAndUsageWithAnAdminKey() {
        final EngramClient.Tenant acme = EngramClient.builder(stack.apps().retrieverUrl()).apiKey(ADMIN_KEY).build()
            .tenant("acme");

        final Views.TenantSettings written = acme.putSettings(new Views.TenantSettingsInput(List.of(
            new Views.TenantCategory("pets", "the user's pets", List.of("dog", "cat"), null)), null, null, null, 100_000L, null));
        assertThat(written.categories()).extracting(Views.TenantCategory::name).containsExactly("pets");
        assertThat(written.dailyTokenBudget()).isEqualTo(100_000L);
        assertThat(acme.settings().categories()).extracting(Views.TenantCategory::name).containsExactly("pets");
        assertThat(acme.usage(7).tenantId()).isEqualTo("acme");
        assertThatThrownBy(() -> mira.tenant("acme").settings()).isInstanceOf(EngramApiException.Forbidden.class);
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
        dev.engram.testing.Waits.until("the command applied (seen through the HTTP API)", Duration.ofSeconds(90),
            condition::get);
    }
}
