package dev.engram.config;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.core.EditDistance;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings given as environment variables ({@link EngramConfig#load}): {@code ENGRAM_} followed by a key mapped as
 * Kafka's docker images map theirs ({@code _}→{@code .}, {@code __}→{@code _}, {@code ___}→{@code -}, lower-cased),
 * and what becomes of a variable that names no setting. Such a variable was ignored silently, so a misspelt
 * {@code ENGRAM_RETRIEVER_HTTP_PROT=9000} left the retriever on its default port without a word. Now:
 * <ul>
 *   <li>a variable whose key is within {@value #TYPO_DISTANCE} edits (insertions, deletions, substitutions, swaps of
 *       two neighbours: the optimal string alignment distance) of a declared key is a misspelling: loading fails with
 *       a {@link ConfigException} naming the variable and the setting it most likely means, with that setting's own
 *       variable;</li>
 *   <li>any other variable that names no setting is logged once per JVM at WARN, with the closest setting when it
 *       is within a third of the name's length (ENGRAM_FOO has none worth naming). It is not
 *       refused: the {@code ENGRAM_} prefix is shared with variables Engram does not own — Kubernetes injects
 *       {@code ENGRAM_RETRIEVER_PORT}, {@code ENGRAM_RETRIEVER_SERVICE_HOST}, … into every pod of a namespace with a
 *       Service named {@code engram-retriever} ({@code deploy/k8s/retriever.yaml}), and a shell may hold the compose
 *       file's {@code ENGRAM_API_KEY};</li>
 *   <li>{@code kafka.*} keys pass through to the Kafka clients ({@link EngramConfig#kafkaProperties}); only a
 *       misspelling of a declared one ({@code ENGRAM_KAFKA_BOOTSTRAP_SERVER}) is refused;</li>
 *   <li>the variables Engram reads that are not settings ({@link #NOT_SETTINGS}) pass silently.</li>
 * </ul>
 */
public final class EnvironmentSettings {

    /** The prefix of every setting's variable. */
    public static final String PREFIX = "ENGRAM_";
    /** A key this close to a declared key (optimal string alignment distance) is a misspelling of it. */
    static final int TYPO_DISTANCE = 2;
    /**
     * {@code ENGRAM_} variables that are not settings: the log level (log4j2.xml), the stack trace of a failed command
     * ({@code EngramCli}), the compose file's shell variables (admin key and tenant), the client's example key and the
     * CI's report stamp.
     */
    public static final Set<String> NOT_SETTINGS = Set.of("ENGRAM_LOG_LEVEL", "ENGRAM_DEBUG", "ENGRAM_API_KEY",
        "ENGRAM_TENANT", "ENGRAM_KEY", "ENGRAM_REPORT_SINCE");

    private static final Logger LOG = LoggerFactory.getLogger(EnvironmentSettings.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private EnvironmentSettings() {
    }

    /**
     * The settings the environment gives, each variable checked as the class comment says.
     *
     * @param environment variable name → value (usually {@code System.getenv()})
     * @param declared the declared keys ({@link EngramConfig#DEFINITION}'s)
     * @return key → value of every {@code ENGRAM_} variable but {@link #NOT_SETTINGS}, in name order
     * @throws ConfigException naming every misspelt variable and the setting it most likely means
     */
    static Map<String, String> read(final Map<String, String> environment, final Set<String> declared) {
        final Map<String, String> settings = new LinkedHashMap<>();
        final List<String> misspelt = new java.util.ArrayList<>();
        new TreeMap<>(environment).forEach((name, value) -> {
            if (!name.startsWith(PREFIX) || NOT_SETTINGS.contains(name)) {
                return;
            }
            final String key = key(name);
            settings.put(key, value);
            if (declared.contains(key)) {
                return;
            }
            final Optional<String> closest = closest(key, declared);
            final Optional<String> meant = misspelling(key, declared);
            if (meant.isPresent()) {
                misspelt.add(name + " (" + key + ") is no setting; did you mean " + variable(meant.get()) + " ("
                    + meant.get() + ")?");
            } else if (!key.startsWith(CoreConfig.KAFKA_PREFIX) && WARNED.add(name)) {
                LOG.warn("Environment variable {} ({}) names no Engram setting and is ignored{}", name, key,
                    hint(key, closest));
            }
        });
        if (!misspelt.isEmpty()) {
            throw new ConfigException(String.join("; ", misspelt) + " (the settings and their variables: "
                + "docs/configuration.md)");
        }
        return settings;
    }

    /**
     * The keys of a {@code --config} file checked as the variables are ({@link #read}): a key within
     * {@value #TYPO_DISTANCE} edits of a declared key it is not is a misspelling and refused, naming the file, the key
     * and the setting it most likely means; any other undeclared key is logged once at WARN (a {@code kafka.*} key
     * passes to the Kafka clients silently). README trial: {@code retriever.http.prot=9000} in a file was accepted
     * silently while {@code ENGRAM_RETRIEVER_HTTP_PROT=9000} stopped the start.
     *
     * @param file the file, as the user named it
     * @param keys the file's keys
     * @param declared the declared keys ({@link EngramConfig#DEFINITION}'s)
     * @throws ConfigException naming every misspelt key of the file and the setting it most likely means
     */
    static void checkFile(final String file, final Set<String> keys, final Set<String> declared) {
        final List<String> misspelt = new java.util.ArrayList<>();
        new java.util.TreeSet<>(keys).forEach(key -> {
            if (declared.contains(key)) {
                return;
            }
            final Optional<String> meant = misspelling(key, declared);
            if (meant.isPresent()) {
                misspelt.add(key + " is no setting; did you mean " + meant.get() + "?");
            } else if (!key.startsWith(CoreConfig.KAFKA_PREFIX) && WARNED.add(file + ":" + key)) {
                LOG.warn("{} in the config file {} names no Engram setting and is ignored{}", key, file,
                    nearby(key, closest(key, declared)).map(c -> "; the closest setting is " + c)
                        .orElse("; the settings are listed in docs/configuration.md"));
            }
        });
        if (!misspelt.isEmpty()) {
            throw new ConfigException("In the config file " + file + ": " + String.join("; ", misspelt)
                + " (the settings: docs/configuration.md)");
        }
    }

    /**
     * @param key a key that is not declared
     * @param declared the declared keys
     * @return the declared key it misspells (within {@value #TYPO_DISTANCE} edits), if any
     */
    private static Optional<String> misspelling(final String key, final Set<String> declared) {
        return closest(key, declared).filter(c -> distance(key, c) <= TYPO_DISTANCE);
    }

    /**
     * What the warning of an ignored variable suggests: the closest setting when it is within a third of the key's length
     * (at least {@code TYPO_DISTANCE + 1} edits), else where the settings are listed — {@code ENGRAM_FOO} is no
     * near miss of {@code llm.model}, and naming it sent the README trial's user looking for a link between them.
     *
     * @param key the variable's key
     * @param closest the declared key nearest to it, if any
     * @return the warning's tail, starting with "; "
     */
    static String hint(final String key, final Optional<String> closest) {
        return nearby(key, closest).map(c -> "; the closest setting is " + variable(c) + " (" + c + ")")
            .orElse("; the settings are listed in docs/configuration.md");
    }

    /** @return the closest setting when it is worth naming: within a third of the key's length, at least 3 edits */
    private static Optional<String> nearby(final String key, final Optional<String> closest) {
        return closest.filter(c -> distance(key, c) <= Math.max(TYPO_DISTANCE + 1, key.length() / 3));
    }

    /**
     * @param environment the environment
     * @return key → the {@code ENGRAM_} variable that sets it (the last by name where two map to one key, as
     *     {@link #read} takes them), for a refusal to name what the user set
     */
    static Map<String, String> variables(final Map<String, String> environment) {
        final Map<String, String> variables = new LinkedHashMap<>();
        new TreeMap<>(environment).keySet().stream()
            .filter(name -> name.startsWith(PREFIX) && !NOT_SETTINGS.contains(name))
            .forEach(name -> variables.put(key(name), name));
        return variables;
    }

    /**
     * Maps an environment variable name to a key as Kafka's docker images do.
     *
     * @param name e.g. {@code ENGRAM_RETRIEVER_HTTP_PORT} (with or without the prefix)
     * @return e.g. {@code retriever.http.port}
     */
    static String key(final String name) {
        final String bare = name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
        return bare.replace("___", "\u0001").replace("__", "\u0002").replace('_', '.')
            .replace('\u0001', '-').replace('\u0002', '_').toLowerCase(Locale.ROOT);
    }

    /**
     * @param key a setting's key, e.g. {@code kafka.sasl_jaas-config}
     * @return its variable, e.g. {@code ENGRAM_KAFKA_SASL__JAAS___CONFIG} (the inverse of {@link #key})
     */
    public static String variable(final String key) {
        return PREFIX + key.replace("_", "__").replace("-", "___").replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private static Optional<String> closest(final String key, final Set<String> declared) {
        return declared.stream().min(Comparator.<String>comparingInt(d -> distance(key, d)).thenComparing(d -> d));
    }

    /** @return {@link EditDistance#of}: the edits between a misspelt setting and a declared one */
    static int distance(final String a, final String b) {
        return EditDistance.of(a, b);
    }
}
