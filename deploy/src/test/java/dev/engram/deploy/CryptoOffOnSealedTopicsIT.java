package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.crypto.Kek;
import dev.engram.crypto.PersonalSerdes;
import dev.engram.retriever.RetrieverConfig;
import dev.engram.stack.DemoApps;
import dev.engram.stack.Ingest;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * An app started with {@code crypto.enabled=false} against topics that hold sealed (crypto-shredded) records: the
 * pipeline ran with crypto-shredding on, then the configuration lost it. It used to start and fail on the first
 * sealed store entry with a stack trace; each app now refuses to start with one line saying what to do, before it
 * consumes anything (nothing is skipped, every offset stays where it was).
 */
class CryptoOffOnSealedTopicsIT {

    private static CryptoTestBroker broker;
    private static Path dir;
    private static Map<String, Object> common;

    @BeforeAll
    static void runSealed() throws Exception {
        broker = CryptoTestBroker.start("engram-crypto-off-it");
        dir = broker.dir();
        final byte[] kek = new byte[Kek.KEY_BYTES];
        new SecureRandom().nextBytes(kek);
        common = new HashMap<>(Map.of(CoreConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers(),
            PipelineConfig.STATE_DIR, dir.resolve("streams").toString(), PipelineConfig.EXTRACTOR_HTTP_PORT, 0,
            PipelineConfig.CONSOLIDATOR_HTTP_PORT, 0, PipelineConfig.RETRIEVER_HTTP_PORT, 0,
            RetrieverConfig.AUTH_ENABLED, false));
        final Map<String, Object> sealed = new HashMap<>(common);
        sealed.put(PipelineConfig.CRYPTO_ENABLED, true);
        sealed.put(PipelineConfig.CRYPTO_KEK, Base64.getEncoder().encodeToString(kek));
        try (DemoApps apps = DemoApps.start(new EngramConfig(sealed))) {
            publish("mira-1", "I live in Lisbon and I keep two cats.", "2025-03-01T10:00:00Z");
            broker.awaitProcessed(apps, Duration.ofSeconds(120));
        }
        PersonalSerdes.closeAll();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    @Test
    void shouldRefuseToStartWithOneLineSayingWhatToDoWhenCryptoIsOffOnSealedTopics() throws Exception {
        final Path file = dir.resolve("crypto-off.properties");
        final StringBuilder properties = new StringBuilder(PipelineConfig.CRYPTO_ENABLED + "=false\n");
        common.forEach((key, value) -> properties.append(key).append('=').append(value.toString().replace("\\", "\\\\"))
            .append('\n'));
        Files.writeString(file, properties);
        publish("mira-2", "These days I write almost everything in Kotlin.", "2025-03-02T10:00:00Z");

        for (final String app : new String[] {"extractor", "consolidator", "retriever"}) {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final CommandLine cli = EngramCli.commandLine();
            cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
            final int exit = cli.execute(app, "--config", file.toString());
            final String printed = err.toString(StandardCharsets.UTF_8);

            assertThat(exit).as(app + ": " + printed).isEqualTo(1);
            assertThat(printed.strip().lines()).as(app).singleElement().asString()
                .contains("crypto.enabled=false", Topic.DATA_KEYS.name(), "sealed", "crypto.kek");
        }
    }

    private static void publish(final String id, final String text, final String at) throws Exception {
        final Path file = dir.resolve(id + ".jsonl");
        Files.writeString(file, "{\"tenantId\":\"acme\",\"userId\":\"mira\",\"conversationId\":\"" + id
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\",\"timestamp\":\"" + at + "\"}]}\n");
        try (Ingest ingest = new Ingest(broker.bootstrapServers(), Map.of())) {
            ingest.publish(file, n -> { });
        }
    }
}
