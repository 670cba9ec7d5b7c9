package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.config.EngramConfig;
import dev.engram.retriever.ApiKeys;
import dev.engram.stack.ProjectPaths;
import dev.engram.streams.PipelineConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * A smoke test of {@code deploy/compose.yaml} without a container runtime (CI has none): the file is parsed the way
 * Compose reads it (YAML anchors and {@code <<} merges resolved by SnakeYAML, {@code ${VAR:-default}} and
 * {@code ${VAR:?error}} interpolated here) and checked for what made the stack start broken before: topics created by
 * {@code bin/engram topics} (compacted profiles, no time retention, Engram's record size) rather than plain
 * {@code kafka-topics.sh}; a retriever whose authentication has a working admin key; Prometheus loading the alert
 * rules and scraping the port each app listens on; every {@code ENGRAM_*} variable naming a real setting with a valid
 * value. And the Kubernetes sample Secret holds no API key that works.
 */
class ComposeFileTest {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z_]+)(?::([-?])([^}]*))?}");
    private static final List<String> APPS = List.of("extractor", "consolidator", "retriever");
    private static final String KEY = "k".repeat(32);
    /** The calling shell's variables, as the compose file's header asks the user to set them. */
    private static final Map<String, String> SHELL = Map.of("ENGRAM_API_KEY", KEY);

    private static Path deploy;
    private static Map<String, Object> services;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void parse() throws IOException {
        deploy = ProjectPaths.repositoryRoot().orElseThrow().resolve("deploy");
        final Map<String, Object> compose = new Yaml().load(Files.readString(deploy.resolve("compose.yaml")));
        services = (Map<String, Object>) compose.get("services");
    }

    @Test
    void shouldCreateTopicsWithEngramsOwnCommandBeforeAnyAppStartsWhenTheStackComesUp() {
        final Map<String, Object> topics = service("topics");
        assertThat(String.join(" ", strings(topics.get("command")))).contains("dev.engram.deploy.EngramCli topics");
        assertThat(topics.toString()).doesNotContain("kafka-topics.sh");
        final String partitions = environment("topics", SHELL).get("ENGRAM_TOPICS_PARTITIONS");
        assertThat(partitions).isNotBlank();
        for (final String app : APPS) {
            // co-partitioning: the apps expect exactly the partition count the topics were created with
            assertThat(environment(app, SHELL).get("ENGRAM_TOPICS_PARTITIONS")).as(app).isEqualTo(partitions);
            assertThat(service(app).get("depends_on").toString()).as(app)
                .contains("topics={condition=service_completed_successfully}");
        }
    }

    @Test
    void shouldGiveTheRetrieverOneWorkingAdminKeyWhenTheUserExportsIt() {
        final Map<String, String> retriever = environment("retriever", SHELL);
        assertThat(retriever.getOrDefault("ENGRAM_RETRIEVER_AUTH_ENABLED", "true")).isEqualTo("true");
        final ApiKeys keys = ApiKeys.from(EngramConfig.load(null, retriever, Map.of()));
        assertThat(keys.size()).isEqualTo(1);
        assertThat(keys.authenticate(KEY)).hasValueSatisfying(p -> {
            assertThat(p.scope()).isEqualTo(ApiKeys.Scope.ADMIN);
            assertThat(p.tenantId()).isEqualTo("demo");
        });
        // without the variable Compose refuses to start instead of running a retriever that answers every call with 401
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> environment("retriever", Map.of()))
            .hasMessageContaining("ENGRAM_API_KEY unset");
    }

    @Test
    void shouldRefuseToStartTheAppsWithoutTheKeyEncryptionKeyUnlessCryptoShreddingIsTurnedOff() {
        for (final String app : APPS) {
            final EngramConfig unset = EngramConfig.load(null, environment(app, SHELL), Map.of());
            assertThat(unset.getBoolean(PipelineConfig.CRYPTO_ENABLED)).as(app).isTrue();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> dev.engram.crypto.Kek.from(unset))
                .isInstanceOf(ConfigException.class).hasMessageContaining("openssl rand -base64 32")
                .hasMessageContaining("crypto.enabled=false");
            final Map<String, String> shell = new HashMap<>(SHELL);
            shell.put("ENGRAM_CRYPTO_KEK", java.util.Base64.getEncoder().encodeToString(new byte[32]));
            assertThat(dev.engram.crypto.Kek.from(EngramConfig.load(null, environment(app, shell), Map.of()))).isNotNull();
            shell.remove("ENGRAM_CRYPTO_KEK");
            shell.put("ENGRAM_CRYPTO_ENABLED", "false");
            assertThat(EngramConfig.load(null, environment(app, shell), Map.of()).getBoolean(PipelineConfig.CRYPTO_ENABLED))
                .isFalse();
        }
    }

    @Test
    void shouldLoadEveryAppsEnvironmentAsValidSettingsWhenTheAppsStart() {
        final Map<String, ?> defined = EngramConfig.defaults().values();
        for (final String app : APPS) {
            final Map<String, String> env = environment(app, SHELL);
            env.keySet().stream().filter(n -> n.startsWith("ENGRAM_")).forEach(name -> {
                final String key = EngramConfig.load(null, Map.of(name, env.get(name)), Map.of()).originals().keySet()
                    .iterator().next();
                assertThat(defined.containsKey(key) || key.startsWith("kafka."))
                    .as("%s: %s names the setting %s", app, name, key).isTrue();
            });
            try {
                EngramConfig.load(null, env, Map.of());
            } catch (ConfigException e) {
                throw new AssertionError(app + ": " + e.getMessage(), e);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldScrapeEachAppsHttpPortAndLoadTheAlertRulesWhenPrometheusStarts() throws IOException {
        final Map<String, Object> prometheusYml = new Yaml().load(Files.readString(deploy.resolve("prometheus.yml")));
        final List<String> ruleFiles = (List<String>) prometheusYml.get("rule_files");
        assertThat(ruleFiles).isNotEmpty();
        final Map<String, String> mounts = new HashMap<>();
        for (final String volume : strings(service("prometheus").get("volumes"))) {
            final String[] parts = volume.split(":");
            mounts.put(parts[1], parts[0]);
        }
        for (final String rules : ruleFiles) {
            assertThat(mounts).as("rule file %s is mounted", rules).containsKey(rules);
            final Path host = deploy.resolve(mounts.get(rules)).normalize();
            assertThat(host).exists();
            assertThat(Files.readString(host)).contains("alert: EngramDeadLetters");
        }
        final Map<String, Object> job = ((List<Map<String, Object>>) prometheusYml.get("scrape_configs")).get(0);
        final List<String> targets = (List<String>) ((List<Map<String, Object>>) job.get("static_configs")).get(0).get("targets");
        final Map<String, String> expected = new LinkedHashMap<>();
        for (final String app : APPS) {
            final EngramConfig config = EngramConfig.load(null, environment(app, SHELL),
                Map.of());
            expected.put(app, app + ":" + config.getInt(app + ".http.port"));
        }
        assertThat(targets).containsExactlyInAnyOrderElementsOf(expected.values());
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldRefuseToStartWhenTheSampleKubernetesSecretIsAppliedUnchanged() throws IOException {
        Map<String, Object> secret = null;
        for (final Object doc : new Yaml().loadAll(Files.readString(deploy.resolve("k8s").resolve("configmap.yaml")))) {
            if (doc instanceof Map<?, ?> map && "Secret".equals(map.get("kind"))) {
                secret = (Map<String, Object>) map;
            }
        }
        assertThat(secret).isNotNull();
        final Map<String, String> data = (Map<String, String>) secret.get("stringData");
        final EngramConfig config = EngramConfig.load(null, data, Map.of());
        // a key copied from a sample would be a working admin key known to everybody who read the sample
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ApiKeys.from(config))
            .isInstanceOf(ConfigException.class).hasMessageContaining("16 characters");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(final String name) {
        final Object service = services.get(name);
        assertThat(service).as("service %s", name).isNotNull();
        return (Map<String, Object>) service;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> rawEnvironment(final String name) {
        return (Map<String, Object>) service(name).getOrDefault("environment", Map.of());
    }

    /** The service's environment as Compose passes it, with {@code shell} as the variables of the calling shell. */
    private static Map<String, String> environment(final String name, final Map<String, String> shell) {
        final Map<String, String> env = new HashMap<>();
        rawEnvironment(name).forEach((k, v) -> env.put(k, interpolate(String.valueOf(v), shell)));
        return env;
    }

    private static String interpolate(final String value, final Map<String, String> shell) {
        final Matcher m = VARIABLE.matcher(value);
        final StringBuilder out = new StringBuilder();
        while (m.find()) {
            final String set = shell.get(m.group(1));
            final String replacement;
            if (set != null && !set.isEmpty()) {
                replacement = set;
            } else if ("?".equals(m.group(2))) {
                throw new AssertionError("Compose would refuse to start: " + m.group(1) + " unset (" + m.group(3) + ")");
            } else {
                replacement = m.group(3) == null ? "" : m.group(3);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(final Object list) {
        return ((List<Object>) list).stream().map(String::valueOf).toList();
    }
}
