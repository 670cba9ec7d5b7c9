package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import dev.engram.crypto.DataKeys;
import dev.engram.crypto.Kek;
import dev.engram.stack.TopicSetup;
import dev.engram.streams.PipelineConfig;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.Topic;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/engram verify-erasure} on sealed topics (in-process KRaft broker, real data keys): a user erased and then
 * given a new data key (a record about them written after the erasure) holds the new key's records, not the erased
 * key's. Without the key-encryption key the check judges a sealed record by the key id in its envelope against the
 * live key's id on {@code engram-data-keys}, and must count exactly what the check with the key counts: it counted
 * every sealed record of the user as readable while any key of theirs was live.
 */
class VerifyErasureSealedIT {

    private static final String ERIN = "acme/erin";
    private static EmbeddedKafka kafka;
    private static byte[] kek;

    @TempDir
    static Path dir;

    @BeforeAll
    static void sealAndErase() {
        kafka = EmbeddedKafka.start();
        TopicSetup.createAll(kafka.admin(), 2);
        kek = new byte[Kek.KEY_BYTES];
        new SecureRandom().nextBytes(kek);
        final Instant t = Instant.parse("2025-03-01T10:00:00Z");
        try (DataKeys keys = new DataKeys(Map.of("bootstrap.servers", kafka.bootstrapServers()), Topic.DATA_KEYS.name(),
            Kek.aead(kek))) {
            final int erasedKey = DataKeys.keyIdOf(keys.seal(ERIN, bytes("before")));
            // three history records sealed with the key the erasure tombstones
            send(Topic.MEMORY_UPDATED.name(), List.of(
                new EmbeddedKafka.Record<>(ERIN, keys.seal(ERIN, bytes("I keep three beehives in Zagreb.")), t),
                new EmbeddedKafka.Record<>(ERIN, keys.seal(ERIN, bytes("My favourite painter is Hilma af Klint.")), t),
                new EmbeddedKafka.Record<>(ERIN, keys.seal(ERIN, bytes("I work at Quillfeather Bindery.")), t)));
            // the erasure: the consolidator tombstones the user's data key
            kafka.send(Topic.DATA_KEYS.name(), new StringSerializer(), new ByteArraySerializer(),
                List.of(new EmbeddedKafka.Record<>(ERIN, (byte[]) null, t)));
            EmbeddedKafka.waitUntil(() -> !keys.hasKey(ERIN), EmbeddedKafka.DEFAULT_TIMEOUT, "the data key tombstoned");
            // a late conversation: its candidate is sealed with a new data key of the same user
            final byte[] late = keys.seal(ERIN, bytes("I restore antique clocks in Split."));
            assertThat(DataKeys.keyIdOf(late)).as("a new key, never the erased one").isNotEqualTo(erasedKey);
            send(Topic.MEMORY_CANDIDATES.name(), List.of(new EmbeddedKafka.Record<>(ERIN, late, t)));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        kafka.close();
    }

    @Test
    void shouldCountOnlyTheRecordsOfTheLiveKeyWhenNoKeyEncryptionKeyIsGiven() {
        final Report report = verify("--bootstrap-servers", kafka.bootstrapServers(), "--tenant", "acme", "--user", "erin");

        assertThat(report.exit()).as(report.out()).isEqualTo(VerifyErasureCommand.HOLDS);
        assertThat(report.out())
            .containsPattern("clean +history \\(memory-updated\\) +0 readable records, 3 sealed with an erased key")
            .containsPattern("HOLDS +memory-candidates +1 readable records")
            .containsPattern("HOLDS +data key \\(engram-data-keys\\) +live key [0-9a-f]+ \\(no key-encryption key given");
    }

    @Test
    void shouldCountWhatTheCheckWithTheKeyEncryptionKeyCounts() throws Exception {
        final Path secret = dir.resolve("kek.b64");
        Files.writeString(secret, Base64.getEncoder().encodeToString(kek));
        final Path config = dir.resolve("engram.properties");
        Files.writeString(config, PipelineConfig.CRYPTO_KEK_FILE + "=" + secret + "\n");

        final Report withKey = verify("--config", config.toString(), "--bootstrap-servers", kafka.bootstrapServers(),
            "--tenant", "acme", "--user", "erin");
        final Report withoutKey = verify("--bootstrap-servers", kafka.bootstrapServers(), "--tenant", "acme", "--user", "erin");

        assertThat(withKey.exit()).as(withKey.out()).isEqualTo(VerifyErasureCommand.HOLDS);
        assertThat(counts(withoutKey.out())).as(withoutKey.out()).isEqualTo(counts(withKey.out()));
    }

    /** Every line but the data key's (which says how it was read), as the verdict and counts. */
    private static List<String> counts(final String report) {
        return report.lines().filter(l -> !l.contains("data key")).toList();
    }

    private record Report(int exit, String out) {
    }

    private static Report verify(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int exit = new CommandLine(new VerifyErasureCommand(new PrintStream(out, true, StandardCharsets.UTF_8)))
            .execute(args);
        return new Report(exit, out.toString(StandardCharsets.UTF_8));
    }

    private static void send(final String topic, final List<EmbeddedKafka.Record<String, byte[]>> records) {
        kafka.send(topic, new StringSerializer(), new ByteArraySerializer(), records);
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
