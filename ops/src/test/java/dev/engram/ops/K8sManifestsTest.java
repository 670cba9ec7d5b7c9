package dev.engram.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.engram.stack.ProjectPaths;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parses every manifest under {@code deploy/k8s/} (multi-document YAML) and checks what a cluster
 * would reject or what would break Engram silently: kinds and API versions, selectors matching the
 * pod labels, probes on the health endpoints, the state volume mounted at {@code state.dir}, -Xmx
 * set, resources, {@code application.server} from the pod DNS name for the retriever, a headless
 * service per StatefulSet, a PodDisruptionBudget per StatefulSet, every pod running as the image's non-root user
 * with {@code fsGroup} so it can write its state volume, a ServiceMonitor scraping every app once and a PrometheusRule
 * holding exactly the rules of {@code deploy/prometheus/alerts.yml}. (No schema-aware validator installs from the
 * reachable registries, so these are hand-written checks.)
 */
class K8sManifestsTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final List<JsonNode> DOCS = new ArrayList<>();

    @BeforeAll
    static void parseAll() throws IOException {
        final Path dir = ProjectPaths.repositoryRoot().orElseThrow().resolve("deploy").resolve("k8s");
        try (Stream<Path> files = Files.list(dir)) {
            for (final Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                    while (it.hasNext()) {
                        final JsonNode doc = it.next();
                        if (doc != null && !doc.isEmpty()) {
                            DOCS.add(doc);
                        }
                    }
                }
            }
        }
    }

    private static List<JsonNode> kind(final String kind) {
        return DOCS.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    @Test
    void shouldGiveEveryDocumentAKnownKindApiVersionNameAndPartOfLabelWhenParsed() {
        final Map<String, String> apiVersions = Map.of("ConfigMap", "v1", "Secret", "v1", "Service", "v1",
            "StatefulSet", "apps/v1", "PodDisruptionBudget", "policy/v1", "Job", "batch/v1",
            "ServiceMonitor", "monitoring.coreos.com/v1", "PrometheusRule", "monitoring.coreos.com/v1");
        assertThat(DOCS).hasSizeGreaterThanOrEqualTo(14);
        for (final JsonNode doc : DOCS) {
            final String kind = doc.path("kind").asText();
            assertThat(apiVersions).as("kind %s", kind).containsKey(kind);
            assertThat(doc.path("apiVersion").asText()).as(kind).isEqualTo(apiVersions.get(kind));
            assertThat(doc.path("metadata").path("name").asText()).as(kind).matches("[a-z0-9-]+");
            assertThat(doc.path("metadata").path("labels").path("app.kubernetes.io/part-of").asText()).isEqualTo("engram");
        }
    }

    @Test
    void shouldRunTheThreeStreamsAppsAsStatefulSetsWithStateVolumeProbesAndHeapWhenDeployed() {
        final List<JsonNode> sets = kind("StatefulSet");
        assertThat(sets).extracting(s -> s.path("metadata").path("name").asText())
            .containsExactlyInAnyOrder("engram-extractor", "engram-consolidator", "engram-retriever");
        for (final JsonNode set : sets) {
            final String name = set.path("metadata").path("name").asText();
            final JsonNode spec = set.path("spec");
            final JsonNode selector = spec.path("selector").path("matchLabels");
            final JsonNode podLabels = spec.path("template").path("metadata").path("labels");
            selector.fields().forEachRemaining(e -> assertThat(podLabels.path(e.getKey()).asText())
                .as("%s selector %s", name, e.getKey()).isEqualTo(e.getValue().asText()));
            final JsonNode headless = service(spec.path("serviceName").asText());
            assertThat(headless.path("spec").path("clusterIP").asText()).as(name).isEqualTo("None");
            assertMatches(headless.path("spec").path("selector"), podLabels, name + " headless service");

            final JsonNode container = spec.path("template").path("spec").path("containers").get(0);
            assertThat(container.path("args").get(0).asText()).isEqualTo(name.substring("engram-".length()));
            assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/ready");
            assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/health/live");
            assertThat(container.path("resources").path("requests").path("memory").asText()).isNotEmpty();
            assertThat(container.path("resources").path("limits").path("memory").asText()).isNotEmpty();
            assertThat(env(container, "JAVA_TOOL_OPTIONS")).contains("-Xmx");
            final Set<String> mounts = new HashSet<>();
            container.path("volumeMounts").forEach(m -> mounts.add(m.path("name").asText() + ":" + m.path("mountPath").asText()));
            assertThat(mounts).contains("state:/var/lib/engram/state", "config:/etc/engram");
            assertThat(spec.path("volumeClaimTemplates").get(0).path("metadata").path("name").asText()).isEqualTo("state");
            assertThat(configProperties()).contains("state.dir=/var/lib/engram/state");

            final JsonNode pdb = kind("PodDisruptionBudget").stream()
                .filter(p -> p.path("metadata").path("name").asText().equals(name)).findFirst().orElseThrow();
            assertMatches(pdb.path("spec").path("selector").path("matchLabels"), podLabels, name + " PDB");
        }
    }

    @Test
    void shouldDeriveApplicationServerFromThePodDnsNameWhenTheRetrieverRoutesQueries() {
        final JsonNode retriever = kind("StatefulSet").stream()
            .filter(s -> s.path("metadata").path("name").asText().equals("engram-retriever")).findFirst().orElseThrow();
        final JsonNode container = retriever.path("spec").path("template").path("spec").path("containers").get(0);
        assertThat(env(container, "ENGRAM_RETRIEVER_HTTP_HOST"))
            .isEqualTo("$(POD_NAME).engram-retriever-headless.$(POD_NAMESPACE).svc.cluster.local");
        final JsonNode api = service("engram-retriever");
        assertMatches(api.path("spec").path("selector"), retriever.path("spec").path("template").path("metadata").path("labels"),
            "retriever API service");
        assertThat(kind("Job")).extracting(j -> j.path("spec").path("template").path("spec").path("containers").get(0)
            .path("args").get(0).asText()).containsExactly("topics");
    }

    @Test
    void shouldRunEveryPodAsTheImageUserWithAWritableStateVolumeWhenDeployed() throws IOException {
        final String dockerfile = Files.readString(root().resolve("deploy").resolve("Dockerfile"));
        assertThat(dockerfile).contains("--uid 10001").contains("--gid 10001").contains("USER 10001:10001");
        final List<JsonNode> pods = new ArrayList<>();
        kind("StatefulSet").forEach(s -> pods.add(s.path("spec").path("template")));
        kind("Job").forEach(j -> pods.add(j.path("spec").path("template")));
        for (final JsonNode pod : pods) {
            final String name = pod.path("metadata").path("labels").path("app.kubernetes.io/name").asText();
            final JsonNode security = pod.path("spec").path("securityContext");
            assertThat(security.path("runAsNonRoot").asBoolean()).as(name).isTrue();
            assertThat(security.path("runAsUser").asInt()).as(name).isEqualTo(10001);
            final JsonNode container = pod.path("spec").path("containers").get(0);
            assertThat(container.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true)).as(name).isFalse();
            if (container.path("securityContext").path("readOnlyRootFilesystem").asBoolean()) {
                final Set<String> mounts = new HashSet<>();
                container.path("volumeMounts").forEach(m -> mounts.add(m.path("mountPath").asText()));
                assertThat(mounts).as("%s: a read-only root needs a writable /tmp (natives, ONNX)", name).contains("/tmp");
            }
        }
        for (final JsonNode set : kind("StatefulSet")) {
            // a fresh PersistentVolume belongs to root: without fsGroup the non-root app cannot write its state
            assertThat(set.path("spec").path("template").path("spec").path("securityContext").path("fsGroup").asInt())
                .as(set.path("metadata").path("name").asText()).isEqualTo(10001);
        }
    }

    @Test
    void shouldScrapeEveryAppOnceAndCarryTheAlertRulesWhenThePrometheusOperatorIsUsed() throws IOException {
        final JsonNode monitor = kind("ServiceMonitor").get(0);
        final JsonNode selector = monitor.path("spec").path("selector").path("matchLabels");
        final List<JsonNode> scraped = kind("Service").stream().filter(s -> {
            final boolean[] all = {true};
            selector.fields().forEachRemaining(e -> all[0] &= e.getValue().asText()
                .equals(s.path("metadata").path("labels").path(e.getKey()).asText()));
            return all[0];
        }).toList();
        // one Service per StatefulSet: the retriever's API Service would scrape its pods a second time
        assertThat(scraped).extracting(s -> s.path("metadata").path("name").asText()).containsExactlyInAnyOrder(
            "engram-extractor-headless", "engram-consolidator-headless", "engram-retriever-headless");
        final String port = monitor.path("spec").path("endpoints").get(0).path("port").asText();
        for (final JsonNode service : scraped) {
            final List<String> ports = new ArrayList<>();
            service.path("spec").path("ports").forEach(p -> ports.add(p.path("name").asText()));
            assertThat(ports).as(service.path("metadata").path("name").asText()).contains(port);
        }
        assertThat(monitor.path("spec").path("endpoints").get(0).path("path").asText()).isEqualTo("/metrics");

        final JsonNode alerts = YAML.readTree(root().resolve("deploy").resolve("prometheus").resolve("alerts.yml").toFile());
        assertThat(kind("PrometheusRule").get(0).path("spec").path("groups")).isEqualTo(alerts.path("groups"));
    }

    private static Path root() {
        return ProjectPaths.repositoryRoot().orElseThrow();
    }

    private static JsonNode service(final String name) {
        return kind("Service").stream().filter(s -> s.path("metadata").path("name").asText().equals(name))
            .findFirst().orElseThrow(() -> new AssertionError("no Service " + name));
    }

    private static void assertMatches(final JsonNode selector, final JsonNode labels, final String what) {
        assertThat(selector.isEmpty()).as(what + " has a selector").isFalse();
        selector.fields().forEachRemaining(e -> assertThat(labels.path(e.getKey()).asText())
            .as("%s selects %s", what, e.getKey()).isEqualTo(e.getValue().asText()));
    }

    private static String env(final JsonNode container, final String name) {
        for (final JsonNode e : container.path("env")) {
            if (name.equals(e.path("name").asText())) {
                return e.path("value").asText();
            }
        }
        throw new AssertionError("no env " + name);
    }

    private static String configProperties() {
        return kind("ConfigMap").get(0).path("data").path("engram.properties").asText();
    }
}
