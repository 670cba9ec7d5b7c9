package dev.engram.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * A Kafka Streams state directory of its own for one {@link PipelineHarness} (its topologies' state stores under the
 * build's temp dir), deleted with everything in it on {@link #close()}.
 */
final class StateDir implements AutoCloseable {

    private final Path path;

    /**
     * Creates a fresh temp directory.
     *
     * @param prefix the directory name's prefix
     * @throws UncheckedIOException when it cannot be created
     */
    StateDir(final String prefix) {
        try {
            path = Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the directory */
    Path path() {
        return path;
    }

    /** Deletes the directory and what it holds, best effort (the drivers must be closed first). */
    @Override
    public void close() {
        try (var files = Files.walk(path)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: the directory is under the build's temp dir
        }
    }
}
