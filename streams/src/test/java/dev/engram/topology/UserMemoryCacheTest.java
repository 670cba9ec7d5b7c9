package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.core.UserKey;
import dev.engram.serde.AvroSerdes;
import org.junit.jupiter.api.Test;

class UserMemoryCacheTest {

    private static final UserKey MIRA = new UserKey("t1", "u-mira");
    private static final UserKey JON = new UserKey("t1", "u-jon");

    static {
        AvroSerdes.trustGeneratedRecords(); // Memory.newBuilder(memory) deep-copies through Avro's class allow-list
    }

    private static Memory memory(final UserKey user, final String id, final String content) {
        final Instant at = Instant.parse("2025-01-01T09:00:00Z");
        return Memory.newBuilder().setMemoryId(id).setTenantId(user.tenantId()).setUserId(user.userId())
            .setType(MemoryType.EPISODIC).setContent(content).setImportance(0.5).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(MemoryStatus.ACTIVE).setCreatedAt(at).setUpdatedAt(at)
            .setLastAccessedAt(at).setLastConfirmedAt(at).setValidFrom(at).setSources(List.of())
            .setEmbedding(List.of(1f, 0f)).setEmbeddingModel("m").build();
    }

    private static Map.Entry<String, Memory> entry(final UserKey user, final Memory memory) {
        return Map.entry(user.storeKey(memory.getMemoryId()), memory);
    }

    @Test
    void shouldScanOnceThenFollowEveryWriteInStoreKeyOrder() {
        final UserMemoryCache cache = new UserMemoryCache(100);
        final Memory b = memory(MIRA, "b", "second");
        final int[] scans = {0};
        final List<Memory> first = cache.memories(MIRA.wire(), () -> {
            scans[0]++;
            return List.of(entry(MIRA, b));
        });
        assertThat(first).containsExactly(b);

        final Memory a = memory(MIRA, "a", "first");
        // "é" (U+00E9) sorts after "z" in UTF-8 bytes, as RocksDB orders the keys
        final Memory accent = memory(MIRA, "\u00e9", "accent");
        final Memory z = memory(MIRA, "z", "last");
        cache.written(MIRA.storeKey("\u00e9"), accent);
        cache.written(MIRA.storeKey("z"), z);
        cache.written(MIRA.storeKey("a"), a);
        final Memory b2 = Memory.newBuilder(b).setStatus(MemoryStatus.ARCHIVED).build();
        cache.written(MIRA.storeKey("b"), b2);
        cache.written(MIRA.storeKey("z"), null);
        cache.written(JON.storeKey("x"), memory(JON, "x", "not cached: ignored"));

        assertThat(cache.memories(MIRA.wire(), () -> {
            scans[0]++;
            return List.of();
        })).containsExactly(a, b2, accent);
        assertThat(scans[0]).isEqualTo(1);
        assertThat(cache.size()).isEqualTo(3);

        cache.forget(MIRA.wire());
        assertThat(cache.size()).isZero();
        assertThat(cache.memories(MIRA.wire(), List::of)).isEmpty();
    }

    @Test
    void shouldDropTheLeastRecentlyReadUserBeyondTheBound() {
        final UserMemoryCache cache = new UserMemoryCache(2);
        cache.memories(MIRA.wire(), () -> List.of(entry(MIRA, memory(MIRA, "a", "a")), entry(MIRA, memory(MIRA, "b", "b"))));
        cache.memories(JON.wire(), () -> List.of(entry(JON, memory(JON, "c", "c"))));

        assertThat(cache.size()).isEqualTo(1);
        final int[] scans = {0};
        cache.memories(MIRA.wire(), () -> {
            scans[0]++;
            return List.of();
        });
        assertThat(scans[0]).as("Mira was evicted and is read from the store again").isEqualTo(1);
    }

    @Test
    void shouldListTheStoresUsersInStoreOrderFromOneScanThenFollowTheWrites() {
        final UserMemoryCache cache = new UserMemoryCache(100);
        final UserKey ann = new UserKey("t1", "u");
        final UserKey annex = new UserKey("t1", "u-annex"); // its prefix "t1/u" sorts first, as "t1/u\0…" does
        final UserKey eve = new UserKey("t1", "\u00e9ve");   // after every ASCII name, in UTF-8 bytes
        cache.written(JON.storeKey("j"), memory(JON, "j", "before the first scan: not listed, the scan is the store"));
        final int[] scans = {0};
        assertThat(cache.users(() -> {
            scans[0]++;
            return List.of(eve.wire(), MIRA.wire(), annex.wire(), ann.wire(), MIRA.wire());
        })).containsExactly(ann.wire(), annex.wire(), MIRA.wire(), eve.wire());

        cache.written(JON.storeKey("j2"), memory(JON, "j2", "new user"));
        cache.written(MIRA.storeKey("m"), null); // a delete: Mira may still have entries
        cache.forget(annex.wire());
        assertThat(cache.users(() -> {
            scans[0]++;
            return List.of();
        })).containsExactly(ann.wire(), JON.wire(), MIRA.wire(), eve.wire());
        assertThat(scans[0]).isEqualTo(1);
    }

    @Test
    void shouldReadAUserForThePassFromTheCacheOrTheStoreAndKeepItOnlyWhenThatEvictsNoOne() {
        final UserMemoryCache cache = new UserMemoryCache(3);
        final Memory a = memory(MIRA, "a", "a");
        final Memory b = memory(MIRA, "b", "b");
        cache.memories(MIRA.wire(), () -> List.of(entry(MIRA, a), entry(MIRA, b)));
        assertThat(cache.memoriesForPass(MIRA.wire(), List::of)).as("cached: no scan").containsExactly(a, b);

        final Memory c = memory(JON, "c", "c");
        final Memory d = memory(JON, "d", "d");
        assertThat(cache.memoriesForPass(JON.wire(), () -> List.of(entry(JON, c), entry(JON, d)))).containsExactly(c, d);
        assertThat(cache.size()).as("no room for Jon: Mira stays, Jon is not kept").isEqualTo(2);
        assertThat(cache.memoriesForPass(MIRA.wire(), List::of)).containsExactly(a, b);

        cache.forget(MIRA.wire());
        assertThat(cache.memoriesForPass(JON.wire(), () -> List.of(entry(JON, d), entry(JON, c)))).containsExactly(c, d);
        assertThat(cache.size()).as("room now: Jon is kept").isEqualTo(2);
        assertThat(cache.memoriesForPass(JON.wire(), List::of)).containsExactly(c, d);
    }
}
