package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.testing.MemoryFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Snapshots, their diff and JSON round trip; the rebuild's argument checks; the model registry. */
class MemorySnapshotTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private static Memory memory(final String user, final String id, final String content) {
        return MemoryFixtures.memory("t", user, id, content, AT).build();
    }

    @Test
    void shouldReportNoDifferenceWhenTheSameMemoriesComeInAnotherOrder() {
        final Memory a = memory("u1", "m1", "Uses Kotlin");
        final Memory b = memory("u1", "m2", "Lives in Lisbon");
        final MemorySnapshot before = MemorySnapshot.of(2, Map.of("t/u1", List.of(a, b)));
        final MemorySnapshot after = MemorySnapshot.of(5, Map.of("t/u1", List.of(b, a)));
        assertThat(before.diff(after)).isEmpty();
        assertThat(before.activeMemories()).isEqualTo(2);
    }

    @Test
    void shouldNameEveryUserThatDiffersWhenContentStatusOrPresenceChanges() {
        final Memory a = memory("u1", "m1", "Uses Kotlin");
        final Memory archived = Memory.newBuilder(a).setStatus(MemoryStatus.ARCHIVED).build();
        final Memory edited = Memory.newBuilder(a).setContent("Uses Java").build();
        final MemorySnapshot before = MemorySnapshot.of(1, Map.of("t/u1", List.of(a), "t/u2", List.of(memory("u2", "m3", "x")),
            "t/u3", List.of(memory("u3", "m4", "y"))));
        final MemorySnapshot after = MemorySnapshot.of(1, Map.of("t/u1", List.of(archived), "t/u2", List.of(edited),
            "t/u4", List.of(memory("u4", "m5", "z"))));
        assertThat(before.diff(after)).containsExactly(
            "t/u1: before 1 active / 0 archived, after 0 active / 1 archived, content differs",
            "t/u2: before 1 active / 0 archived, after 1 active / 0 archived, content differs",
            "t/u3: only before (1 memories)",
            "t/u4: only after (1 memories)");
    }

    @Test
    void shouldLeaveOutDeletedMemoriesAndRoundTripThroughJsonWhenWritten() {
        final Memory a = memory("u1", "m1", "Uses Kotlin");
        final Memory deleted = Memory.newBuilder(memory("u1", "m2", "gone")).setStatus(MemoryStatus.DELETED).build();
        final MemorySnapshot snapshot = MemorySnapshot.of(3, Map.of("t/u1", List.of(a, deleted)));
        assertThat(snapshot.totalMemories()).isEqualTo(1);
        snapshot.write(dir.resolve("s.json"));
        assertThat(MemorySnapshot.read(dir.resolve("s.json"))).isEqualTo(snapshot);
    }

    @Test
    void shouldRefuseAFromTimestampWithoutReExtractWhenRebuildingTheConsolidator() {
        final int exit = new CommandLine(new RebuildCommand()).execute("--from-timestamp", "2026-01-01T00:00:00Z",
            "--bootstrap-servers", "localhost:1");
        assertThat(exit).isEqualTo(2);
    }

    @Test
    void shouldRefuseWithRetrieverWhenTheAppIsNotTheConsolidator() {
        final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        final java.io.PrintStream was = System.err;
        final int exit;
        try {
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            exit = new CommandLine(new RebuildCommand()).execute("--app", "retriever", "--with-retriever",
                "--bootstrap-servers", "localhost:1");
        } finally {
            System.setErr(was);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("--with-retriever", "--app consolidator");
    }

    @Test
    void shouldOfferTheBuiltInAndTheServiceLoadedModelsWhenListed() {
        assertThat(Embedders.available()).containsKeys(Embedders.DEFAULT_MODEL, HashEmbedderProvider.MODEL);
        assertThat(Reembed.topicFor("text-embedding-3-small")).isEqualTo("memory-embeddings-text-embedding-3-small");
        assertThat(Reembed.topicFor("BAAI/bge-m3")).isEqualTo("memory-embeddings-baai-bge-m3");
    }
}
