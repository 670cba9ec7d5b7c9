package dev.engram.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Engram's configuration: every setting declared once with type, default, importance, doc and validator, by the module
 * that owns it ({@link ConfigGroup}: core's own keys are this class's constants, each other module's are its group's
 * constants, e.g. {@code LlmConfig.LLM_BASE_URL}), composed into one Kafka {@link ConfigDef}, {@link #DEFINITION}:
 * core's group first, then every group registered as a service on the class path, by name. A key read anywhere is
 * known there, since its reader depends on its owner; a key no group declares is kept (it is passed to Kafka if it
 * starts with {@code kafka.}) but reading it is Kafka's "Unknown configuration" error. The configuration reference's
 * table is generated from the groups by {@link #toMarkdownTable()}.
 *
 * <p>Sources, later wins: defaults, a properties file ({@code --config FILE}), environment
 * variables with the prefix {@code ENGRAM_} mapped as Kafka's docker images do ({@code _}→{@code .},
 * {@code __}→{@code _}, {@code ___}→{@code -}, lower-cased), explicit overrides. Keys starting with
 * {@code kafka.} pass through to the Kafka clients and Streams with the prefix removed.
 */
public final class EngramConfig extends AbstractConfig implements ConfigValues {

    private static final ConfigGroups GROUPS = ConfigGroups.discover(new CoreConfig());

    /** The declared settings: every group's, composed. */
    public static final ConfigDef DEFINITION = GROUPS.definition();

    /** @param originals raw settings; unknown keys are kept (kafka.* pass-through) */
    public EngramConfig(final Map<String, ?> originals) {
        super(DEFINITION, originals, false);
    }

    /** @return the defaults alone (crypto-shredding on: anything that seals or opens records needs a KEK) */
    public static EngramConfig defaults() {
        return new EngramConfig(Map.of());
    }

    /**
     * The defaults with {@code crypto.enabled=false}: records as written without crypto-shredding. For what runs
     * without a deployment's configuration and its key-encryption key (tests, benchmarks, tools reading topics a
     * pipeline wrote in the clear); a deployment gets crypto-shredding from {@link #defaults()} unless it turns
     * it off explicitly.
     *
     * @return the plain configuration
     */
    public static EngramConfig plain() {
        // crypto.enabled is the streams group's (PipelineConfig.CRYPTO_ENABLED, which pins this spelling in a test)
        return new EngramConfig(Map.of("crypto.enabled", false));
    }

    /**
     * Loads settings from an optional file, the environment and overrides.
     *
     * @param file a properties file, or null
     * @param environment the environment (usually {@code System.getenv()})
     * @param overrides settings that win over everything, e.g. from command-line flags
     * @return the config
     * @throws UncheckedIOException if the file cannot be read
     * @throws org.apache.kafka.common.config.ConfigException if a value is invalid, or an {@code ENGRAM_} variable or a
     *     key of the file is a misspelt setting ({@link EnvironmentSettings})
     */
    public static EngramConfig load(final Path file, final Map<String, String> environment,
                                    final Map<String, ?> overrides) {
        final Map<String, Object> merged = new HashMap<>();
        // where each value that reaches the configuration came from, for a refusal to name (overrides: the caller's)
        final Map<String, String> sources = new HashMap<>();
        if (file != null) {
            final Properties props = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                props.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read config file " + file, e);
            }
            EnvironmentSettings.checkFile(file.toString(), props.stringPropertyNames(), DEFINITION.names());
            props.forEach((k, v) -> {
                merged.put(k.toString(), v.toString().strip());
                sources.put(k.toString(), "set in " + file);
            });
        }
        final Map<String, String> fromEnvironment = EnvironmentSettings.read(environment, DEFINITION.names());
        merged.putAll(fromEnvironment);
        EnvironmentSettings.variables(environment).forEach((key, variable) -> sources.put(key, "set by the environment "
            + "variable " + variable));
        merged.putAll(overrides);
        overrides.keySet().forEach(sources::remove);
        requireValid(merged, sources);
        return new EngramConfig(merged);
    }

    /**
     * Checks each value whose source is known as the definition would ({@link ConfigDef#parseType} and the key's
     * validator, Kafka's own code), so that a refusal names where the value was set: the key alone does not tell a
     * user which {@code ENGRAM_} variable (or file line) to fix.
     *
     * @param values the merged settings
     * @param sources key → where its value was set ({@code set by the environment variable ENGRAM_…})
     * @throws ConfigException Kafka's message ({@code Invalid value abc for configuration retriever.http.port: …})
     *     followed by the source, e.g. {@code (set by the environment variable ENGRAM_RETRIEVER_HTTP_PORT)}
     */
    private static void requireValid(final Map<String, Object> values, final Map<String, String> sources) {
        new TreeMap<>(sources).forEach((key, source) -> {
            final ConfigDef.ConfigKey declared = DEFINITION.configKeys().get(key);
            if (declared == null) {
                return;
            }
            try {
                final Object parsed = ConfigDef.parseType(key, values.get(key), declared.type);
                if (declared.validator != null) {
                    declared.validator.ensureValid(key, parsed);
                }
            } catch (ConfigException e) {
                throw new ConfigException(e.getMessage() + " (" + source + ")");
            }
        });
    }

    /**
     * Maps an environment variable name (without prefix) to a key as Kafka's docker images do.
     *
     * @param name e.g. {@code RETRIEVER_HTTP_PORT}
     * @return e.g. {@code retriever.http.port}
     */
    static String fromEnvironmentName(final String name) {
        return EnvironmentSettings.key(name);
    }

    /**
     * @return {@code input.max.record.bytes} + 1 MiB: the topics' {@code max.message.bytes} and the
     *     producers' {@code max.request.size}, in bytes
     */
    public int maxMessageBytes() {
        return getInt(CoreConfig.MAX_RECORD_BYTES) + CoreConfig.RECORD_HEADROOM_BYTES;
    }

    /** @return the Kafka settings ({@code kafka.*} with the prefix removed) */
    public Map<String, Object> kafkaProperties() {
        final Map<String, Object> kafka = new TreeMap<>();
        originals().forEach((k, v) -> {
            if (k.startsWith(CoreConfig.KAFKA_PREFIX)) {
                kafka.put(k.substring(CoreConfig.KAFKA_PREFIX.length()), v);
            }
        });
        kafka.put("bootstrap.servers", getString(CoreConfig.BOOTSTRAP_SERVERS));
        return kafka;
    }

    /**
     * A copy with some settings replaced.
     *
     * @param overrides settings to set
     * @return a new config
     */
    public EngramConfig with(final Map<String, ?> overrides) {
        final Map<String, Object> merged = new HashMap<>(originals());
        merged.putAll(overrides);
        return new EngramConfig(merged);
    }

    /**
     * @return the groups composed into {@link #DEFINITION}, core's first, then by name
     */
    public static List<ConfigGroup> groups() {
        return GROUPS.groups();
    }

    /**
     * Checks that the groups an app reads are composed: each app names the groups of the modules it wires (as a
     * Debezium connector names the fields it composes onto the core definition), so a module missing from an app's class
     * path is refused at start with its name instead of an "Unknown configuration" deep inside a topology.
     *
     * @param app the app's name, e.g. {@code extractor}
     * @param groups the names of the groups it reads, e.g. {@code llm}
     * @throws ConfigException naming the app and every group that is not on the class path
     */
    public static void requireGroups(final String app, final Collection<String> groups) {
        final List<String> composed = GROUPS.groups().stream().map(ConfigGroup::name).toList();
        final List<String> missing = groups.stream().filter(g -> !composed.contains(g)).toList();
        if (!missing.isEmpty()) {
            throw new ConfigException(app + " reads the settings of " + String.join(", ", missing) + ", whose module is "
                + "not on the class path (composed: " + String.join(", ", composed) + ")");
        }
    }

    /**
     * @param key a setting's key
     * @return the name of the group that declares it, or empty for a key no group declares
     */
    public static Optional<String> owner(final String key) {
        return Optional.ofNullable(GROUPS.owners().get(key)).map(ConfigGroup::name);
    }

    /**
     * The configuration reference's table: one section per group (its name and declaring class), each key once, in
     * its group's declaration order.
     *
     * @return the tables, as Markdown
     */
    public static String toMarkdownTable() {
        final StringBuilder out = new StringBuilder();
        for (final ConfigGroup group : GROUPS.groups()) {
            out.append(out.length() == 0 ? "" : "\n").append("### ").append(group.name()).append(" (`")
                .append(group.getClass().getSimpleName()).append("`)\n\n")
                .append("| key | type | default | valid | description |\n")
                .append("| --- | --- | --- | --- | --- |\n");
            GROUPS.owners().forEach((name, owner) -> {
                if (owner != group) {
                    return;
                }
                final ConfigDef.ConfigKey key = DEFINITION.configKeys().get(name);
                out.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase(Locale.ROOT))
                    .append(" | ").append(group.shownDefault(name)
                        .orElseGet(() -> "`" + ConfigDef.convertToString(key.defaultValue, key.type) + "`"))
                    .append(" | ").append(key.validator == null ? "" : key.validator.toString())
                    .append(" | ").append(key.documentation).append(" |\n");
            });
        }
        return out.toString();
    }
}
