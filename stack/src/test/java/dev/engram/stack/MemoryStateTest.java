package dev.engram.stack;

import static dev.engram.testing.MemoryFixtures.erased;
import static dev.engram.testing.MemoryFixtures.memory;
import static dev.engram.testing.MemoryFixtures.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.UpdateOperation;
import org.junit.jupiter.api.Test;

/** The fold of {@code memory-updated}: per tenant and user, latest state wins, deletions and erasures honoured. */
class MemoryStateTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldKeepTwoTenantsApartWhenTheirUsersShareAnId() {
        final Memory a = memory("t1", "u", "m1", "Lives in Porto", AT).build();
        final Memory b = memory("t2", "u", "m2", "Lives in Oslo", AT).build();

        final MemoryState state = MemoryState.fold(List.of(updated(a, UpdateOperation.CREATED, AT),
            updated(b, UpdateOperation.CREATED, AT)));

        assertThat(state.memories()).containsOnlyKeys("t1/u", "t2/u");
        assertThat(state.memories().get("t1/u")).containsExactly(a);
        assertThat(state.memories().get("t2/u")).containsExactly(b);
        assertThatThrownBy(state::byUserIdOfOneTenant).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("[t1, t2]");
    }

    @Test
    void shouldKeepTheLatestStateOfEachMemoryInOrderOfFirstAppearance() {
        final Memory first = memory("t1", "u", "m1", "Uses Kotlin", AT).build();
        final Memory second = memory("t1", "u", "m2", "Lives in Porto", AT).build();
        final Memory reinforced = Memory.newBuilder(first).setReinforcementCount(2).build();

        final MemoryState state = MemoryState.fold(List.of(updated(first, UpdateOperation.CREATED, AT),
            updated(second, UpdateOperation.CREATED, AT), updated(reinforced, UpdateOperation.REINFORCED, AT)));

        assertThat(state.events()).isEqualTo(3);
        assertThat(state.memories().get("t1/u")).containsExactly(reinforced, second);
        assertThat(state.byUserIdOfOneTenant()).containsOnlyKeys("u");
    }

    @Test
    void shouldDropDeletedMemoriesAndErasedUsersOfThatTenantOnly() {
        final Memory kept = memory("t1", "u", "m1", "Uses Kotlin", AT).build();
        final Memory deleted = memory("t1", "u", "m2", "Lives in Porto", AT).build();
        final Memory other = memory("t2", "u", "m3", "Lives in Oslo", AT).build();
        final Memory erasedOne = memory("t1", "v", "m4", "Plays cello", AT).build();
        final MemoryUpdated deletion = MemoryUpdated.newBuilder(updated(deleted, UpdateOperation.DELETED, AT))
            .setMemory(null).build();
        final Memory marker = Memory.newBuilder(kept).setMemoryId("m5").setStatus(MemoryStatus.DELETED).build();

        final MemoryState state = MemoryState.fold(java.util.Arrays.asList(
            updated(kept, UpdateOperation.CREATED, AT), updated(deleted, UpdateOperation.CREATED, AT),
            updated(other, UpdateOperation.CREATED, AT), updated(erasedOne, UpdateOperation.CREATED, AT),
            deletion, updated(marker, UpdateOperation.CORRECTED, AT), erased("t1", "v", AT), null));

        assertThat(state.memories()).containsOnlyKeys("t1/u", "t2/u");
        assertThat(state.memories().get("t1/u")).containsExactly(kept);
        assertThat(state.memories().get("t2/u")).containsExactly(other);
        assertThat(state.total()).isEqualTo(2);
        assertThat(state.events()).isEqualTo(7);
    }
}
