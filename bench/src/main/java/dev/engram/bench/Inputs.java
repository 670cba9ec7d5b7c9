package dev.engram.bench;

import java.nio.file.Files;
import java.nio.file.Path;

import dev.engram.stack.ProjectPaths;

/** Resolves a benchmark's input file. */
final class Inputs {

    /** The LoCoMo dev split next to the repository (FORMAT.md), relative to the repository root. */
    static final String LOCOMO_DEV = "../shared/data/locomo/locomo_dev_conv0-6.json";

    private Inputs() {
    }

    /**
     * @param given the path the user gave (resolved against the working directory), or null
     * @return the given file, else {@value #LOCOMO_DEV} resolved against the repository root
     * @throws IllegalArgumentException if the file does not exist
     */
    static Path resolve(final Path given) {
        final Path file = given != null ? given.toAbsolutePath().normalize()
            : ProjectPaths.existing(LOCOMO_DEV).orElse(Path.of(LOCOMO_DEV).toAbsolutePath().normalize());
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("Cannot read the input file " + file
                + " (LoCoMo JSON; default " + LOCOMO_DEV + " next to the repository)");
        }
        return file;
    }
}
