package dev.engram.bench;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/** The {@code --json FILE} option every benchmark shares (picocli mixin). */
public final class JsonOption {

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON to FILE.")
    Path json;

    /** @return the JSON file, or null when not asked for */
    public Path file() {
        return json;
    }
}
