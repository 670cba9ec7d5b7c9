package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A demo empties its run directory only when nothing but a demo's own files are in it. */
class RunDirectoryTest {

    @TempDir
    Path dir;

    @Test
    void shouldRefuseToEmptyADirectoryHoldingOtherFilesAndLeaveThemThere() throws Exception {
        final Path precious = Files.writeString(dir.resolve("precious.txt"), "keep me");
        Files.createDirectories(dir.resolve("kafka-logs"));

        assertThat(RunDirectory.mayEmpty(dir)).isFalse();
        assertThat(precious).hasContent("keep me");
    }

    @Test
    void shouldEmptyANewAnEmptyOrADemosOwnDirectoryAndMarkIt() throws Exception {
        final Path fresh = dir.resolve("new");
        assertThat(RunDirectory.mayEmpty(fresh)).isTrue();
        assertThat(RunDirectory.mayEmpty(dir)).as("empty").isTrue();

        try (AutoCloseable lock = RunDirectory.takeEmptied(fresh)) {
            Files.createDirectories(fresh.resolve("kafka-logs").resolve("topic-0"));
            Files.createDirectories(fresh.resolve("streams"));
        }

        assertThat(fresh.resolve(".engram-run-dir")).exists();
        assertThat(RunDirectory.mayEmpty(fresh)).as("what a demo made").isTrue();
        try (AutoCloseable lock = RunDirectory.takeEmptied(fresh)) {
            assertThat(fresh.resolve("kafka-logs")).doesNotExist();
        }
    }

    @Test
    void shouldNotTakeAFileForARunDirectory() throws Exception {
        final Path file = Files.writeString(dir.resolve("notes.txt"), "x");

        assertThat(RunDirectory.mayEmpty(file)).isFalse();
    }
}
