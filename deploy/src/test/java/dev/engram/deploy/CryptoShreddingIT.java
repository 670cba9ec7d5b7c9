package dev.engram.deploy;

import static dev.engram.deploy.CliRun.engram;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.crypto.DataKeys;
import dev.engram.crypto.ErasedDataException;
import dev.engram.crypto.Kek;
import dev.engram.domain.DomainConfig;
import dev.engram.ops.VerifyErasureCommand;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.stack.DemoApps;
import dev.engram.testing.Waits;
import dev.engram.stack.Ingest;
import dev.engram.stack.ProjectPaths;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Crypto-shredding end to end on the in-process stack with {@code crypto.enabled}: the sample users and
 * one more user are ingested, that user is erased through the API, then every Engram topic (changelogs,
 * dead letters and the key topic included; not the platform's {@code conversations-completed}) is read
 * from offset 0 with a plain consumer, uncommitted records included, and searched for the erased user's
 * memory texts, raw and after opening every record with a fresh reader of the data keys; then the
 * consolidator is rebuilt from its topics and {@code verify} finds every other user unchanged.
 */
class CryptoShreddingIT {

    private static final String TENANT = "acme";
    private static final String ERASED = "u-erin";
    private static final String SECRETS_USER = "u-sam";
    /** An API key, an AWS access key id, a GitHub token, a password, a JWT and a private key block (all fake). */
    private static final List<String> SECRETS = List.of("sk-test-51FAKEabcdefghijklmnop1234",
        "AKIAFAKE0000EXAMPLE7", "ghp_FAKE0987654321abcdefghijklmnopqrstuv", "Tr0ub4dor-fake",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzYW0ifQ.c2lnbmF0dXJlLWZha2U",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----");
    /** What of each secret must appear nowhere (the key block by its body). */
    private static final List<String> SECRET_MARKS = List.of(SECRETS.get(0), SECRETS.get(1), SECRETS.get(2),
        SECRETS.get(3), SECRETS.get(4), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CryptoTestBroker broker;
    private static Path dir;
    private static EngramConfig config;
    private static Path configFile;
    private static byte[] kek;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = CryptoTestBroker.start("engram-crypto-it");
        dir = broker.dir();
        kek = new byte[Kek.KEY_BYTES];
        new SecureRandom().nextBytes(kek);
        final Map<String, Object> settings = new HashMap<>(Map.of(CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
            PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
            PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0,
            RetrieverConfig.AUTH_ENABLED, false, PipelineConfig.CRYPTO_ENABLED, true));
        // The KEK as a mounted secret would be: a file, never a topic.
        final Path secret = dir.resolve("kek.b64");
        Files.writeString(secret, Base64.getEncoder().encodeToString(kek));
        settings.put(PipelineConfig.CRYPTO_KEK_FILE, secret.toString());
        // Observations off: this test compares the rebuild's memory-updated records byte for byte with the live run's;
        // observation events depend on when the wall clock regroups (their final state does not: OpsStackIT's verify)
        settings.put(DomainConfig.OBSERVE_THRESHOLD, 1.0);
        config = new EngramConfig(settings);
        configFile = dir.resolve("engram.properties");
        Files.writeString(configFile, PipelineConfig.CRYPTO_ENABLED + "=true\n" + DomainConfig.OBSERVE_THRESHOLD + "=1.0\n"
            + PipelineConfig.CRYPTO_KEK_FILE + "=" + secret.toString().replace("\\", "\\\\") + "\n");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    @Test
    void shouldLeaveNoReadableByteOfTheErasedUserOnAnyTopicAndRebuildEveryOtherUserIdentically() throws Exception {
        final List<String> erasedTexts = new ArrayList<>();
        try (DemoApps apps = DemoApps.start(config)) {
            try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of())) {
                ingest.publish(ProjectPaths.sample().orElseThrow(), n -> { });
                final Path erin = dir.resolve("erin.jsonl");
                Files.writeString(erin, String.join("\n",
                    conversation("erin-1", "I keep three beehives on the roof of my flat in Zagreb.", "2025-03-01T10:00:00Z"),
                    conversation("erin-2", "My favourite painter is Hilma af Klint.", "2025-03-02T10:00:00Z"),
                    conversation("erin-3", "I work at Quillfeather Bindery as a bookbinder.", "2025-03-03T10:00:00Z")) + "\n");
                ingest.publish(erin, n -> { });
                // issue 17: secrets told in a conversation are stored nowhere (the user stays, with the preference)
                final Path sam = dir.resolve("sam.jsonl");
                Files.writeString(sam, String.join("\n",
                    conversation(SECRETS_USER, "sam-1", "My staging key is " + SECRETS.get(0) + " and I prefer Postgres"
                        + " over MySQL.", "2025-03-04T10:00:00Z"),
                    conversation(SECRETS_USER, "sam-2", "My AWS access key id is " + SECRETS.get(1) + ", the GitHub token is "
                        + SECRETS.get(2) + " and my password is " + SECRETS.get(3) + ".", "2025-03-05T10:00:00Z"),
                    conversation(SECRETS_USER, "sam-3", "The session JWT is " + SECRETS.get(4) + " and the deploy key is "
                        + SECRETS.get(5).replace("\n", "\\n") + " please remember I deploy with Terraform.",
                        "2025-03-06T10:00:00Z")) + "\n");
                ingest.publish(sam, n -> { });
            }
            awaitProcessed(apps);
            final JsonNode memories = awaitMemories(apps.retrieverUrl(), ERASED);
            memories.forEach(m -> erasedTexts.add(m.path("content").asText()));
            assertThat(erasedTexts).isNotEmpty();
            assertThat(String.join(" ", erasedTexts)).contains("Zagreb");
            erasedTexts.addAll(List.of("Zagreb", "Hilma af Klint", "Quillfeather"));
            final String otherText = awaitMemories(apps.retrieverUrl(), "mira").get(0).path("content").asText();
            final JsonNode samMemories = awaitMemories(apps.retrieverUrl(), SECRETS_USER);
            assertThat(samMemories.toString()).contains("Postgres");
            final String export = HTTP.send(HttpRequest.newBuilder(URI.create(apps.retrieverUrl() + "/v1/tenants/"
                + TENANT + "/users/" + SECRETS_USER + "/export")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(export).contains("Postgres");
            for (final String secret : SECRET_MARKS) {
                assertThat(samMemories.toString()).as("memories").doesNotContain(secret);
                assertThat(export).as("export").doesNotContain(secret);
            }

            try (DataKeys fresh = freshKeys()) {
                final Scan before = scan(fresh);
                assertThat(before.records()).isPositive();
                assertThat(before.rawHits(erasedTexts)).as("sealed from the start: nothing in clear").isEmpty();
                assertThat(before.openedHits(erasedTexts)).as("positive control: the opened records hold the texts")
                    .isNotEmpty();
                assertThat(before.opened()).contains(otherText).contains("Postgres");
                assertThat(before.rawHits(SECRET_MARKS)).as("no secret in the raw bytes of any Engram topic").isEmpty();
                assertThat(before.openedHits(SECRET_MARKS)).as("no secret in any Engram record, opened").isEmpty();
            }

            final HttpResponse<String> erase = HTTP.send(HttpRequest.newBuilder(
                URI.create(apps.retrieverUrl() + "/v1/tenants/" + TENANT + "/users/" + ERASED)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(erase.statusCode()).isEqualTo(202);
            awaitGone(apps.retrieverUrl());
            awaitProcessed(apps);

            try (DataKeys fresh = freshKeys()) {
                assertThat(fresh.hasKey(TENANT + "/" + ERASED)).isFalse();
                assertThat(fresh.hasKey(TENANT + "/mira")).isTrue();
                final Scan after = scan(fresh);
                assertThat(after.rawHits(erasedTexts)).as("raw bytes of every Engram topic").isEmpty();
                assertThat(after.openedHits(erasedTexts)).as("every record opened with the remaining keys").isEmpty();
                assertThat(after.erased()).as("records of the erased user, now unreadable").isPositive();
                assertThat(after.opened()).contains(otherText);
            }

            final JsonNode erasedApi = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(apps.retrieverUrl()
                + "/v1/tenants/" + TENANT + "/users/" + ERASED + "/erasure")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(erasedApi.path("clean").asBoolean()).as(erasedApi.toString()).isTrue();
            assertThat(erasedApi.path("places").path("dataKey").asText()).isEqualTo("none");
            assertThat(erasedApi.path("erasedAt").isNull()).as("the ledger has the erasure").isFalse();
            final JsonNode keptApi = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(apps.retrieverUrl()
                + "/v1/tenants/" + TENANT + "/users/mira/erasure")).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(keptApi.path("clean").asBoolean()).as(keptApi.toString()).isFalse();
            assertThat(keptApi.path("places").path("retriever-memories-store").asLong()).isPositive();
            assertThat(keptApi.path("places").path("dataKey").asText()).isEqualTo("live");

            final CliRun erased = engram("verify-erasure", "--config", configFile.toString(), "--bootstrap-servers",
                broker.bootstrapServers(), "--tenant", TENANT, "--user", ERASED);
            assertThat(erased.exit()).as(erased.out()).isZero();
            assertThat(erased.out()).contains("nothing readable of acme/u-erin is held")
                .containsPattern("clean +data key \\(engram-data-keys\\) +none")
                .containsPattern("clean +consolidator memories store +0 readable entries, [1-9][0-9]* removed \\(tombstoned\\)")
                .containsPattern("clean +history \\(memory-updated\\) +0 readable records, [1-9][0-9]* sealed with an erased key");
            final CliRun kept = engram("verify-erasure", "--config", configFile.toString(), "--bootstrap-servers",
                broker.bootstrapServers(), "--tenant", TENANT, "--user", "mira");
            assertThat(kept.exit()).as(kept.out()).isEqualTo(VerifyErasureCommand.HOLDS);
            assertThat(kept.out()).containsPattern("HOLDS +consolidator memories store +[1-9][0-9]* readable entries")
                .containsPattern("HOLDS +retriever memories store +[1-9]").containsPattern("HOLDS +profile topic +1 readable")
                .containsPattern("HOLDS +data key \\(engram-data-keys\\) +live key");

            // a conversation dated before the erasure, sent after it: the consolidator drops it (nothing is
            // remembered), but its candidates are sealed with a new data key, so the check is not clean and says why
            try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of())) {
                final Path late = dir.resolve("erin-late.jsonl");
                Files.writeString(late, conversation("erin-4", "I restore antique clocks in a workshop in Split.",
                    "2025-03-04T10:00:00Z") + "\n");
                ingest.publish(late, n -> { });
            }
            awaitProcessed(apps);
            final JsonNode lateApi = Waits.until("a new data key of " + ERASED + " on /erasure", Duration.ofSeconds(120),
                () -> JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(apps.retrieverUrl() + "/v1/tenants/"
                    + TENANT + "/users/" + ERASED + "/erasure")).build(), HttpResponse.BodyHandlers.ofString()).body()),
                api -> "live".equals(api.path("places").path("dataKey").asText()));
            assertThat(lateApi.path("clean").asBoolean()).as(lateApi.toString()).isFalse();
            assertThat(lateApi.path("note").asText()).as(lateApi.toString())
                .contains("a new data key was made after the erasure", "memory-candidates");
            lateApi.path("places").fields().forEachRemaining(place -> {
                if (!"dataKey".equals(place.getKey())) {
                    assertThat(place.getValue().asLong()).as(place.getKey() + " in " + lateApi).isZero();
                }
            });
            assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(apps.retrieverUrl() + "/v1/tenants/" + TENANT
                + "/users/" + ERASED + "/memories")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .as("nothing of the late conversation is remembered").isEqualTo(404);
            assertThat(keptApi.has("note")).as("no note for a user never erased").isFalse();
        }

        final Map<TopicPartition, Long> updatedEnd = new HashMap<>();
        final Set<String> othersBefore = othersUpdates(null, updatedEnd);
        // A full rebuild of the consolidator from its topics: the erased user's records are skipped (their key is
        // gone), the erasure is re-learnt from the ERASE command (in clear), every other user is identical.
        final CliRun rebuild = engram("rebuild", "--config", configFile.toString(), "--bootstrap-servers",
            broker.bootstrapServers(), "--state-dir", dir.resolve("rebuild-state").toString(), "--work-dir",
            dir.resolve("rebuild").toString(), "--timeout", "PT3M", "--force");
        assertThat(rebuild.exit()).as(rebuild.out()).isZero();
        assertThat(rebuild.out()).contains("verify: no differences");
        // AES-SIV is deterministic: the rebuild's memory-updated records of the other users are byte-identical.
        final Set<String> othersAfter = othersUpdates(updatedEnd, new HashMap<>());
        assertThat(othersAfter).isNotEmpty();
        assertThat(othersBefore).containsAll(othersAfter);
        try (DataKeys fresh = freshKeys()) {
            assertThat(scan(fresh).openedHits(erasedTexts)).as("nothing readable after the rebuild either").isEmpty();
        }
    }

    private static String conversation(final String id, final String text, final String at) {
        return conversation(ERASED, id, text, at);
    }

    private static String conversation(final String user, final String id, final String text, final String at) {
        return "{\"tenantId\":\"" + TENANT + "\",\"userId\":\"" + user + "\",\"conversationId\":\"" + id
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\",\"timestamp\":\"" + at + "\"}]}";
    }

    private static DataKeys freshKeys() {
        return new DataKeys(Map.of("bootstrap.servers", broker.bootstrapServers()), Topic.DATA_KEYS.name(), Kek.aead(kek));
    }

    private static void awaitProcessed(final DemoApps apps) {
        broker.awaitProcessed(apps, Duration.ofSeconds(120));
    }

    private static JsonNode awaitMemories(final String base, final String user) {
        return Waits.until("memories of " + user + " served", Duration.ofSeconds(120), () -> {
            final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
                URI.create(base + "/v1/tenants/" + TENANT + "/users/" + user + "/memories")).build(),
                HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return JSON.createArrayNode();
            }
            final JsonNode body = JSON.readTree(r.body());
            return body.isArray() ? body : body.path("memories");
        }, list -> list.size() > 0);
    }

    private static void awaitGone(final String base) {
        Waits.until("the erasure applied (404 for " + ERASED + ")", Duration.ofSeconds(120), () -> HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/tenants/" + TENANT + "/users/" + ERASED + "/memories")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode(), status -> status == 404);
    }

    /** Every record of every Engram topic: raw bytes, and opened (decrypted) where a key allows. */
    private record Scan(long records, long erased, String raw, String opened, Map<String, String> openedByTopic) {
        List<String> rawHits(final List<String> texts) {
            return texts.stream().filter(raw::contains).toList();
        }

        /** @return each text found in an opened record, with the topics holding it */
        List<String> openedHits(final List<String> texts) {
            return texts.stream().filter(opened::contains).map(t -> t + " in " + openedByTopic.entrySet().stream()
                .filter(e -> e.getValue().contains(t)).map(Map.Entry::getKey).toList()).toList();
        }
    }

    private static Scan scan(final DataKeys keys) throws Exception {
        final Set<String> topics = new TreeSet<>();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            topics.addAll(admin.listTopics().names().get());
        }
        topics.removeIf(t -> t.startsWith("__") || t.equals(Topic.CONVERSATIONS_COMPLETED.name()));
        assertThat(topics).contains(Topic.MEMORY_CANDIDATES.name(), Topic.MEMORY_UPDATED.name(), Topic.MEMORY_COMMANDS.name(),
            Topic.USER_PROFILES.name(), Topic.DATA_KEYS.name(), "engram-consolidator-memories-by-user-store-changelog");
        final StringBuilder raw = new StringBuilder();
        final StringBuilder opened = new StringBuilder();
        final Map<String, String> openedByTopic = new HashMap<>();
        long records = 0;
        long erased = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"), new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            final List<TopicPartition> partitions = new ArrayList<>();
            for (final String topic : topics) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            final long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos(); // every topic, at load 10+
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("topics read to their end").isLessThan(deadline);
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records++;
                    final String value = r.value() == null ? "" : new String(r.value(), StandardCharsets.ISO_8859_1);
                    raw.append(value).append('\n');
                    for (final Header h : r.headers()) {
                        raw.append(new String(h.value() == null ? new byte[0] : h.value(), StandardCharsets.UTF_8));
                    }
                    if (r.value() != null && !r.topic().equals(Topic.DATA_KEYS.name())) {
                        try {
                            final String text = new String(keys.open(r.value()), StandardCharsets.UTF_8);
                            opened.append(text).append('\n');
                            openedByTopic.merge(r.topic(), text, (a, b) -> a + '\n' + b);
                        } catch (ErasedDataException e) {
                            erased++;
                        }
                    }
                }
            }
        }
        // raw as UTF-8 too, so multi-byte text would match
        return new Scan(records, erased, raw + new String(raw.toString().getBytes(StandardCharsets.ISO_8859_1),
            StandardCharsets.UTF_8), opened.toString(), openedByTopic);
    }

    /** Hex of every memory-updated value not keyed by the erased user, from {@code from} (null = the beginning). */
    private static Set<String> othersUpdates(final Map<TopicPartition, Long> from, final Map<TopicPartition, Long> end) {
        final Set<String> values = new TreeSet<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(Topic.MEMORY_UPDATED.name()).forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            if (from != null) {
                from.forEach(consumer::seek);
            }
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            end.putAll(ends);
            final long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos(); // every topic, at load 10+
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (!new String(r.key(), StandardCharsets.UTF_8).equals(TENANT + "/" + ERASED)) {
                        values.add(java.util.HexFormat.of().formatHex(r.value()));
                    }
                }
            }
        }
        return values;
    }

}
