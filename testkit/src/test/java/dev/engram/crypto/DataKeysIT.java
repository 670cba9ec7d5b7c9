package dev.engram.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.google.crypto.tink.Aead;
import dev.engram.testing.EmbeddedKafka;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.engram.topics.Topic;

/**
 * The data key ring against a real broker: deterministic sealing, processes racing to create one user's
 * key agree on it, a tombstone makes every earlier record unreadable (and a later key does not open them),
 * a key wrapped by another KEK is never used, plaintext written before encryption still reads.
 */
class DataKeysIT {

    private static EmbeddedKafka kafka;
    private static Aead kek;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        kafka.createTopics(2, List.of(Topic.DATA_KEYS.name()));
        final byte[] raw = new byte[Kek.KEY_BYTES];
        new SecureRandom().nextBytes(raw);
        kek = Kek.aead(raw);
    }

    @AfterAll
    static void stop() throws Exception {
        kafka.close();
    }

    private static DataKeys ring(final Aead key) {
        return new DataKeys(Map.of("bootstrap.servers", kafka.bootstrapServers()), Topic.DATA_KEYS.name(), key);
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldSealDeterministicallyAndOpenInAnotherProcessWhenTheKeyIsShared() {
        try (DataKeys writer = ring(kek); DataKeys reader = ring(kek)) {
            final byte[] first = writer.seal("t/u-ada", bytes("Lives in Porto"));
            final byte[] again = writer.seal("t/u-ada", bytes("Lives in Porto"));
            assertThat(again).isEqualTo(first);
            assertThat(DataKeys.sealed(first)).isTrue();
            assertThat(DataKeys.userKeyOf(first)).isEqualTo("t/u-ada");
            assertThat(new String(first, StandardCharsets.ISO_8859_1)).doesNotContain("Porto");
            assertThat(reader.open(first)).isEqualTo(bytes("Lives in Porto"));
            // records written before encryption was turned on pass through
            assertThat(reader.open(bytes("plain avro"))).isEqualTo(bytes("plain avro"));
        }
    }

    @Test
    void shouldAgreeOnOneKeyWhenTwoProcessesCreateTheSameUsersKeyAtOnce() throws Exception {
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try (DataKeys a = ring(kek); DataKeys b = ring(kek)) {
            final List<CompletableFuture<byte[]>> sealed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                final DataKeys ring = i % 2 == 0 ? a : b;
                final String user = "t/u-race-" + (i / 2);
                sealed.add(CompletableFuture.supplyAsync(() -> ring.seal(user, bytes("same text")), pool));
            }
            try (DataKeys fresh = ring(kek)) {
                for (int i = 0; i < sealed.size(); i += 2) {
                    assertThat(sealed.get(i).get()).as("both processes sealed with the winner").isEqualTo(sealed.get(i + 1).get());
                    assertThat(fresh.open(sealed.get(i).get())).isEqualTo(bytes("same text"));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldMakeEveryEarlierRecordUnreadableWhenTheKeyIsTombstonedEvenAfterANewKey() throws Exception {
        try (DataKeys ring = ring(kek)) {
            final byte[] old = ring.seal("t/u-bo", bytes("Keeps bees"));
            final byte[] other = ring.seal("t/u-cy", bytes("Plays cello"));
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                kafka.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(Topic.DATA_KEYS.name(), "t/u-bo", null)).get();
            }
            EmbeddedKafka.waitUntil(() -> !ring.hasKey("t/u-bo"), EmbeddedKafka.DEFAULT_TIMEOUT, "tombstone read");
            assertThatThrownBy(() -> ring.open(old)).isInstanceOf(ErasedDataException.class).hasMessageContaining("t/u-bo")
                .hasMessageNotContaining("bees");
            assertThat(ring.open(other)).isEqualTo(bytes("Plays cello"));

            final byte[] later = ring.seal("t/u-bo", bytes("Keeps bees"));
            assertThat(later).isNotEqualTo(old);
            try (DataKeys fresh = ring(kek)) {
                assertThat(fresh.open(later)).isEqualTo(bytes("Keeps bees"));
                assertThatThrownBy(() -> fresh.open(old)).isInstanceOf(ErasedDataException.class);
            }
        }
    }

    @Test
    void shouldRefuseAForgedRecordAndNeverUseAKeyWrappedByAnotherKek() {
        try (DataKeys ring = ring(kek)) {
            final byte[] sealed = ring.seal("t/u-di", bytes("Runs marathons"));
            sealed[sealed.length - 1] ^= 1;
            assertThatThrownBy(() -> ring.open(sealed)).isInstanceOf(SerializationException.class)
                .isNotInstanceOf(ErasedDataException.class).hasMessageContaining("does not authenticate");
        }
        final byte[] other = new byte[Kek.KEY_BYTES];
        new SecureRandom().nextBytes(other);
        try (DataKeys wrong = ring(Kek.aead(other)); DataKeys right = ring(kek)) {
            final byte[] sealed = right.seal("t/u-ed", bytes("Sails"));
            assertThatThrownBy(() -> wrong.open(sealed)).isInstanceOf(ErasedDataException.class);
            // a misconfigured process must not create a second key of its own for that user
            assertThatThrownBy(() -> wrong.seal("t/u-ed", bytes("Sails"))).isInstanceOf(SerializationException.class)
                .hasMessageContaining("another key-encryption key");
        }
    }
}
