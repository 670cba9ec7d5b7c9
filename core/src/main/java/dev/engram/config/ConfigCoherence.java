package dev.engram.config;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration checked as a whole, at the start of every app (and so of {@code bin/engram demo}):
 * each key can be valid on its own ({@link EngramConfig#DEFINITION}'s validators) while two together
 * cannot work. Each {@link ConfigGroup} checks its own keys ({@link ConfigGroup#check}: the domain's thresholds,
 * lifecycle periods, k and input limits in {@code DomainConfig}, the wire format in {@code PipelineConfig}, the LLM
 * call's worst case in {@code LlmConfig}); this class runs every group's checks, refusals first. A finding names
 * every key involved.
 *
 * <p>Refused: the app does not start, {@link ConfigException} naming the keys of every refusal. Warned: logged at
 * start with the keys; it runs, but a rule never or wrongly fires.
 */
public final class ConfigCoherence {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigCoherence.class);

    /** Whether a finding stops the start. */
    public enum Severity {
        /** the app does not start */
        REFUSE,
        /** the app starts; the finding is logged */
        WARN
    }

    /**
     * One incoherence.
     *
     * @param severity refuse or warn
     * @param keys every key involved, in the order the message names them
     * @param message what cannot work and why
     */
    public record Finding(Severity severity, List<String> keys, String message) {

        /** Copies the keys. */
        public Finding {
            keys = List.copyOf(keys);
        }

        /**
         * @param message what cannot work and why
         * @param keys every key involved
         * @return a finding that stops the start
         */
        public static Finding refuse(final String message, final String... keys) {
            return new Finding(Severity.REFUSE, List.of(keys), message);
        }

        /**
         * @param message what never or wrongly fires and why
         * @param keys every key involved
         * @return a finding that is logged at start
         */
        public static Finding warn(final String message, final String... keys) {
            return new Finding(Severity.WARN, List.of(keys), message);
        }

        /** @return {@code key, key: message} */
        public String text() {
            return String.join(", ", keys) + ": " + message;
        }
    }

    private ConfigCoherence() {
    }

    /**
     * @param config a config whose keys are each valid
     * @return every group's findings, refusals first (in group order within a severity); empty when the whole is
     *     coherent (the defaults are)
     */
    public static List<Finding> check(final EngramConfig config) {
        final List<Finding> findings = new ArrayList<>();
        EngramConfig.groups().forEach(group -> findings.addAll(group.check(config)));
        findings.sort((a, b) -> a.severity().compareTo(b.severity()));
        return findings;
    }

    /**
     * Refuses an incoherent config and logs the warnings, each prefixed with the app's name.
     *
     * @param config the config an app starts with
     * @param app the app, e.g. {@code consolidator}
     * @return the warnings that were logged
     * @throws ConfigException naming the keys of every refusal
     */
    public static List<Finding> enforce(final EngramConfig config, final String app) {
        final List<Finding> findings = check(config);
        final List<Finding> refusals = findings.stream().filter(f -> f.severity() == Severity.REFUSE).toList();
        if (!refusals.isEmpty()) {
            throw new ConfigException("incoherent configuration: "
                + refusals.stream().map(Finding::text).collect(Collectors.joining("; ")));
        }
        final List<Finding> warnings = findings.stream().filter(f -> f.severity() == Severity.WARN).toList();
        warnings.forEach(w -> LOG.warn("{}: configuration: {}", app, w.text()));
        return warnings;
    }
}
