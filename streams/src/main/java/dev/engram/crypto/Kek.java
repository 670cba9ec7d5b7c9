package dev.engram.crypto;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.AesGcmKey;
import com.google.crypto.tink.aead.AesGcmParameters;
import com.google.crypto.tink.util.SecretBytes;
import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The key-encryption key: AES-256-GCM (Tink, 12-byte IV, 16-byte tag, no output prefix) from 32 bytes
 * given as base64 in {@code crypto.kek.file} (a mounted secret; wins) or {@code crypto.kek}. It only ever
 * wraps data keys; it is never written to a topic or logged.
 */
public final class Kek {

    /** Raw key length, bytes (AES-256). */
    public static final int KEY_BYTES = 32;

    private Kek() {
    }

    /**
     * @param config the Engram config
     * @return the KEK as a Tink AEAD
     * @throws ConfigException if neither setting is given, the file cannot be read, or the value is not
     *     base64 of 32 bytes
     */
    public static Aead from(final EngramConfig config) {
        final String file = config.getString(PipelineConfig.CRYPTO_KEK_FILE);
        final String encoded;
        if (file != null && !file.isBlank()) {
            try {
                encoded = Files.readString(Path.of(file), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new ConfigException(PipelineConfig.CRYPTO_KEK_FILE + ": cannot read " + file + ": " + e.getMessage());
            }
        } else {
            final Password password = config.getPassword(PipelineConfig.CRYPTO_KEK);
            if (password == null || password.value().isBlank()) {
                throw new ConfigException(PipelineConfig.CRYPTO_ENABLED + "=true (the default: erased users' records "
                    + "become unreadable at once) needs the key-encryption key: set " + PipelineConfig.CRYPTO_KEK_FILE
                    + " (ENGRAM_CRYPTO_KEK_FILE: a file, e.g. a mounted Secret; the demo's is"
                    + " run/demo/crypto-kek.base64, in its --run-dir) or " + PipelineConfig.CRYPTO_KEK + " (ENGRAM_CRYPTO_KEK) to base64 of "
                    + "32 random bytes (openssl rand -base64 32), and keep it: records sealed under it cannot be read "
                    + "without it. Or set " + PipelineConfig.CRYPTO_ENABLED + "=false to run without crypto-shredding "
                    + "(erased content then stays readable on Engram's topics until their retention)");
            }
            encoded = password.value();
        }
        final byte[] raw;
        try {
            raw = Base64.getDecoder().decode(encoded.strip());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("The key-encryption key is not base64");
        }
        if (raw.length != KEY_BYTES) {
            throw new ConfigException("The key-encryption key must be " + KEY_BYTES + " bytes, got " + raw.length);
        }
        return aead(raw);
    }

    /**
     * @param raw 32 key bytes
     * @return AES-256-GCM over them
     */
    public static Aead aead(final byte[] raw) {
        try {
            AeadConfig.register();
            final AesGcmParameters parameters = AesGcmParameters.builder().setKeySizeBytes(KEY_BYTES).setIvSizeBytes(12)
                .setTagSizeBytes(16).setVariant(AesGcmParameters.Variant.NO_PREFIX).build();
            final AesGcmKey key = AesGcmKey.builder().setParameters(parameters)
                .setKeyBytes(SecretBytes.copyFrom(raw, InsecureSecretKeyAccess.get())).build();
            return KeysetHandle.newBuilder().addEntry(KeysetHandle.importKey(key).withRandomId().makePrimary()).build()
                .getPrimitive(RegistryConfiguration.get(), Aead.class);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot build the key-encryption key: " + e.getMessage(), e);
        }
    }
}
