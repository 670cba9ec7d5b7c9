package dev.engram.deploy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

import dev.engram.stack.ProjectPaths;

/**
 * A demo's run directory (broker logs, Streams state), owned by one process at a time: the owner holds an
 * exclusive lock on {@code <dir>.lock} beside it for as long as it runs, and only the owner empties it. A
 * second demo on the same directory is refused instead of deleting the running demo's broker logs under it.
 * The lock is the operating system's (released when the process dies, also on SIGKILL), so a stale lock file
 * never blocks the next demo. A directory that holds anything a demo does not put there ({@link #mayEmpty}) is
 * never emptied: {@code --run-dir .} must not delete a repository.
 */
final class RunDirectory {

    /** What a demo puts in its run directory: the broker's logs, the apps' Streams state, and this marker. */
    static final Set<String> OWN_ENTRIES = Set.of("kafka-logs", "streams", ".engram-run-dir", LocalKek.FILE);

    private RunDirectory() {
    }

    /**
     * @param dir a directory given as a run directory
     * @return whether a demo may empty it: missing, empty, or holding nothing but what a demo puts there
     *     ({@link #OWN_ENTRIES}); a directory with anything else in it (the repository, a home directory) is not
     * @throws IOException if it cannot be listed
     */
    static boolean mayEmpty(final Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return !Files.exists(dir);
        }
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            return entries.allMatch(e -> OWN_ENTRIES.contains(e.getFileName().toString()));
        }
    }

    /**
     * @param dir the run directory (created, with its parent, when missing)
     * @return the held lock (close it when the demo stops), with {@code dir} emptied; or null, {@code dir}
     *     untouched, when another process holds it
     * @throws IOException if the lock file or the directory cannot be written
     * @throws IllegalStateException if this process already holds it
     */
    static AutoCloseable takeEmptied(final Path dir) throws IOException {
        Files.createDirectories(dir.getParent());
        final FileChannel channel = FileChannel.open(dir.resolveSibling(dir.getFileName() + ".lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        final FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            channel.close();
            throw new IllegalStateException("this process already runs a demo in " + dir, e);
        }
        if (lock == null) {
            channel.close();
            return null;
        }
        ProjectPaths.deleteRecursively(dir);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(".engram-run-dir"), "An Engram demo's run directory: emptied when a demo starts.\n");
        return channel;
    }
}
