package dev.engram.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.engram.config.EngramConfig;
import dev.engram.streams.PipelineConfig;

/**
 * The demo's local key-encryption key: crypto-shredding stays on in the demo without a key from the environment.
 */
final class LocalKek {

    /** The key's file name in the run directory. */
    static final String FILE = "crypto-kek.base64";

    private LocalKek() {
    }

    /**
     * Crypto-shredding is on by default, and the demo keeps it on: without a key-encryption key from the environment
     * ({@code ENGRAM_CRYPTO_KEK}, {@code ENGRAM_CRYPTO_KEK_FILE}) it makes a local one, 32 random bytes in base64, in
     * the run directory ({@value #FILE}, readable by its owner only), which is emptied with the broker's data at
     * the next start. A deployment supplies its own key (an app refuses to start without one) or sets
     * {@code crypto.enabled=false}.
     *
     * @param config the environment's configuration
     * @param dir the run directory
     * @return {@code crypto.kek.file} of the local key, or nothing when crypto is off or a key is given
     */
    static Map<String, Object> of(final EngramConfig config, final Path dir) throws IOException {
        final String file = config.getString(PipelineConfig.CRYPTO_KEK_FILE);
        final org.apache.kafka.common.config.types.Password kek = config.getPassword(PipelineConfig.CRYPTO_KEK);
        if (!config.getBoolean(PipelineConfig.CRYPTO_ENABLED) || file != null && !file.isBlank()
            || kek != null && !kek.value().isBlank()) {
            return Map.of();
        }
        final byte[] raw = new byte[32];
        new java.security.SecureRandom().nextBytes(raw);
        final Path key = dir.resolve(FILE);
        java.nio.file.Files.writeString(key, java.util.Base64.getEncoder().encodeToString(raw) + "\n");
        try {
            java.nio.file.Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // the run directory's own permissions apply
        }
        return Map.of(PipelineConfig.CRYPTO_KEK_FILE, key.toString());
    }
}
