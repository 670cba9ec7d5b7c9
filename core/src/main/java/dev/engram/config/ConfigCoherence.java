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

    private ConfigCoherence() {
    }

    /**
     * @param config a config whose keys are each valid
     * @return every group's findings, refusals first (in group order within a severity); empty when the whole is
     *     coherent (the defaults are)
     */
    public static List<ConfigFinding> check(final EngramConfig config) {
        final List<ConfigFinding> findings = new ArrayList<>();
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
    public static List<ConfigFinding> enforce(final EngramConfig config, final String app) {
        final List<ConfigFinding> findings = check(config);
        final List<ConfigFinding> refusals = findings.stream().filter(f -> f.severity() == ConfigFinding.Severity.REFUSE).toList();
        if (!refusals.isEmpty()) {
            throw new ConfigException("incoherent configuration: "
                + refusals.stream().map(ConfigFinding::text).collect(Collectors.joining("; ")));
        }
        final List<ConfigFinding> warnings = findings.stream().filter(f -> f.severity() == ConfigFinding.Severity.WARN).toList();
        warnings.forEach(w -> LOG.warn("{}: configuration: {}", app, w.text()));
        return warnings;
    }
}
