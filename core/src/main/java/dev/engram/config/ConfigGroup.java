package dev.engram.config;

import java.util.List;
import java.util.Optional;

/**
 * The settings one module owns: their keys (the implementing class's constants), their declaration and the checks
 * of their combination. Core declares its own group; every other module registers its group as a service
 * ({@code META-INF/services/dev.engram.config.ConfigGroup}) and {@link EngramConfig} composes them onto the core
 * definition, the way a Debezium connector composes its fields onto the core {@code ConfigDef}.
 *
 * <p>Ownership follows the module graph: a module that reads a key depends on the key's owner (it names the owner's
 * constant), so wherever a key is read its group is on the class path and the key is known. A key is declared by one
 * group only; two groups declaring one key stop {@link EngramConfig}'s class initialisation with both owners named.
 * An implementation needs a public no-argument constructor (the service loader calls it).
 */
public interface ConfigGroup {

    /** @return the owning module, e.g. {@code llm}: the table's section and the name errors give */
    String name();

    /**
     * Declares this group's settings, in the order the table lists them.
     *
     * @param fields where to declare them
     */
    void define(ConfigFields fields);

    /**
     * This group's coherence checks: settings each valid alone that cannot work together ({@link ConfigCoherence}).
     *
     * @param config the whole configuration, each key valid
     * @return the findings, each naming every key involved; empty when coherent (the defaults are)
     */
    default List<ConfigFinding> check(final ConfigValues config) {
        return List.of();
    }

    /**
     * The default the table shows for a key whose default depends on the machine (a directory, a core count).
     *
     * @param key one of this group's keys
     * @return the text to show instead of the computed default, or empty to show the default itself
     */
    default Optional<String> shownDefault(final String key) {
        return Optional.empty();
    }
}
