package dev.engram.retriever;

import static dev.engram.testing.MemoryFixtures.fact;
import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryAccessed;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import dev.engram.config.EngramConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topology.DeadLetters;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;
import dev.engram.topics.AppIds;

/**
 * The retrieval API on the in-process broker: MemoryUpdated records with real MiniLM embeddings are
 * published to memory-updated (the consolidator's output is fed, the consolidator itself is not run),
 * and the retriever's HTTP answers are checked, including case-05's retrieval part.
 */
class RetrieverApiIT {

    private static final Instant T0 = Instant.parse("2025-04-01T07:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    /** Admin keys of the two tenants of the fixed data; requests use the key of the tenant in their path. */
    private static final String T1_ADMIN = "t1-admin-key-000000001";
    private static final String T2_ADMIN = "t2-admin-key-000000002";
    private static final String BEN_KEY = "t1-u-ben-user-key-00003";
    /** Randomized isolation data: tenants and lookalike users, all with the same memory and conversation ids. */
    private static final List<String> TENANTS = List.of("acme", "Acme", "acme-2", "acme2");
    private static final List<String> USERS = List.of("u-1", "U-1", "u-10", "u-1-", "u_1", "u-1x");
    private static final Map<String, String> USER_KEYS = new java.util.HashMap<>();
    private static final Map<String, String> ADMIN_KEYS = new java.util.HashMap<>();

    private static EmbeddedKafka kafka;
    private static RetrieverApp.Handle retriever;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, Topic.allNames());
        final java.util.Random random = new java.util.Random(20251101L);
        final StringBuilder keys = new StringBuilder(T1_ADMIN + "=t1:admin," + T2_ADMIN + "=t2:admin," + BEN_KEY
            + "=t1:user:u-ben");
        for (final String tenant : TENANTS) {
            final String admin = "admin-" + Long.toHexString(random.nextLong()) + "-" + tenant.length();
            ADMIN_KEYS.put(tenant, admin);
            keys.append(',').append(admin).append('=').append(tenant).append(":admin");
            for (final String user : USERS) {
                final String key = "user-" + Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
                USER_KEYS.put(tenant + "/" + user, key);
                keys.append(',').append(key).append('=').append(tenant).append(":user:").append(user);
            }
        }
        final EngramConfig config = kafka.engramConfig(Map.of(RetrieverConfig.AUTH_KEYS, keys.toString()));
        retriever = RetrieverApp.start(config);

        // case-05: two users of one tenant, same conversation id c-1
        final Memory locker = memory("t1", "u-ana", "m-ana-locker", "My gym locker code is 4417.", T0)
            .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                .setMessageIndexes(List.of(0)).setObservedAt(T0).build())).setImportance(0.6).build();
        final Memory kotlin = fact("t1", "u-ana", "m-ana-kotlin", FactCategory.TECHNICAL, "preferred_language",
            "Kotlin", "Prefers Kotlin for backend work", T0.plusSeconds(60));
        final Memory style = Memory.newBuilder(memory("t1", "u-ana", "m-ana-style",
            "Wants short answers with code examples", T0.plusSeconds(120)).build())
            .setType(MemoryType.PROCEDURAL).setKey("response_style").setValue("short").build();
        final Memory oldCity = Memory.newBuilder(fact("t1", "u-ana", "m-ana-porto", FactCategory.PERSONAL, "city",
            "Porto", "Lives in Porto", T0)).setStatus(MemoryStatus.ARCHIVED).setSupersededBy("m-ana-lisbon").build();
        final Memory chess = memory("t1", "u-ben", "m-ben-chess", "Plays chess on Sundays", T0.plusSeconds(300))
            .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                .setMessageIndexes(List.of(0)).setObservedAt(T0).build())).build();
        // issue 27: a safety fact of a third user, pinned in the context of a food question
        final Memory shellfish = fact("t1", "u-cleo", "m-cleo-shellfish", FactCategory.CONSTRAINT, "allergy:shellfish",
            "shellfish", "Is allergic to shellfish", T0.plusSeconds(310));
        final Memory cleoCity = fact("t1", "u-cleo", "m-cleo-city", FactCategory.PERSONAL, "city", "Ghent",
            "Lives in Ghent", T0.plusSeconds(320));
        final List<EmbeddedKafka.Record<String, MemoryUpdated>> records = new ArrayList<>();
        for (final MemoryUpdated event : List.of(updated(shellfish, UpdateOperation.CREATED, T0.plusSeconds(310)),
            updated(cleoCity, UpdateOperation.CREATED, T0.plusSeconds(320)),
            updated(locker, UpdateOperation.CREATED, T0),
            updated(kotlin, UpdateOperation.CREATED, T0.plusSeconds(60)),
            updated(style, UpdateOperation.CREATED, T0.plusSeconds(120)),
            updated(oldCity, UpdateOperation.SUPERSEDED, T0.plusSeconds(130)),
            updated(chess, UpdateOperation.CREATED, T0.plusSeconds(300)))) {
            records.add(new EmbeddedKafka.Record<>(event.getTenantId() + "/" + event.getUserId(), event,
                event.getEventTime()));
        }
        // Randomized isolation data: every user has memories m-1..m-3 from conversation c-1, in shuffled order.
        final List<String[]> owners = new ArrayList<>();
        for (final String tenant : TENANTS) {
            for (final String user : USERS) {
                owners.add(new String[] {tenant, user});
            }
        }
        java.util.Collections.shuffle(owners, random);
        for (final String[] owner : owners) {
            for (int i = 1; i <= 3; i++) {
                final Memory m = memory(owner[0], owner[1], "m-" + i, "Token " + token(owner[0], owner[1])
                    + " likes topic number " + i, T0.plusSeconds(i))
                    .setSources(List.of(dev.engram.avro.SourceRef.newBuilder().setConversationId("c-1")
                        .setMessageIndexes(List.of(0)).setObservedAt(T0).build())).build();
                records.add(new EmbeddedKafka.Record<>(owner[0] + "/" + owner[1],
                    updated(m, UpdateOperation.CREATED, T0.plusSeconds(i)), T0.plusSeconds(i)));
            }
        }
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            records);
        EmbeddedKafka.waitUntil(() -> status("/v1/tenants/t1/users/u-ana/memories") == 200
                && status("/v1/tenants/t1/users/u-ben/memories") == 200
                && body("/v1/tenants/t1/users/u-ana/memories").get("count").asInt() == 4
                // ready: caught up with what it started on, so that an unknown user is a 404, not a 503
                && status("/health/ready") == 200,
            TIMEOUT, "the retriever to serve both users and be ready");
    }

    @AfterAll
    static void stop() throws Exception {
        if (retriever != null) {
            retriever.close();
        }
        kafka.close();
    }

    private static HttpResponse<String> get(final String path) {
        return send("GET", path, path.startsWith("/v1/tenants/t2/") ? T2_ADMIN : T1_ADMIN, null);
    }

    private static HttpResponse<String> send(final String method, final String path, final String key,
                                             final String body) {
        try {
            final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (key != null) {
                request.header("Authorization", "Bearer " + key);
            }
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the answer to a PUT by t1's admin of the body declared as {@code type} */
    private static HttpResponse<String> typed(final String path, final String type, final String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl() + path))
            .header("Authorization", "Bearer " + T1_ADMIN).header("Content-Type", type)
            .method("PUT", HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the detail of a problem answer with the status */
    private static String detail(final HttpResponse<String> response, final int status) throws Exception {
        assertProblem(response, status);
        return JSON.readTree(response.body()).get("detail").asText();
    }

    private static String token(final String tenant, final String user) {
        return "[" + tenant + "|" + user + "]";
    }

    private static String userPath(final String tenant, final String user) {
        return "/v1/tenants/" + q(tenant).replace("+", "%20") + "/users/" + q(user).replace("+", "%20");
    }

    private static int status(final String path) {
        return get(path).statusCode();
    }

    private static JsonNode body(final String path) {
        try {
            return JSON.readTree(get(path).body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String q(final String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static JsonNode assertProblem(final HttpResponse<String> response, final int status) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            t -> assertThat(t).startsWith("application/problem+json"));
        final JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.has("type")).isTrue();
        assertThat(problem.has("title")).isTrue();
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asText()).isNotBlank().doesNotContain("Exception").doesNotContain("\tat ");
        return problem;
    }

    @Test
    void shouldReturnNoMemoryOfAnotherUserWhenConversationIdsCollide() throws Exception {
        // case-05: u-ben asks for "locker code" and gets 0 memories, although u-ana's memory matches
        final HttpResponse<String> ben = get("/v1/tenants/t1/users/u-ben/memories?query=" + q("locker code"));
        assertThat(ben.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ben.body()).get("memories")).isEmpty();

        final JsonNode ana = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker code") + "&k=5");
        assertThat(ana.get("memories")).isNotEmpty();
        assertThat(ana.get("memories").get(0).get("memoryId").asText()).isEqualTo("m-ana-locker");
        assertThat(ana.get("memories").get(0).get("content").asText()).contains("4417");

        // u-ben's view lists nothing of u-ana
        final JsonNode view = body("/v1/tenants/t1/users/u-ben/memories");
        assertThat(view.get("count").asInt()).isEqualTo(1);
        assertThat(view.get("memories")).allSatisfy(m -> {
            assertThat(m.get("memoryId").asText()).startsWith("m-ben");
            assertThat(m.get("content").asText()).doesNotContain("4417");
        });
    }

    @Test
    void shouldRejectBlankOrMissingUserInsteadOfTreatingItAsAWildcard() throws Exception {
        assertProblem(get("/v1/tenants/t1/users/%20/memories?query=" + q("locker code")), 400);
        assertProblem(get("/v1/tenants/t1/users/%20/memories"), 400);
        assertProblem(get("/v1/tenants/t1/users//memories?query=" + q("locker code")), 400);
        assertProblem(get("/v1/tenants/%20/users/u-ana/memories"), 400);
        assertProblem(get("/v1/tenants//users/u-ana/profile"), 400);
        assertProblem(get("/v1/tenants/t1/users/%20/context?message=" + q("locker")), 400);
    }

    @Test
    void shouldCarryScoreComponentsAndSourcesWhenQueried() throws Exception {
        final JsonNode hit = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("what is my locker code"))
            .get("memories").get(0);
        final List<String> fields = new ArrayList<>();
        hit.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("memoryId", "type", "category", "key", "value", "content", "score",
            "components", "sources", "status", "reinforcementCount", "createdAt", "updatedAt", "agentId", "outdated",
            "validTo", "supersededBy", "outdatedValues", "currentPart", "formerValues");
        assertThat(hit.get("outdated").asBoolean()).isFalse();
        assertThat(hit.get("validTo").isNull()).isTrue();
        assertThat(hit.get("outdatedValues").isArray() && hit.get("outdatedValues").isEmpty()).as(hit.toString()).isTrue();
        final JsonNode c = hit.get("components");
        // the weighted mean of the components with the default weights 0.85/0/0.02/0.03
        assertThat(hit.get("score").asDouble()).isCloseTo((0.85 * c.get("semantic").asDouble()
            + 0.0 * c.get("recency").asDouble() + 0.02 * c.get("importance").asDouble()
            + 0.03 * c.get("access").asDouble()) / (0.85 + 0.0 + 0.02 + 0.03), org.assertj.core.api.Assertions.within(1e-5));
        // minScore filters on the same scale the answer reports
        final double score = hit.get("score").asDouble();
        final JsonNode floor = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("what is my locker code")
            + "&minScore=" + (score - 1e-6));
        assertThat(floor.get("memories")).allSatisfy(h -> assertThat(h.get("score").asDouble()).isGreaterThanOrEqualTo(score - 1e-6));
        assertThat(floor.get("memories").get(0).get("memoryId").asText()).isEqualTo(hit.get("memoryId").asText());
        assertThat(body("/v1/tenants/t1/users/u-ana/memories?query=" + q("what is my locker code") + "&minScore=1")
            .get("memories")).isEmpty();
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=" + q("locker") + "&minScore=1.5"), 400);
        assertThat(c.get("importance").asDouble()).isEqualTo(0.6);
        assertThat(hit.get("sources").get(0).get("conversationId").asText()).isEqualTo("c-1");
        assertThat(hit.get("sources").get(0).get("messageIndexes").get(0).asInt()).isZero();
        assertThat(hit.get("status").asText()).isEqualTo("ACTIVE");
        assertThat(hit.get("createdAt").asText()).isEqualTo("2025-04-01T07:00:00Z");
    }

    @Test
    void shouldNeverReturnArchivedMemoriesWhenQueriedButListThemInTheView() throws Exception {
        final JsonNode hits = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("where does she live, Porto?"));
        assertThat(hits.get("memories")).noneSatisfy(h -> assertThat(h.get("memoryId").asText()).isEqualTo("m-ana-porto"));
        final JsonNode archived = body("/v1/tenants/t1/users/u-ana/memories?status=archived");
        assertThat(archived.get("count").asInt()).isEqualTo(1);
        assertThat(archived.get("memories").get(0).get("supersededBy").asText()).isEqualTo("m-ana-lisbon");
        final JsonNode semantic = body("/v1/tenants/t1/users/u-ana/memories?type=SEMANTIC&status=ACTIVE");
        assertThat(semantic.get("memories")).extracting(m -> m.get("memoryId").asText()).containsExactly("m-ana-kotlin");
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?status=FORGOTTEN"), 400);
    }

    @Test
    void shouldListTheFirstKWhenKIsGivenWithoutAQueryAndRefuseAQuerysOnlyParameters() throws Exception {
        final JsonNode all = body("/v1/tenants/t1/users/u-ana/memories");
        assertThat(all.get("count").asInt()).as("enough memories to cut: " + all).isGreaterThan(1);
        final JsonNode first = body("/v1/tenants/t1/users/u-ana/memories?k=1");

        assertThat(first.get("count").asInt()).isEqualTo(1);
        assertThat(first.get("memories")).extracting(m -> m.get("memoryId").asText())
            .containsExactly(all.get("memories").get(0).get("memoryId").asText());
        assertThat(body("/v1/tenants/t1/users/u-ana/memories?k=100").get("count").asInt()).isEqualTo(all.get("count").asInt());
        for (final String parameter : List.of("minScore=0.1", "asOf=2030-01-01T00:00:00Z")) {
            final HttpResponse<String> refused = get("/v1/tenants/t1/users/u-ana/memories?" + parameter);
            assertProblem(refused, 400);
            assertThat(refused.body()).contains(parameter.substring(0, parameter.indexOf('=')) + " applies to a query");
        }
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?k=0"), 400);
    }

    @Test
    void shouldRefuseAListsFiltersWhenAQueryIsGivenInsteadOfIgnoringThem() throws Exception {
        for (final String parameter : List.of("type=EPISODIC", "status=ARCHIVED")) {
            final HttpResponse<String> refused = get("/v1/tenants/t1/users/u-ana/memories?query=" + q("which programming language")
                + "&" + parameter);
            assertThat(detail(refused, 400)).contains(parameter.substring(0, parameter.indexOf('='))
                + " applies to a list of the memories (no query)");
        }
    }

    @Test
    void shouldAnswer404WhenTheUserIsUnknown() throws Exception {
        assertProblem(get("/v1/tenants/t1/users/u-nobody/memories?query=" + q("locker code")), 404);
        assertProblem(get("/v1/tenants/t1/users/u-nobody/profile"), 404);
        assertProblem(get("/v1/tenants/t2/users/u-ana/memories"), 404);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories/no-such-id/history"), 404);
        assertProblem(get("/v1/nothing-here"), 404);
    }

    @Test
    void shouldAnswer400WhenKIsBad() throws Exception {
        // a query with nothing to search: zero-width space, no-break space, an undecodable byte
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=%E2%80%8B"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=%C2%A0"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/context?message=%FF%FE"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=abc"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=0"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=-3"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=101"), 400);
        // a whole number too large for an int is out of the range, not "not an integer"
        assertThat(detail(get("/v1/tenants/t1/users/u-ana/memories?query=code&k=99999999999"), 400))
            .isEqualTo("k must be between 1 and 100, was 99999999999");
        assertProblem(get("/v1/tenants/t1/users/u-ana/memories?query=%20"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/context?message=code&budgetTokens=lots"), 400);
        assertProblem(get("/v1/tenants/t1/users/u-ana/context"), 400);
        assertThat(body("/v1/tenants/t1/users/u-ana/memories?query=code&k=1").get("memories")).hasSize(1);
    }

    @Test
    void shouldReadAnUnencodedPlusOffsetInAsOfAsTheInstantTheClientWroteWhenTheQueryStringTurnedItIntoASpace()
        throws Exception {
        final String query = "/v1/tenants/t1/users/u-ana/memories?query=code&k=3&recordAccess=false&asOf=";
        final JsonNode utc = body(query + "2030-01-01T00:00:00Z").get("memories");
        assertThat(utc).isNotEmpty();
        // '+' unencoded arrives as a space (form decoding), %2B as '+': both are the instant written, 02:00 ahead of UTC
        assertThat(body(query + "2030-01-01T02:00:00+02:00").get("memories")).isEqualTo(utc);
        assertThat(body(query + "2030-01-01T02:00:00%2B02:00").get("memories")).isEqualTo(utc);
        // a year beyond 9999 takes a sign: unencoded, it is a leading space (the README trial's 400)
        final HttpResponse<String> far = get(query + "+1000000000-01-01T00:00:00Z");
        assertThat(far.statusCode()).as(far.body()).isEqualTo(200);
        assertThat(JSON.readTree(far.body()).get("memories"))
            .isEqualTo(body(query + "%2B1000000000-01-01T00:00:00Z").get("memories"));
        // before every memory: nothing was known then, so the offset was not dropped
        assertThat(body(query + "2000-01-01T02:00:00+02:00").get("memories")).isEmpty();
        assertThat(detail(get(query + "2030-01-01T02:00:00+2h"), 400))
            .contains("ISO-8601 instant", "send + as %2B", "2030-01-01T02:00:00 2h");
    }

    @Test
    void shouldReportEveryHitOnMemoryAccessWhenQueried() {
        final JsonNode hits = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("gym locker code 4417"));
        assertThat(hits.get("memories")).isNotEmpty();
        final List<String> returned = new ArrayList<>();
        hits.get("memories").forEach(h -> returned.add(h.get("memoryId").asText()));

        final List<ConsumerRecord<String, MemoryAccessed>> accesses = new ArrayList<>();
        EmbeddedKafka.waitUntil(() -> {
            accesses.clear();
            accesses.addAll(kafka.read(Topic.MEMORY_ACCESS.name(), new StringDeserializer(),
                AvroSerdes.serde(MemoryAccessed.class).deserializer(), 1, Duration.ofSeconds(5)));
            // Reports are batched per user (1 s): a record may also list the hits of another request for
            // the same user that fell into the same batch, so it must contain every returned id.
            return accesses.stream().anyMatch(r -> r.value().getMemoryIds().containsAll(returned));
        }, TIMEOUT, "a memory-access record with the returned ids");
        final ConsumerRecord<String, MemoryAccessed> record = accesses.stream()
            .filter(r -> r.value().getMemoryIds().containsAll(returned)).findFirst().orElseThrow();
        assertThat(record.key()).isEqualTo("t1/u-ana");
        assertThat(record.value().getTenantId()).isEqualTo("t1");
        assertThat(record.value().getUserId()).isEqualTo("u-ana");
    }

    @Test
    void shouldCountAHitInTheReadModelItselfWhenQueriedWithoutAConsolidatorRewritingTheMemory() {
        // no consolidator runs here: the retriever folds its own memory-access records and joins them with the memory
        final JsonNode hits = body("/v1/tenants/t1/users/u-ana/memories?query=" + q("which programming language"));
        final String id = hits.get("memories").get(0).get("memoryId").asText();
        final int before = listed(id).get("accessCount").asInt();
        body("/v1/tenants/t1/users/u-ana/memories?query=" + q("which programming language"));
        EmbeddedKafka.waitUntil(() -> listed(id).get("accessCount").asInt() > before, TIMEOUT,
            "the memory's access count raised by the retriever's own hit");
        assertThat(Instant.parse(listed(id).get("lastAccessedAt").asText()))
            .isAfter(Instant.now().minus(Duration.ofMinutes(5)));
        // the memory's versions: nothing written for a read
        assertThat(body("/v1/tenants/t1/users/u-ana/memories/" + id + "/history").toString()).doesNotContain("ACCESSED");
    }

    @Test
    void shouldNotCountAHeadRequestAsAUseOfTheMemoriesWhenQueriedOrAskedForContext() {
        // a user of this test alone: no other test's reads are counted on its memory
        final Memory violin = memory("t1", "u-head", "m-head-violin", "Plays the violin in a string quartet", T0).build();
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            List.of(new EmbeddedKafka.Record<>("t1/u-head", updated(violin, UpdateOperation.CREATED, T0), T0)));
        final String user = "/v1/tenants/t1/users/u-head";
        EmbeddedKafka.waitUntil(() -> status(user + "/memories") == 200, TIMEOUT, "the retriever to serve u-head");
        final String query = user + "/memories?query=" + q("which instrument do I play") + "&k=1";
        for (int i = 0; i < 3; i++) {
            assertThat(send("HEAD", query, T1_ADMIN, null).statusCode()).isEqualTo(200);
            assertThat(send("HEAD", user + "/context?message=" + q("which instrument do I play"), T1_ADMIN, null)
                .statusCode()).isEqualTo(200);
        }
        // one GET after the HEADs: its report is sent after theirs would have been, so its count is the last one
        assertThat(body(query).get("memories").get(0).get("memoryId").asText()).isEqualTo("m-head-violin");
        EmbeddedKafka.waitUntil(() -> accessCount(user, "m-head-violin") > 0, TIMEOUT, "the GET's hit counted");
        assertThat(accessCount(user, "m-head-violin")).isEqualTo(1);
    }

    @Test
    void shouldMarkAHitOutdatedWithWhatReplacedItAsTheContextBlockTellsItAsNoLongerCurrent() throws Exception {
        // README trial: the Umbrella Labs episode was hit #2 as a plain ACTIVE memory while the context block told it
        // under "Earlier, no longer current"; a user of this test alone
        final Instant left = T0.plus(Duration.ofDays(2));
        final Memory episode = memory("t1", "u-bob", "m-bob-umbrella",
            "Hi, I'm Bob. I work at Umbrella Labs and my dog Rex loves the beach.", T0).setValidTo(left)
            .setSupersededBy("m-bob-globex").build();
        final Memory employer = fact("t1", "u-bob", "m-bob-globex", FactCategory.ROLE, "employer", "Globex",
            "Works at Globex", left);
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            List.of(new EmbeddedKafka.Record<>("t1/u-bob", updated(employer, UpdateOperation.CREATED, left), left),
                new EmbeddedKafka.Record<>("t1/u-bob", updated(episode, UpdateOperation.SUPERSEDED, left), left)));
        final String user = "/v1/tenants/t1/users/u-bob";
        EmbeddedKafka.waitUntil(() -> status(user + "/memories") == 200 && body(user + "/memories").get("count").asInt() == 2,
            TIMEOUT, "the retriever to serve u-bob");
        final JsonNode hits = body(user + "/memories?query=" + q("where do I work") + "&k=3&recordAccess=false")
            .get("memories");
        final Map<String, JsonNode> byId = new java.util.HashMap<>();
        hits.forEach(h -> byId.put(h.get("memoryId").asText(), h));
        assertThat(byId).containsOnlyKeys("m-bob-umbrella", "m-bob-globex");
        final JsonNode old = byId.get("m-bob-umbrella");
        assertThat(old.get("status").asText()).isEqualTo("ACTIVE");
        assertThat(old.get("outdated").asBoolean()).isTrue();
        assertThat(old.get("validTo").asText()).isEqualTo(left.toString());
        assertThat(old.get("supersededBy").asText()).isEqualTo("m-bob-globex");
        assertThat(byId.get("m-bob-globex").get("outdated").asBoolean()).isFalse();
        assertThat(byId.get("m-bob-globex").get("supersededBy").isNull()).isTrue();
        // the same judgment as the context block's
        final String context = body(user + "/context?message=" + q("where do I work") + "&recordAccess=false")
            .get("context").asText();
        assertThat(context.substring(context.indexOf(ContextBlock.EARLIER))).contains("Umbrella Labs");
        // the list the memory panel shows carries it too
        final JsonNode listed = body(user + "/memories").get("memories");
        assertThat(listed).anySatisfy(m -> {
            assertThat(m.get("memoryId").asText()).isEqualTo("m-bob-umbrella");
            assertThat(m.get("validTo").asText()).isEqualTo(left.toString());
        });
    }

    @Test
    void shouldForbidFramingThePanelWhoseButtonsDeleteAndErase() {
        // README trial: /panel sent no anti-framing header though it carries Delete and Erase buttons (clickjacking)
        for (final String page : List.of("/panel", ApiDocs.DOCS_PATH)) {
            final HttpResponse<String> answer = send("GET", page, null, null);
            assertThat(answer.statusCode()).as(page).isEqualTo(200);
            assertThat(answer.headers().firstValue("X-Frame-Options")).as(page).hasValue("DENY");
            assertThat(answer.headers().firstValue("Content-Security-Policy")).as(page).hasValue("frame-ancestors 'none'");
        }
    }

    private static int accessCount(final String user, final String memoryId) {
        for (final JsonNode m : body(user + "/export").get("memories")) {
            if (m.get("memoryId").asText().equals(memoryId)) {
                return m.get("accessCount").asInt();
            }
        }
        throw new AssertionError("memory " + memoryId + " not exported");
    }

    /**
     * The memory as the user's export shows it (not the list: its polls would weigh in the {@code memories} endpoint's
     * latency histogram that another test reads).
     */
    private static JsonNode listed(final String memoryId) {
        for (final JsonNode m : body("/v1/tenants/t1/users/u-ana/export").get("memories")) {
            if (m.get("memoryId").asText().equals(memoryId)) {
                return m;
            }
        }
        throw new AssertionError("memory " + memoryId + " not listed");
    }

    @Test
    void shouldServeTheProfileGroupedByCategory() {
        final JsonNode profile = body("/v1/tenants/t1/users/u-ana/profile");
        assertThat(profile.get("activeMemories").asInt()).isEqualTo(3);
        assertThat(profile.get("archivedMemories").asInt()).isEqualTo(1);
        assertThat(profile.get("memoryEnabled").asBoolean()).isTrue();
        assertThat(profile.get("facts").get("TECHNICAL").get(0).get("value").asText()).isEqualTo("Kotlin");
        assertThat(profile.get("facts").has("PERSONAL")).isFalse();
        assertThat(profile.get("firstInteractionAt").asText()).isEqualTo("2025-04-01T07:00:00Z");
    }

    @Test
    void shouldBuildAContextBlockWithinTheBudget() {
        final JsonNode context = body("/v1/tenants/t1/users/u-ana/context?message="
            + q("Can you show me some Kotlin code for my gym locker app?") + "&budgetTokens=200");
        assertThat(context.get("estimatedTokens").asInt()).isBetween(1, 200);
        assertThat(context.get("context").asText()).contains("Kotlin");
        assertThat(context.get("memoryIds")).isNotEmpty();

        final JsonNode tiny = body("/v1/tenants/t1/users/u-ana/context?message=" + q("Kotlin") + "&budgetTokens=12");
        assertThat(tiny.get("estimatedTokens").asInt()).isLessThanOrEqualTo(12);
    }

    @Test
    void shouldPinTheUsersSafetyFactsFirstInTheContextWhenTheMessageIsAboutFood() {
        // waits on the context route itself: a first, slower request of a user must not land in the memories route's
        // latency histogram, which another test reads
        final String prawns = "/v1/tenants/t1/users/u-cleo/context?message=" + q("Can I eat prawns?")
            + "&budgetTokens=20&recordAccess=false";
        EmbeddedKafka.waitUntil(() -> status(prawns) == 200, TIMEOUT, "u-cleo served");
        final JsonNode food = body(prawns);
        assertThat(food.get("memoryIds").get(0).asText()).isEqualTo("m-cleo-shellfish");
        assertThat(food.get("context").asText()).contains("allergic to shellfish");
        final JsonNode other = body("/v1/tenants/t1/users/u-cleo/context?message=" + q("Ghent") + "&recordAccess=false");
        assertThat(other.get("memoryIds").get(0).asText()).as("not about food: the ranking decides").isEqualTo("m-cleo-city");
    }

    @Test
    void shouldServeTheCurrentVersionAsHistory() {
        final JsonNode history = body("/v1/tenants/t1/users/u-ana/memories/m-ana-kotlin/history");
        assertThat(history.get("versions")).hasSize(1);
        assertThat(history.get("versions").get(0).get("value").asText()).isEqualTo("Kotlin");
        // another user's memory id is not found through this user
        assertThat(status("/v1/tenants/t1/users/u-ben/memories/m-ana-kotlin/history")).isEqualTo(404);
    }

    /**
     * Trial of session 13: a fact corrected through the API (Graz → Vienna) kept its former value on the topic
     * ({@code Memory.formerValues}), but no view showed it, so the user could not see what the correction replaced.
     * The list, the history, the export and a search hit carry it; a memory never corrected carries an empty list.
     */
    @Test
    void shouldShowTheValueACorrectionReplacedInTheListHistoryExportAndSearch() throws Exception {
        final Instant corrected = T0.plus(Duration.ofDays(6));
        final Memory graz = fact("t1", "u-dora", "m-dora-city", FactCategory.PERSONAL, "city", "Graz",
            "Lives in Graz", T0);
        final Memory vienna = Memory.newBuilder(fact("t1", "u-dora", "m-dora-city", FactCategory.PERSONAL, "city",
                "Vienna", "Lives in Vienna", T0)).setSource(dev.engram.avro.MemorySource.CORRECTED).setConfidence(1.0)
            .setUpdatedAt(corrected).setFormerValues(List.of(dev.engram.avro.FormerValue.newBuilder().setValue("Graz")
                .setContent("Lives in Graz").setCorrectedAt(corrected).build())).build();
        final MemoryUpdated correction = MemoryUpdated.newBuilder(updated(vienna, UpdateOperation.CORRECTED, corrected))
            .setPreviousValue("Graz").build();
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), AvroSerdes.serde(MemoryUpdated.class).serializer(),
            List.of(new EmbeddedKafka.Record<>("t1/u-dora", updated(graz, UpdateOperation.CREATED, T0), T0),
                new EmbeddedKafka.Record<>("t1/u-dora", correction, corrected)));
        final String user = "/v1/tenants/t1/users/u-dora";
        EmbeddedKafka.waitUntil(() -> status(user + "/memories") == 200
                && body(user + "/memories").toString().contains("Vienna"), TIMEOUT, "the retriever to serve u-dora's correction");

        final JsonNode listed = body(user + "/memories").get("memories").get(0);
        assertFormerGraz(listed, corrected);
        final JsonNode versions = body(user + "/memories/m-dora-city/history").get("versions");
        assertThat(versions).hasSize(2);
        assertThat(versions.get(0).get("value").asText()).isEqualTo("Graz");
        assertThat(versions.get(0).get("formerValues")).as("before the correction").isEmpty();
        assertThat(versions.get(1).get("operation").asText()).isEqualTo("CORRECTED");
        assertFormerGraz(versions.get(1), corrected);
        assertFormerGraz(body(user + "/export").get("memories").get(0), corrected);
        final JsonNode hit = body(user + "/memories?query=" + q("where do I live") + "&recordAccess=false")
            .get("memories").get(0);
        assertFormerGraz(hit, corrected);
        // a memory never corrected in place: an empty list, never absent or null
        assertThat(body("/v1/tenants/t1/users/u-ana/memories").get("memories"))
            .allSatisfy(m -> assertThat(m.get("formerValues").isArray() && m.get("formerValues").isEmpty())
                .as(m.toString()).isTrue());
    }

    private static void assertFormerGraz(final JsonNode memory, final Instant corrected) {
        assertThat(memory.get("value").asText()).as(memory.toString()).isEqualTo("Vienna");
        assertThat(memory.get("formerValues")).as(memory.toString()).singleElement().satisfies(f -> {
            assertThat(f.get("value").asText()).isEqualTo("Graz");
            assertThat(f.get("content").asText()).isEqualTo("Lives in Graz");
            assertThat(f.get("correctedAt").asText()).isEqualTo(corrected.toString());
        });
    }

    @Test
    void shouldBeReadyAndExposeKafkaStreamsMetricsWhenRunning() {
        assertThat(status("/health/ready")).isEqualTo(200);
        assertThat(status("/health/live")).isEqualTo(200);
        final String metrics = get("/metrics").body();
        assertThat(metrics).contains("kafka_stream").contains("application=\"engram-retriever\"")
            .contains("engram_retrieval_requests_seconds");
    }

    @Test
    void shouldDeadLetterAnUndecodableRecordWithTheEngramHeadersAndCountItWhenTheReadModelReadsIt() {
        kafka.send(Topic.MEMORY_UPDATED.name(), new StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer(),
            List.of(new EmbeddedKafka.Record<>("t9/u-broken", "not an Avro record".getBytes(StandardCharsets.UTF_8),
                T0.plusSeconds(900))));

        final ConsumerRecord<byte[], byte[]> dead = kafka.readRaw(Topic.deadLetters(AppIds.RETRIEVER).name(), 1, TIMEOUT).get(0);
        assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("not an Avro record");
        final Map<String, String> headers = new java.util.TreeMap<>();
        dead.headers().forEach(h -> headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
        assertThat(headers).containsEntry(DeadLetters.HEADER_STAGE, DeadLetters.STAGE_DESERIALIZATION)
            .containsEntry(DeadLetters.HEADER_SOURCE_TOPIC, Topic.MEMORY_UPDATED.name())
            .containsKeys(DeadLetters.HEADER_REASON, DeadLetters.HEADER_CLASS, DeadLetters.HEADER_SOURCE_OFFSET,
                "__streams.errors.exception", "__streams.errors.message");
        // the record is for operators and tools: the reason, never the app's stack
        assertThat(headers.keySet()).noneMatch(k -> k.contains("stacktrace"));
        assertThat(headers.values()).noneMatch(v -> v.contains("\tat "));
        EmbeddedKafka.waitUntil(() -> new PrometheusText(get("/metrics").body())
                .find("engram_dead_letters_total", Map.of("application", AppIds.RETRIEVER)).stream()
                .anyMatch(sample -> sample.value() >= 1.0),
            TIMEOUT, "the retriever's engram_dead_letters_total to count the dead letter");
        assertThat(status("/health/live")).isEqualTo(200);
    }

    @Test
    void shouldComputeTheP99AndAnErrorRateFromTheScrapeAloneWhenRequestsWereServed() {
        final Map<String, String> ok = Map.of("endpoint", "memories", "status", "200");
        // this test's requests only: the other tests' (in any order, some slow at load) are in the same histogram
        final Map<Double, Double> before = new PrometheusText(get("/metrics").body())
            .bucketsOrEmpty("engram_retrieval_requests_seconds", ok);
        long slowestNanos = 0;
        for (int i = 0; i < 40; i++) {
            final long started = System.nanoTime();
            assertThat(status("/v1/tenants/t1/users/u-ana/memories?query=" + q("Kotlin"))).isEqualTo(200);
            slowestNanos = Math.max(slowestNanos, System.nanoTime() - started);
        }
        assertThat(status("/v1/tenants/t1/users/u-ben/memories/m-ana-kotlin/history")).isEqualTo(404);

        final PrometheusText scrape = new PrometheusText(get("/metrics").body());
        final java.util.TreeMap<Double, Double> served = scrape.bucketsSince("engram_retrieval_requests_seconds", ok, before);
        assertThat(served.lastEntry().getValue()).as("this test's requests").isGreaterThanOrEqualTo(40.0);
        final double p99 = PrometheusText.quantile(0.99, served);
        // the estimate lies within the bucket holding the slowest request the server timed (its timer may end after
        // the client has the answer, so the client's slowest wait bounds nothing under load)
        final double total = served.lastEntry().getValue();
        final double upper = served.entrySet().stream().filter(e -> e.getValue() >= total).findFirst().orElseThrow().getKey();
        assertThat(p99).isGreaterThan(0).isLessThanOrEqualTo(upper);
        assertThat(slowestNanos).as("the client waited for every answer").isPositive();
        assertThat(PrometheusText.quantile(0.95, served)).isLessThanOrEqualTo(p99);
        assertThat(scrape.quantile(0.99, "engram_retrieval_requests_seconds", ok)).as("from the scrape alone").isPositive();
        assertThat(scrape.find("engram_retrieval_requests_seconds_count", Map.of("endpoint", "history", "status", "404")))
            .singleElement().satisfies(s -> assertThat(s.value()).isGreaterThanOrEqualTo(1.0));
    }

    @Test
    void shouldRefuseRequestsWithoutAValidKeyOrOutsideTheKeysScope() throws Exception {
        assertProblem(send("GET", "/v1/tenants/t1/users/u-ana/memories", null, null), 401);
        assertProblem(send("GET", "/v1/tenants/t1/users/u-ana/memories", "not-a-key-at-all-xxxxxx", null), 401);
        assertProblem(send("GET", "/v1/tenants/t2/users/u-ana/memories", T1_ADMIN, null), 403);
        assertProblem(send("GET", "/v1/tenants/t1/users/u-ana/memories", BEN_KEY, null), 403);
        assertProblem(send("DELETE", "/v1/tenants/t1/users/u-ana", BEN_KEY, null), 403);
        assertProblem(send("PUT", "/v1/tenants/t1/users/u-ana/settings", T2_ADMIN, "{\"memoryEnabled\": false}"), 403);
        assertThat(send("GET", "/v1/tenants/t1/users/u-ben/memories", BEN_KEY, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/panel", null, null).body()).contains("What I remember about you");
    }

    @Test
    void shouldFindZeroCrossTenantOrCrossUserHitsAmongLookalikeIdsAndCollidingConversations() throws Exception {
        EmbeddedKafka.waitUntil(() -> USER_KEYS.keySet().stream().allMatch(owner -> {
            final String[] p = owner.split("/", 2);
            final HttpResponse<String> r = send("GET", userPath(p[0], p[1]) + "/memories", USER_KEYS.get(owner), null);
            return r.statusCode() == 200 && r.body().contains("\"count\":3");
        }), TIMEOUT, "every randomized user to be served");
        int ownHits = 0;
        int refused = 0;
        for (final Map.Entry<String, String> entry : USER_KEYS.entrySet()) {
            final String[] owner = entry.getKey().split("/", 2);
            final String own = token(owner[0], owner[1]);
            final String base = userPath(owner[0], owner[1]);
            for (final String path : List.of(base + "/memories", base + "/memories?query=" + q("Token likes topic") + "&k=20",
                base + "/context?message=" + q("which topic does the token like?"), base + "/export",
                base + "/memories/m-1/history")) {
                final HttpResponse<String> r = send("GET", path, entry.getValue(), null);
                assertThat(r.statusCode()).as(path).isEqualTo(200);
                final java.util.regex.Matcher tokens = java.util.regex.Pattern.compile("\\[[^\\[\\]|]+\\|[^\\[\\]]+\\]")
                    .matcher(r.body());
                while (tokens.find()) {
                    assertThat(tokens.group()).as("a token returned to " + entry.getKey() + " by " + path).isEqualTo(own);
                    ownHits++;
                }
            }
            for (final String other : USER_KEYS.keySet()) {
                if (other.equals(entry.getKey())) {
                    continue;
                }
                final String[] o = other.split("/", 2);
                final HttpResponse<String> r = send("GET", userPath(o[0], o[1]) + "/memories", entry.getValue(), null);
                assertThat(r.statusCode()).as(entry.getKey() + " reading " + other).isEqualTo(403);
                assertThat(r.body()).doesNotContain("Token");
                refused++;
            }
        }
        for (final String tenant : TENANTS) {
            for (final String other : USER_KEYS.keySet()) {
                final String[] o = other.split("/", 2);
                final HttpResponse<String> r = send("GET", userPath(o[0], o[1]) + "/memories?query=" + q("Token"),
                    ADMIN_KEYS.get(tenant), null);
                if (o[0].equals(tenant)) {
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.body()).doesNotContain("[" + tenant + "|" + (o[1].equals("u-1") ? "U-1" : "u-1") + "]");
                } else {
                    assertThat(r.statusCode()).as(tenant + " admin reading " + other).isEqualTo(403);
                    refused++;
                }
            }
        }
        assertThat(ownHits).isPositive();
        assertThat(refused).isEqualTo(USER_KEYS.size() * (USER_KEYS.size() - 1) + TENANTS.size() * USER_KEYS.size()
            - USER_KEYS.size());
    }

    @Test
    void shouldPublishWritesAsCommandsAnswer202AndAuditWithoutContent() throws Exception {
        final HttpResponse<String> settings = send("PUT", "/v1/tenants/t1/users/u-ben/settings", BEN_KEY,
            "{\"memoryEnabled\": false}");
        assertThat(settings.statusCode()).as(settings.body()).isEqualTo(202);
        final String commandId = JSON.readTree(settings.body()).get("commandId").asText();
        assertThat(detail(send("PUT", "/v1/tenants/t1/users/u-ben/settings", BEN_KEY, "{\"memoryEnabled\": \"no\"}"), 400))
            .isEqualTo("memoryEnabled must be true or false (a JSON boolean), not a string (\"no\")");
        assertThat(detail(send("PUT", "/v1/tenants/t1/users/u-ben/settings", BEN_KEY, "{\"memoryEnabled\": null}"), 400))
            .isEqualTo("memoryEnabled (true or false) is required");
        // write bodies are parsed strictly: one JSON value, each field once, only known fields, UTF-8
        final String city = "/v1/tenants/t1/users/u-ana/memories/m-ana-kotlin";
        assertThat(detail(send("PUT", city, T1_ADMIN, "{\"value\":\"Delft\"}{\"value\":\"Gouda\"}"), 400))
            .contains("more than one JSON value");
        assertThat(detail(send("PUT", city, T1_ADMIN, "{\"value\":\"Delft\",\"value\":\"Gouda\"}"), 400))
            .contains("duplicate field", "value");
        assertThat(detail(send("PUT", city, T1_ADMIN, "{\"value\":\"Delft\",\"valeu\":\"Gouda\"}"), 400))
            .contains("unknown field \"valeu\"", "accepted: \"content\", \"value\"");
        // the wrong type named, as the other routes name it
        assertThat(detail(send("PUT", city, T1_ADMIN, "{\"value\":123}"), 400))
            .isEqualTo("value must be a non-blank string, not a number (123)");
        assertThat(detail(send("PUT", "/v1/tenants/t1/users/u-ben/settings", BEN_KEY, "{\"memoryEnabled\": false, \"x\": 1}"),
            400)).contains("unknown field \"x\"");
        final HttpResponse<String> latin1 = HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl() + city))
            .header("Authorization", "Bearer " + T1_ADMIN).method("PUT", HttpRequest.BodyPublishers.ofString(
                "{\"value\":\"Delft\u00FF\"}", StandardCharsets.ISO_8859_1)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(detail(latin1, 400)).contains("not valid UTF-8", "0xFF", "offset 15");
        // a type a browser may post cross-site without a preflight is refused: no web page writes memories
        for (final String type : List.of("text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
            "application/merge-patch+json")) {
            assertThat(detail(typed(city, type, "{\"value\":\"Delft\"}"), 415)).as(type)
                .contains("\"" + type.split(";")[0] + "\" is not accepted", "application/json", "UTF-8");
        }
        // a method the path does not take is a 405 with Allow whatever the body's type (a form POST got a 415 first)
        final HttpResponse<String> formPost = HTTP.send(HttpRequest.newBuilder(URI.create(retriever.baseUrl()
                + "/v1/tenants/t1/users/u-ana/memories")).header("Authorization", "Bearer " + T1_ADMIN)
            .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(detail(formPost, 405)).startsWith("Method POST is not allowed on /v1/tenants/t1/users/u-ana/memories");
        assertThat(formPost.headers().firstValue("Allow")).hasValueSatisfying(a -> assertThat(a).contains("GET"));
        // JSON is UTF-8: another charset is refused, not read as UTF-8
        assertThat(detail(typed(city, "application/json; charset=ISO-8859-1", "{\"value\":\"Delft\"}"), 415))
            .contains("charset \"ISO-8859-1\" is not accepted", "application/json", "charset=utf-8");
        for (final String type : List.of("application/json; charset=utf-8", "application/json;charset=\"UTF-8\"",
            "Application/JSON")) {
            // accepted: the body is read, and its misspelt field is what is refused
            assertThat(detail(typed(city, type, "{\"valeu\":\"Delft\"}"), 400)).as(type).contains("unknown field");
        }
        // a memory of another user is not found through this user
        assertProblem(send("DELETE", "/v1/tenants/t1/users/u-ben/memories/m-ana-kotlin", T1_ADMIN, null), 404);
        assertProblem(send("PUT", "/v1/tenants/t1/users/u-ben/memories/m-ana-kotlin", T1_ADMIN,
            "{\"content\": \"x\"}"), 404);
        // an ARCHIVED memory is history: correcting it would change nothing Engram answers with (409, nothing published)
        assertThat(detail(send("PUT", "/v1/tenants/t1/users/u-ana/memories/m-ana-porto", T1_ADMIN, "{\"value\": \"Braga\"}"),
            409)).contains("memory m-ana-porto is ARCHIVED (superseded by m-ana-lisbon)",
                "correct the current memory m-ana-lisbon instead");
        // new content for a keyed fact without its new value would leave content and value disagreeing
        final HttpResponse<String> contentOnly = send("PUT", "/v1/tenants/t1/users/u-ana/memories/m-ana-kotlin", T1_ADMIN,
            "{\"content\": \"These days I write Scala\"}");
        assertProblem(contentOnly, 400);
        assertThat(JSON.readTree(contentOnly.body()).get("detail").asText()).contains("\"value\"")
            .contains("preferred_language").as("an example of the fact's kind").contains("Main programming language is")
            .doesNotContain("Lives in");
        // content and value given together must agree: "Lives in Rome" with Paris left memory and profile disagreeing
        assertThat(detail(send("PUT", "/v1/tenants/t1/users/u-ana/memories/m-ana-kotlin", T1_ADMIN,
            "{\"content\": \"Main programming language is Rust\", \"value\": \"Scala\"}"), 400))
            .contains("\"Main programming language is Rust\"", "\"Scala\"");
        // a NUL in free text is replaced and counted, not stored; in a body id it is refused as in a path
        final HttpResponse<String> nul = send("PUT", "/v1/tenants/t1/users/u-ben/memories/m-ben-chess", T1_ADMIN,
            "{\"content\": \"Plays chess\\u0000 on Sundays\"}");
        assertThat(nul.statusCode()).as(nul.body()).isEqualTo(202);
        assertThat(nul.headers().firstValue("X-Engram-Replaced-Characters")).hasValue("1");
        assertThat(detail(send("POST", "/v1/tenants/t1/users/u-ben/conversations", T1_ADMIN,
            "{\"conversationId\": \"u6\\u0000x\", \"messages\": [{\"role\": \"user\", \"content\": \"I play chess\"}]}"), 400))
            .contains("conversationId", "U+0000");
        final HttpResponse<String> correct = send("PUT", "/v1/tenants/t1/users/u-ben/memories/m-ben-chess", T1_ADMIN,
            "{\"content\": \"Plays chess on Saturdays \\ud800, card 4111 1111 1111 1111\"}");
        assertThat(correct.statusCode()).as(correct.body()).isEqualTo(202);
        // a lone surrogate is replaced by U+FFFD and counted, as ingest does (it used to be stored as "?")
        assertThat(correct.headers().firstValue("X-Engram-Replaced-Characters")).hasValue("1");
        assertProblem(send("GET", "/v1/tenants/t1/users/u-ben/export", null, null), 401);
        final HttpResponse<String> erase = send("DELETE", "/v1/tenants/t1/users/u-nobody-yet", T1_ADMIN, null);
        assertThat(erase.statusCode()).isEqualTo(202);

        final List<ConsumerRecord<String, dev.engram.avro.MemoryCommand>> commands = new ArrayList<>();
        EmbeddedKafka.waitUntil(() -> {
            commands.clear();
            commands.addAll(kafka.read(Topic.MEMORY_COMMANDS.name(), new StringDeserializer(),
                AvroSerdes.serde(dev.engram.avro.MemoryCommand.class).deserializer(), 3, Duration.ofSeconds(5)));
            return commands.size() >= 3;
        }, TIMEOUT, "three commands on memory-commands");
        assertThat(commands).anySatisfy(c -> {
            assertThat(c.key()).isEqualTo("t1/u-ben");
            assertThat(c.value().getCommandId()).isEqualTo(commandId);
            assertThat(c.value().getKind()).isEqualTo(dev.engram.avro.CommandKind.SET_MEMORY_ENABLED);
            assertThat(c.value().getMemoryEnabled()).isFalse();
        });
        assertThat(commands).anySatisfy(c -> {
            assertThat(c.value().getKind()).isEqualTo(dev.engram.avro.CommandKind.CORRECT);
            assertThat(c.value().getContent()).isEqualTo("Plays chess on Saturdays \uFFFD, card [card]");
            assertThat(c.value().getEmbedding()).hasSize(384);
            assertThat(c.value().getActor()).startsWith("key:").doesNotContain(T1_ADMIN);
        });
        assertThat(commands).anySatisfy(c -> {
            assertThat(c.key()).isEqualTo("t1/u-nobody-yet");
            assertThat(c.value().getKind()).isEqualTo(dev.engram.avro.CommandKind.ERASE);
        });

        final List<ConsumerRecord<String, dev.engram.avro.AuditRecord>> audits = new ArrayList<>();
        EmbeddedKafka.waitUntil(() -> {
            audits.clear();
            audits.addAll(kafka.read(Topic.MEMORY_AUDIT.name(), new StringDeserializer(),
                AvroSerdes.serde(dev.engram.avro.AuditRecord.class).deserializer(), 1, Duration.ofSeconds(5)));
            return audits.stream().anyMatch(a -> commandId.equals(a.value().getCommandId()))
                && audits.stream().anyMatch(a -> "UNAUTHENTICATED".equals(a.value().getOutcome()))
                && audits.stream().anyMatch(a -> "user.erase".equals(a.value().getAction()));
        }, TIMEOUT, "audit records of the writes");
        assertThat(audits).anySatisfy(a -> {
            assertThat(a.value().getAction()).isEqualTo("settings.update");
            assertThat(a.value().getOutcome()).isEqualTo("ACCEPTED");
            assertThat(a.value().getStatus()).isEqualTo(202);
            assertThat(a.value().getActorScope()).isEqualTo("USER");
        });
        assertThat(audits).anySatisfy(a -> assertThat(a.value().getOutcome()).isEqualTo("NOT_FOUND"));
        assertThat(audits).anySatisfy(a -> {
            assertThat(a.value().getOutcome()).isEqualTo("UNAUTHENTICATED");
            assertThat(a.value().getActor()).isEqualTo("anonymous");
            assertThat(a.value().getAction()).isEqualTo("user.export");
        });
        // the random auditId left out: a UUID can hold "4417" (seen once: "…-a4417c56905b")
        assertThat(audits).allSatisfy(a -> assertThat(dev.engram.avro.AuditRecord.newBuilder(a.value()).setAuditId("-")
            .build().toString()).doesNotContain("Saturdays", "4111", "locker", "4417", T1_ADMIN, BEN_KEY));
    }
}
