package dev.engram.deploy;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.config.EngramConfig;
import dev.engram.consolidator.ConsolidatorApp;
import dev.engram.extractor.ExtractorApp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/engram extractor|consolidator [--config FILE]}: run one app against a cluster
 * ({@code bin/engram retriever} is {@link dev.engram.retriever.RetrieverApp}'s own command).
 * Settings come from the defaults, the properties file, then {@code ENGRAM_*} environment variables
 * (see {@link EngramConfig}); the exit code is the app's (0 after a clean shutdown, 1 after an error).
 */
public final class AppCommands {

    private AppCommands() {
    }

    /** Options shared by the three commands. */
    abstract static class AppCommand implements Callable<Integer> {
        @Option(names = "--config", paramLabel = "FILE",
            description = "Properties file (keys as in docs/configuration.md); ENGRAM_* environment variables override it.")
        Path config;

        EngramConfig load() {
            return EngramConfig.load(config == null ? null : config.toAbsolutePath(), System.getenv(), Map.of());
        }
    }

    /** {@code bin/engram extractor}. */
    @Command(name = "extractor", mixinStandardHelpOptions = true,
        description = "Run the extractor: conversations-completed → memory-candidates.")
    static final class Extractor extends AppCommand {
        @Override
        public Integer call() {
            return ExtractorApp.run(load());
        }
    }

    /** {@code bin/engram consolidator}. */
    @Command(name = "consolidator", mixinStandardHelpOptions = true,
        description = "Run the consolidator: memory-candidates → memory-updated, memory-contradictions, memory-archived.")
    static final class Consolidator extends AppCommand {
        @Override
        public Integer call() {
            return ConsolidatorApp.run(load());
        }
    }
}
