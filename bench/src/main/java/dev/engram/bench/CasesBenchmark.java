package dev.engram.bench;

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.IOException;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.engram.stack.ProjectPaths;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bench cases}: runs every check of the shared failure cases ({@code ../shared/cases/case-NN.md})
 * that the offline stack can run, and prints passed / failed per case.
 *
 * <p>The checks are the case tests themselves, not a copy: every {@code *CasesTest} class under
 * {@code dev.engram} (today {@code EndToEndCasesTest} — conversations through the real extractor,
 * MiniLM, consolidator and the retriever's read model and scorer on TopologyTestDriver — and
 * {@code ConsolidationCasesTest} — the same cases from hand-made candidates) is run with the JUnit
 * Platform launcher, and each test method ending in {@code _caseNN} counts for case NN. A case passes
 * when every one of its tests passes; a case file without such a test is listed as "no offline check".
 *
 * <p>Where the tests come from: {@code bin/engram}'s build copies the topology test-jar and what it
 * needs beyond {@code lib/} to {@code deploy/target/bench-lib}; they are loaded in their own class
 * loader (so the test-jar's {@code log4j2-test.xml} never configures the other commands). Under Maven
 * the test classpath already has them.
 */
@Command(name = "cases", mixinStandardHelpOptions = true,
    description = "Run the offline checks of ../shared/cases and print passed / failed per case.")
public final class CasesBenchmark implements Callable<Integer> {

    private static final Pattern CASE_METHOD = Pattern.compile("_case(\\d+)$");
    private static final Pattern CASE_FILE = Pattern.compile("case-(\\d+)\\.md");
    static final String CASES_DIR = "../shared/cases";

    @Option(names = "--cases", paramLabel = "DIR", description = "The case files (default: " + CASES_DIR + ").")
    Path casesDir;

    @Mixin
    JsonOption json = new JsonOption();

    private final PrintStream out;

    /** Prints to standard output. */
    public CasesBenchmark() {
        this(System.out);
    }

    /** @param out where the table is printed */
    public CasesBenchmark(final PrintStream out) {
        this.out = out;
    }

    /** One test's outcome. */
    record Outcome(String testClass, String method, boolean passed, String failure) {
    }

    @Override
    public Integer call() throws Exception {
        final Path dir = casesDir != null ? casesDir.toAbsolutePath().normalize()
            : ProjectPaths.existing(CASES_DIR).orElse(Path.of(CASES_DIR).toAbsolutePath().normalize());
        if (!java.nio.file.Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no cases directory at " + dir + " (give --cases DIR)");
        }
        final List<String> caseFiles = caseNumbers(dir);
        out.printf("bench cases — %d case files in %s%n", caseFiles.size(), dir);
        final List<Outcome> outcomes = run();
        final Map<String, Object> figures = figures(caseFiles, outcomes);
        print(figures);
        BenchReport.writeJson(json.file(), figures, out);
        @SuppressWarnings("unchecked")
        final Map<String, Object> totals = (Map<String, Object>) figures.get("totals");
        return ((Number) totals.get("failed")).intValue() == 0 ? 0 : 1;
    }

    /** @return the two-digit case numbers of {@code case-NN.md} files, sorted; empty if the directory is missing */
    static List<String> caseNumbers(final Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> CASE_FILE.matcher(p.getFileName().toString()))
                .filter(Matcher::matches).map(m -> String.format("%02d", Integer.parseInt(m.group(1)))).sorted().toList();
        }
    }

    /** Runs every {@code *CasesTest} and returns the outcome of each {@code _caseNN} test method. */
    static List<Outcome> run() throws IOException {
        final ClassLoader previous = Thread.currentThread().getContextClassLoader();
        final ClassLoader loader = caseTestLoader(previous);
        final List<Outcome> outcomes = new ArrayList<>();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            final LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage("dev.engram"))
                .filters(includeClassNamePatterns(".*CasesTest"))
                .build();
            final Launcher launcher = LauncherFactory.create();
            launcher.execute(request, new TestExecutionListener() {
                @Override
                public void executionFinished(final TestIdentifier id, final TestExecutionResult result) {
                    if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
                        final String failure = result.getThrowable().map(t -> firstLine(t.toString())).orElse(null);
                        outcomes.add(new Outcome(m.getClassName(), m.getMethodName(),
                            result.getStatus() == TestExecutionResult.Status.SUCCESSFUL, failure));
                    }
                }
            });
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        return outcomes;
    }

    private static ClassLoader caseTestLoader(final ClassLoader parent) throws IOException {
        final Path benchLib = ProjectPaths.repositoryRoot().map(r -> r.resolve("deploy/target/bench-lib")).orElse(null);
        if (benchLib == null || !Files.isDirectory(benchLib)) {
            return parent; // under Maven: the test classpath has the case tests
        }
        final List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(benchLib)) {
            for (final Path jar : files.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                try {
                    jars.add(jar.toUri().toURL());
                } catch (MalformedURLException e) {
                    throw new IOException(e);
                }
            }
        }
        return new URLClassLoader("engram-case-tests", jars.toArray(URL[]::new), parent);
    }

    /**
     * @param caseFiles case numbers found on disk
     * @param outcomes test outcomes
     * @return {@code cases: {"01": {status, tests, passed, failed, checks:[…]}}, totals: {passed, failed, noOfflineCheck}}
     */
    static Map<String, Object> figures(final List<String> caseFiles, final List<Outcome> outcomes) {
        final Map<String, List<Outcome>> byCase = new TreeMap<>();
        caseFiles.forEach(c -> byCase.put(c, new ArrayList<>()));
        for (final Outcome o : outcomes) {
            final Matcher m = CASE_METHOD.matcher(o.method());
            if (m.find()) {
                byCase.computeIfAbsent(String.format("%02d", Integer.parseInt(m.group(1))), c -> new ArrayList<>()).add(o);
            }
        }
        final Map<String, Object> cases = new LinkedHashMap<>();
        int passed = 0;
        int failed = 0;
        int unchecked = 0;
        for (final Map.Entry<String, List<Outcome>> e : byCase.entrySet()) {
            final long ok = e.getValue().stream().filter(Outcome::passed).count();
            final long bad = e.getValue().size() - ok;
            final String status = e.getValue().isEmpty() ? "no offline check" : bad == 0 ? "passed" : "failed";
            if (e.getValue().isEmpty()) {
                unchecked++;
            } else if (bad == 0) {
                passed++;
            } else {
                failed++;
            }
            final Map<String, Object> c = new LinkedHashMap<>();
            c.put("status", status);
            c.put("tests", e.getValue().size());
            c.put("passed", ok);
            c.put("failed", bad);
            final List<Map<String, Object>> checks = new ArrayList<>();
            for (final Outcome o : e.getValue()) {
                final Map<String, Object> check = new LinkedHashMap<>();
                check.put("test", o.testClass().substring(o.testClass().lastIndexOf('.') + 1) + "." + o.method());
                check.put("passed", o.passed());
                if (o.failure() != null) {
                    check.put("failure", o.failure());
                }
                checks.add(check);
            }
            c.put("checks", checks);
            cases.put(e.getKey(), c);
        }
        final Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("passed", passed);
        totals.put("failed", failed);
        totals.put("noOfflineCheck", unchecked);
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("cases", cases);
        f.put("totals", totals);
        return f;
    }

    private void print(final Map<String, Object> figures) {
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("case", "result", "tests passed", "tests failed"));
        ((Map<?, ?>) figures.get("cases")).forEach((name, value) -> {
            final Map<?, ?> c = (Map<?, ?>) value;
            rows.add(List.of("case-" + name, String.valueOf(c.get("status")), String.valueOf(c.get("passed")),
                String.valueOf(c.get("failed"))));
        });
        out.println();
        BenchReport.table(out, rows);
        ((Map<?, ?>) figures.get("cases")).forEach((name, value) -> {
            for (final Object check : (List<?>) ((Map<?, ?>) value).get("checks")) {
                final Map<?, ?> ch = (Map<?, ?>) check;
                if (!Boolean.TRUE.equals(ch.get("passed"))) {
                    out.printf("case-%s FAILED %s: %s%n", name, ch.get("test"), ch.get("failure"));
                }
            }
        });
        out.println("Totals: " + figures.get("totals"));
    }

    private static String firstLine(final String text) {
        final int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
