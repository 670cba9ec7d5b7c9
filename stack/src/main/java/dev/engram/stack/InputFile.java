package dev.engram.stack;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a file named on the command line before any work starts (no broker started, no cluster asked), so
 * that a mistyped path is one line naming the file and what is wrong with it. The commands report the
 * {@link IllegalArgumentException} as one line on stderr with exit code 1 (docs/operations.md, "Command line": "an unreadable file").
 */
public final class InputFile {

    private InputFile() {
    }

    /**
     * @param given the path the user gave, resolved against the working directory
     * @param what what the file is for the user, e.g. {@code "the input file"}, {@code "the --before snapshot"}
     * @return the absolute, normalized path of a readable regular file
     * @throws IllegalArgumentException naming {@code what} and the path when it does not exist, is a
     *     directory, or cannot be read
     */
    public static Path readable(final Path given, final String what) {
        final Path file = given.toAbsolutePath().normalize();
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(what + " " + file + " does not exist");
        }
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(what + " " + file + " is a directory, not a file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " " + file + " cannot be read (permissions)");
        }
        return file;
    }
}
