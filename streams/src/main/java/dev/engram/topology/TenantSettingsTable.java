package dev.engram.topology;

import java.time.Instant;
import java.util.Locale;

import dev.engram.avro.TenantSettings;
import dev.engram.port.TenantPolicy;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The versioned table of tenant settings: the keys of {@code tenant-settings} and the lookup "the version in force at
 * an event's time".
 *
 * <p>Every version of a tenant's settings is its own record, keyed {@code <tenant>/<version>} with the version time in
 * epoch milliseconds written as 13 digits (zero-padded: the keys of one tenant sort by time as bytes, and a tenant id
 * never contains {@code /}, so {@code <tenant>/} is a prefix of that tenant's keys only). The topic is compacted, and
 * since no two versions share a key compaction keeps them all: a rebuild that re-extracts a conversation of last March
 * uses the settings that were in force last March, not today's ({@link #inForce}). A version's time is event time,
 * chosen by whoever writes it (the admin route: now, or the request's {@code effectiveFrom}).
 */
public final class TenantSettingsTable {

    private static final String VERSION_FORMAT = "%013d";
    /** The latest version a key can hold: the largest epoch ms of {@value #VERSION_FORMAT}'s 13 digits (2286-11-20). */
    public static final Instant LATEST_VERSION = Instant.ofEpochMilli(9_999_999_999_999L);

    private TenantSettingsTable() {
    }

    /**
     * @param tenantId the tenant
     * @param version when the version comes into force, at or after the epoch and before the year 2286
     * @return the record key, {@code <tenant>/<13-digit epoch ms>}
     * @throws IllegalArgumentException if the version is outside that range
     */
    public static String key(final String tenantId, final Instant version) {
        final long ms = version.toEpochMilli();
        if (ms < 0 || version.isAfter(LATEST_VERSION)) {
            throw new IllegalArgumentException("a settings version must be within 1970-01-01 .. 2286-11-20: " + version);
        }
        return tenantId + "/" + String.format(Locale.ROOT, VERSION_FORMAT, ms);
    }

    /**
     * The settings of a tenant in force at an event's time: the version with the latest time at or before it.
     *
     * @param store the table ({@link StoreNames#TENANT_SETTINGS}, or any store keyed by {@link #key})
     * @param tenantId the tenant
     * @param at the event's time
     * @return that version's policy, or {@link TenantPolicy#none} when the tenant had no settings then
     */
    public static TenantPolicy inForce(final ReadOnlyKeyValueStore<String, TenantSettings> store, final String tenantId,
                                       final Instant at) {
        final long ms = Math.max(0, Math.min(at.toEpochMilli(), 9_999_999_999_999L));
        try (KeyValueIterator<String, TenantSettings> versions = store.reverseRange(key(tenantId, Instant.EPOCH),
            key(tenantId, Instant.ofEpochMilli(ms)))) {
            while (versions.hasNext()) {
                final KeyValue<String, TenantSettings> version = versions.next();
                if (version.value != null) {
                    return TenantPolicy.of(version.value);
                }
            }
        }
        return TenantPolicy.none(tenantId);
    }
}
