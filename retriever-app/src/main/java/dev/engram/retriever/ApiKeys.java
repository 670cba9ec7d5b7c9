package dev.engram.retriever;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The API keys of the retriever and what each may reach. A key maps to one tenant with either the
 * ADMIN scope (every user of that tenant) or the USER scope (one user of it). Keys come from
 * {@code retriever.auth.keys} ({@code KEY=TENANT:admin,KEY=TENANT:user:USER}) and from the
 * properties file {@code retriever.auth.keys.file} (one {@code KEY=TENANT:admin} or
 * {@code KEY=TENANT:user:USER} per line).
 *
 * <p>Only SHA-256 digests of the keys are held; a caller is named in logs and audit records by
 * {@link Principal#keyId()}, the first 12 hex digits of that digest, never by the key.
 * Default deny: an unknown or missing key has no principal, and {@link Principal#mayAccess} is the
 * one check of tenant and user, done before any handler runs.
 */
public final class ApiKeys {

    /** What a key may reach. */
    public enum Scope {
        /** every user of the key's tenant */
        ADMIN,
        /** one user of the key's tenant */
        USER
    }

    /**
     * An authenticated caller.
     *
     * @param keyId first 12 hex digits of the key's SHA-256 (safe to log and audit)
     * @param tenantId the key's tenant
     * @param scope ADMIN or USER
     * @param userId the user of a USER key, null for ADMIN
     */
    public record Principal(String keyId, String tenantId, Scope scope, String userId) {

        /**
         * @param user the (tenant, user) a request names
         * @return whether this caller may read or change that user's memory
         */
        public boolean mayAccess(final UserKey user) {
            return tenantId.equals(user.tenantId()) && (scope == Scope.ADMIN || userId.equals(user.userId()));
        }
    }

    private final Map<String, Principal> byDigest;

    private ApiKeys(final Map<String, Principal> byDigest) {
        this.byDigest = Map.copyOf(byDigest);
    }

    /**
     * @param config {@code retriever.auth.keys} and {@code retriever.auth.keys.file}
     * @return the keys
     * @throws ConfigException if an entry is malformed
     * @throws UncheckedIOException if the file cannot be read
     */
    public static ApiKeys from(final EngramConfig config) {
        final Map<String, Principal> keys = new HashMap<>();
        final Password inline = config.getPassword(RetrieverConfig.AUTH_KEYS);
        if (inline != null && !inline.value().isBlank()) {
            for (final String entry : inline.value().split(",")) {
                if (entry.isBlank()) {
                    continue;
                }
                final int eq = entry.indexOf('=');
                if (eq <= 0) {
                    throw new ConfigException(RetrieverConfig.AUTH_KEYS, "(hidden)", "each entry is KEY=TENANT:admin or KEY=TENANT:user:USER");
                }
                add(keys, entry.substring(0, eq).strip(), entry.substring(eq + 1).strip());
            }
        }
        final String file = config.getString(RetrieverConfig.AUTH_KEYS_FILE);
        if (file != null && !file.isBlank()) {
            final Properties props = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                props.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + RetrieverConfig.AUTH_KEYS_FILE + " " + file, e);
            }
            props.forEach((k, v) -> add(keys, k.toString().strip(), v.toString().strip()));
        }
        return new ApiKeys(keys);
    }

    /**
     * @param entries key → {@code TENANT:admin} or {@code TENANT:user:USER}
     * @return the keys
     */
    public static ApiKeys of(final Map<String, String> entries) {
        final Map<String, Principal> keys = new HashMap<>();
        entries.forEach((k, v) -> add(keys, k, v));
        return new ApiKeys(keys);
    }

    private static void add(final Map<String, Principal> keys, final String key, final String grant) {
        if (key.length() < 16) {
            throw new ConfigException(RetrieverConfig.AUTH_KEYS, "(hidden)", "API keys must have at least 16 characters");
        }
        final String[] parts = grant.split(":", 3);
        final String digest = digest(key);
        final String keyId = digest.substring(0, 12);
        try {
            if (parts.length == 2 && "admin".equals(parts[1].toLowerCase(Locale.ROOT))) {
                new UserKey(parts[0], "any");
                keys.put(digest, new Principal(keyId, parts[0], Scope.ADMIN, null));
                return;
            }
            if (parts.length == 3 && "user".equals(parts[1].toLowerCase(Locale.ROOT))) {
                new UserKey(parts[0], parts[2]);
                keys.put(digest, new Principal(keyId, parts[0], Scope.USER, parts[2]));
                return;
            }
        } catch (IllegalArgumentException e) {
            throw new ConfigException(RetrieverConfig.AUTH_KEYS, "(hidden)", "key " + keyId + ": " + e.getMessage());
        }
        throw new ConfigException(RetrieverConfig.AUTH_KEYS, "(hidden)", "key " + keyId
            + ": the grant must be TENANT:admin or TENANT:user:USER");
    }

    /**
     * @param key a presented key, or null
     * @return its principal; empty when the key is missing or unknown
     */
    public Optional<Principal> authenticate(final String key) {
        if (key == null || key.isBlank()) {
            return Optional.empty();
        }
        return Optional.ofNullable(byDigest.get(digest(key.strip())));
    }

    /** @return the number of keys */
    public int size() {
        return byDigest.size();
    }

    private static String digest(final String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
