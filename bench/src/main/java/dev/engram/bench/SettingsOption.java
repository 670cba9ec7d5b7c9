package dev.engram.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Option;

/**
 * The {@code --set KEY=VALUE} option of the benchmarks that start an {@link EmbeddedStack} (picocli mixin): settings
 * of the stack's apps, so that a setting can be compared run against run. The embedded stack does not read
 * {@code ENGRAM_*} environment variables, so this is the one way to change them for a benchmark.
 */
public final class SettingsOption {

    @Option(names = "--set", paramLabel = "KEY=VALUE",
        description = "Setting of the stack's apps (repeatable), e.g. --set kafka.commit.interval.ms=50.")
    Map<String, String> settings = new LinkedHashMap<>();

    /** @return the settings given, in the order given (empty when none) */
    public Map<String, String> settings() {
        return settings;
    }

    /**
     * @param defaults the benchmark's own settings for the stack; the ones given on the command line win
     * @return the settings to start the stack with
     */
    public Map<String, Object> over(final Map<String, ?> defaults) {
        final Map<String, Object> merged = new LinkedHashMap<>(defaults);
        merged.putAll(settings);
        return merged;
    }

    /**
     * Adds the settings given to a benchmark's figures as {@code settings}, so a JSON file says what it measured;
     * nothing when none were given.
     *
     * @param figures the benchmark's figures
     */
    public void addTo(final Map<String, Object> figures) {
        if (!settings.isEmpty()) {
            figures.put("settings", new LinkedHashMap<>(settings));
        }
    }
}
