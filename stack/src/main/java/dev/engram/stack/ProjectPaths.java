package dev.engram.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the repository root, so that the shipped sample ({@value #SAMPLE}) and the shared data next
 * to the repository ({@code ../shared/...}) resolve wherever the JVM was started: from the system
 * property {@value #HOME_PROPERTY} (set by {@code bin/engram}), else by walking up from the working
 * directory to the directory whose {@code pom.xml} lists {@code <module>schemas</module>}.
 */
public final class ProjectPaths {

    /** System property holding the repository root. */
    public static final String HOME_PROPERTY = "engram.home";
    /** The sample input shipped in the repository, relative to its root. */
    public static final String SAMPLE = "deploy/sample/conversations.jsonl";

    private ProjectPaths() {
    }

    /** @return the repository root, if found */
    public static Optional<Path> repositoryRoot() {
        final String home = System.getProperty(HOME_PROPERTY);
        if (home != null && !home.isBlank()) {
            return Optional.of(Path.of(home).toAbsolutePath().normalize());
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (isRoot(dir)) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    /** @return the shipped sample input, if the repository root is found */
    public static Optional<Path> sample() {
        return repositoryRoot().map(root -> root.resolve(SAMPLE));
    }

    /**
     * @param relative a path relative to the repository root, e.g. {@code ../shared/data/locomo/x.json}
     * @return it, if the root is found and the file exists
     */
    public static Optional<Path> existing(final String relative) {
        return repositoryRoot().map(root -> root.resolve(relative).normalize()).filter(Files::exists);
    }

    private static boolean isRoot(final Path dir) {
        final Path pom = dir.resolve("pom.xml");
        if (!Files.isRegularFile(pom)) {
            return false;
        }
        try {
            return Files.readString(pom).contains("<module>schemas</module>");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + pom, e);
        }
    }

    /**
     * Deletes a directory tree (run directories, local state); nothing if it does not exist.
     *
     * @param dir the tree's root
     * @throws IOException if it cannot be walked
     * @throws java.io.UncheckedIOException if an entry cannot be deleted
     */
    public static void deleteRecursively(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(entry -> {
                try {
                    Files.delete(entry);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("Cannot delete " + entry, e);
                }
            });
        }
    }
}
