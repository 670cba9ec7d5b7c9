package dev.engram.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * Crypto-shredding is on in the default configuration: whatever seals a personal record without a key-encryption key
 * refuses with a message saying how to supply one or how to turn it off; turned off explicitly, records are plain.
 */
class KekTest {

    @Test
    void shouldRefuseNamingBothWaysOutWhenCryptoIsOnByDefaultAndNoKeyIsGiven() {
        assertThat(EngramConfig.defaults().getBoolean(PipelineConfig.CRYPTO_ENABLED)).isTrue();
        assertThatThrownBy(() -> Kek.from(EngramConfig.defaults())).isInstanceOf(ConfigException.class)
            .hasMessageContaining("crypto.kek.file").hasMessageContaining("ENGRAM_CRYPTO_KEK")
            .hasMessageContaining("openssl rand -base64 32").hasMessageContaining("crypto.enabled=false")
            // README trial: verify against the demo named crypto.kek.file but not where the demo keeps its key
            .hasMessageContaining("ENGRAM_CRYPTO_KEK_FILE").hasMessageContaining("run/demo/crypto-kek.base64");
        assertThatThrownBy(() -> Topic.MEMORY_UPDATED.valueSerde(EngramConfig.defaults()))
            .hasMessageContaining("crypto.enabled=false");
    }

    @Test
    void shouldWritePlainRecordsOnlyWhenCryptoIsTurnedOffExplicitly() {
        assertThat(EngramConfig.plain().getBoolean(PipelineConfig.CRYPTO_ENABLED)).isFalse();
        assertThat(PersonalSerdes.keys(EngramConfig.plain(), Topic.DATA_KEYS.name())).isEmpty();
        assertThat(Kek.from(EngramConfig.defaults().with(Map.of(PipelineConfig.CRYPTO_KEK,
            Base64.getEncoder().encodeToString(new byte[Kek.KEY_BYTES]))))).isNotNull();
    }

    @Test
    void shouldRefuseASealedRecordSayingWhatToDoWhenCryptoIsOff() {
        final byte[] user = "acme/erin".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // an envelope as DataKeys writes it: E5 01, the user key's length and the user key, Tink's prefix, the SIV
        final byte[] sealed = java.nio.ByteBuffer.allocate(4 + user.length + 5 + 16 + 8).put(DataKeys.MAGIC)
            .put(DataKeys.VERSION).putShort((short) user.length).put(user).put((byte) 1).putInt(0x1234abcd).array();
        final org.apache.kafka.common.serialization.Deserializer<dev.engram.avro.MemoryUpdated> plain =
            Topic.MEMORY_UPDATED.valueDeserializer(EngramConfig.plain());

        assertThatThrownBy(() -> plain.deserialize(Topic.MEMORY_UPDATED.name(), sealed))
            .isInstanceOf(org.apache.kafka.common.errors.SerializationException.class)
            .hasMessage(SealedTopics.message(Topic.MEMORY_UPDATED.name(), "acme/erin"))
            .hasMessageContaining("crypto.enabled=false").hasMessageContaining("crypto.kek.file");
    }
}
