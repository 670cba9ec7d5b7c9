package dev.engram.retriever;

import java.time.Instant;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

import dev.engram.avro.TenantSettings;

/**
 * The retriever's copy of {@code tenant-settings}: every version of every tenant's settings, by version time, fed by
 * the topic's records in any order (versions have keys of their own, so order does not matter). Thread-safe.
 */
public final class TenantSettingsHistory {

    private final Map<String, NavigableMap<Instant, TenantSettings>> byTenant = new ConcurrentHashMap<>();

    /**
     * Applies one record of {@code tenant-settings}.
     *
     * @param key the record key, {@code <tenant>/<13-digit version ms>}
     * @param settings the version, or null for a tombstone (the version is removed)
     * @throws IllegalArgumentException if the key is not of that form
     */
    public void apply(final String key, final TenantSettings settings) {
        final int slash = key == null ? -1 : key.lastIndexOf('/');
        if (slash <= 0 || !key.substring(slash + 1).matches("\\d{13}")) {
            throw new IllegalArgumentException("not a tenant-settings key: " + key);
        }
        final String tenant = key.substring(0, slash);
        final Instant version = Instant.ofEpochMilli(Long.parseLong(key.substring(slash + 1)));
        if (settings == null) {
            byTenant.computeIfPresent(tenant, (t, versions) -> {
                versions.remove(version);
                return versions.isEmpty() ? null : versions;
            });
        } else {
            byTenant.computeIfAbsent(tenant, t -> new ConcurrentSkipListMap<>()).put(version, settings);
        }
    }

    /**
     * @param tenantId the tenant
     * @param at a point of event time
     * @return the version in force then (the latest at or before it), empty when the tenant had none
     */
    public Optional<TenantSettings> at(final String tenantId, final Instant at) {
        final NavigableMap<Instant, TenantSettings> versions = byTenant.get(tenantId);
        return versions == null ? Optional.empty() : Optional.ofNullable(versions.floorEntry(at)).map(Map.Entry::getValue);
    }

    /**
     * @param tenantId the tenant
     * @return the newest version, empty when the tenant has none
     */
    public Optional<TenantSettings> latest(final String tenantId) {
        final NavigableMap<Instant, TenantSettings> versions = byTenant.get(tenantId);
        return versions == null ? Optional.empty() : Optional.ofNullable(versions.lastEntry()).map(Map.Entry::getValue);
    }

    /**
     * @param tenantId the tenant
     * @return how many versions the tenant has
     */
    public int versions(final String tenantId) {
        final NavigableMap<Instant, TenantSettings> versions = byTenant.get(tenantId);
        return versions == null ? 0 : versions.size();
    }
}
