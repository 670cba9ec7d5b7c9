package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.engram.config.EngramConfig;
import dev.engram.qdrant.QdrantConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DemoCommandTest {

    @Test
    void shouldSetTheQdrantSettingsWhenTheVectorIndexFlagsAreGiven() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--vector-index", "qdrant", "--qdrant-host", "qdrant.internal", "--qdrant-port", "6339");

        final EngramConfig config = EngramConfig.load(null, Map.of("ENGRAM_QDRANT_HOST", "from-env"),
            demo.vectorIndexOverrides());
        assertThat(config.getString(QdrantConfig.VECTOR_INDEX)).isEqualTo("qdrant");
        assertThat(config.getString(QdrantConfig.QDRANT_HOST)).isEqualTo("qdrant.internal");
        assertThat(config.getInt(QdrantConfig.QDRANT_PORT)).isEqualTo(6339);
        assertThat(config.getBoolean(QdrantConfig.QDRANT_TLS)).isFalse();
    }

    /**
     * {@code demo --once} exits as {@code bin/engram ingest} does on the same file: 2 when a record was refused (a
     * fresh user's trial: "5 records published, 4 rejected" and exit 0), 0 when every record was published, dead
     * letters included (the shipped sample has two).
     */
    @Test
    void shouldExitTwoAfterOnceWhenInputRecordsWereRefusedAndZeroWhenOnlyDeadLettersWerePublished() throws Exception {
        final java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        final java.io.PrintStream out = new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8);
        final dev.engram.stack.ConversationSources.Report sample = dev.engram.stack.ConversationSources.readAll(
            dev.engram.stack.ProjectPaths.sample().orElseThrow()).getValue();

        assertThat(DemoCommand.onceExit(sample, out)).isZero();
        assertThat(printed.size()).isZero();
        assertThat(DemoCommand.onceExit(new dev.engram.stack.ConversationSources.Report(
            dev.engram.stack.ConversationSources.Format.JSON_LINES, 5, 4, 0, java.util.List.of()), out)).isEqualTo(2);
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
            .isEqualTo("4 record(s) refused: exit 2, as bin/engram ingest gives for this file.\n");
    }

    @Test
    void shouldKeepTheEmbeddedDefaultWhenNoFlagIsGiven() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--once");
        assertThat(demo.vectorIndexOverrides()).isEmpty();
        assertThat(EngramConfig.load(null, Map.of(), demo.vectorIndexOverrides()).getString(QdrantConfig.VECTOR_INDEX))
            .isEqualTo("embedded");
    }

    @Test
    void shouldRefuseAnUnknownVectorIndexWhenConfigIsLoaded() {
        final DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--vector-index", "faiss");
        assertThatThrownBy(() -> EngramConfig.load(null, Map.of(), demo.vectorIndexOverrides()))
            .isInstanceOf(ConfigException.class).hasMessageContaining("vector.index");
    }

    @Test
    void shouldRefuseAPortOutsideTheTcpRangeBeforeStartingAnything(@TempDir final Path tmp) throws Exception {
        final Path run = tmp.resolve("demo");
        Files.createDirectories(run);
        Files.writeString(run.resolve("marker"), "x");

        final CliRun result = CliRun.engram("demo", "--once", "--port", "99999", "--run-dir", run.toString());

        assertThat(result.exit()).isEqualTo(2);
        assertThat(run.resolve("marker")).exists();
    }

    /** A second demo used to take a free port silently: its user then read the first demo's answers on 8080. */
    @Test
    void shouldSayOnStandardOutputWhenPort8080IsTakenAndAFreePortIsUsed() throws Exception {
        final java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        final DemoCommand demo = new DemoCommand(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        new CommandLine(demo).parseArgs("--once");
        java.net.ServerSocket holder = null;
        try {
            try {
                holder = new java.net.ServerSocket(DemoCommand.DEFAULT_PORT); // else something already holds it
            } catch (java.io.IOException alreadyTaken) {
                holder = null;
            }
            assertThat(demo.retrieverPort()).isZero();
        } finally {
            if (holder != null) {
                holder.close();
            }
        }
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
            .contains("Port 8080 is in use", "takes a free port instead", "--port N");
    }

    /**
     * A second demo on a run directory another process holds must leave it alone: emptying it deleted the
     * running demo's broker logs and killed it (fresh-user trial). The holder is a second JVM, as a second
     * {@code bin/engram demo} is: file locks are per process. The refusal comes before the port is chosen: it
     * used to say first that 8080 was in use and a free port would be taken (fresh-user trial, 2026-12-05).
     */
    @Test
    void shouldRefuseASecondDemoOnTheSameRunDirectoryWithoutEmptyingIt(@TempDir final Path tmp) throws Exception {
        final Path run = tmp.resolve("demo");
        Files.createDirectories(run.resolve("kafka-logs"));
        Files.writeString(run.resolve("kafka-logs").resolve("marker"), "the running demo's files");
        final Path holder = tmp.resolve("HoldLock.java");
        Files.writeString(holder, """
            import java.nio.channels.FileChannel;
            import java.nio.file.*;
            public class HoldLock {
                public static void main(String[] a) throws Exception {
                    try (FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                         var lock = c.lock()) {
                        System.out.println("locked");
                        System.out.flush();
                        Thread.sleep(60_000);
                    }
                }
            }
            """);
        final Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            holder.toString(), tmp.resolve("demo.lock").toString()).redirectErrorStream(true).start();
        try {
            assertThat(new String(other.getInputStream().readNBytes(6))).isEqualTo("locked");

            // 8080 held too, as the running demo holds it: the refusal comes first, without a word about ports
            java.net.ServerSocket port8080 = null;
            try {
                port8080 = new java.net.ServerSocket(DemoCommand.DEFAULT_PORT);
            } catch (java.io.IOException alreadyTaken) {
                port8080 = null;
            }
            final CliRun result;
            try {
                result = CliRun.engram("demo", "--once", "--run-dir", run.toString());
            } finally {
                if (port8080 != null) {
                    port8080.close();
                }
            }

            assertThat(result.exit()).isEqualTo(1);
            assertThat(run.resolve("kafka-logs").resolve("marker")).hasContent("the running demo's files");
            assertThat(result.out()).doesNotContain("takes a free port");
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
