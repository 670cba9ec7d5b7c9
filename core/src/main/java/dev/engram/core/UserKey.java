package dev.engram.core;

import java.util.Objects;

/**
 * The key of every per-user topic and store: tenant and user, so that all of a user's events are
 * co-partitioned and processed in order by one task.
 *
 * <p>Wire form: {@code <tenantId>/<userId>} (UTF-8 string). A tenant id never contains {@code /};
 * a user id may (it is everything after the first slash). Neither may be blank, longer than 256 UTF-16
 * units, or contain control characters (which keeps the store-key separator {@link #STORE_SEPARATOR}
 * unambiguous) or an unpaired surrogate (not text); any other Unicode, emoji included, is allowed.
 *
 * @param tenantId the tenant, non-blank, no {@code /}
 * @param userId the user within the tenant, non-blank
 */
public record UserKey(String tenantId, String userId) {

    /** Separates the user key from a memory id in store keys (see {@link #storeKey(String)}). */
    public static final char STORE_SEPARATOR = '\u0000';

    /**
     * @throws IllegalArgumentException if either part is null, blank, has control characters, or the
     *     tenant contains {@code /}
     */
    public UserKey {
        requireValid("tenantId", tenantId);
        requireValid("userId", userId);
        if (tenantId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("tenantId must not contain '/': " + tenantId);
        }
    }

    /**
     * Parses the wire form.
     *
     * @param wire {@code tenant/user}
     * @return the key
     * @throws IllegalArgumentException if the form or a part is invalid
     */
    public static UserKey parse(final String wire) {
        Objects.requireNonNull(wire, "user key");
        final int slash = wire.indexOf('/');
        if (slash <= 0 || slash == wire.length() - 1) {
            throw new IllegalArgumentException("user key must be <tenant>/<user>: " + wire);
        }
        return new UserKey(wire.substring(0, slash), wire.substring(slash + 1));
    }

    /** @return the wire form {@code tenant/user} */
    public String wire() {
        return tenantId + "/" + userId;
    }

    /**
     * @param memoryId a memory id
     * @return the key of that memory in a per-user store: {@code wire() + '\0' + memoryId}
     */
    public String storeKey(final String memoryId) {
        return wire() + STORE_SEPARATOR + memoryId;
    }

    /** @return the prefix shared by all store keys of this user, for {@code prefixScan} */
    public String storePrefix() {
        return wire() + STORE_SEPARATOR;
    }

    /** Tells whether a value is a valid id part; the reason is in the exception. */
    private static void requireValid(final String field, final String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is missing or blank");
        }
        if (value.length() > 256) {
            throw new IllegalArgumentException(field + " is longer than 256 characters");
        }
        // code points, not chars: an emoji is a valid surrogate pair; only an unpaired surrogate is refused
        for (int i = 0; i < value.length(); ) {
            final int cp = value.codePointAt(i);
            if (Character.isISOControl(cp) || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                throw new IllegalArgumentException(field + " contains a control character or an unpaired surrogate");
            }
            i += Character.charCount(cp);
        }
    }

    @Override
    public String toString() {
        return wire();
    }
}
