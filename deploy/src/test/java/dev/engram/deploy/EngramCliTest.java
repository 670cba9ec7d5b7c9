package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngramCliTest {

    /**
     * Below this, a command on an unreachable cluster kept its {@code --connect-timeout}: without the bound it waits for
     * the Kafka clients' 60 s {@code default.api.timeout.ms} (35-68 s before the fix). Not tighter: at load 60 a CI run
     * took 19.9 s for a 2 s timeout (class loading and the admin client's threads, not the wait).
     */
    private static final double UNBOUNDED_SECONDS = 45;

    /** What {@link EngramCli#run} printed on stderr, and its exit code. */
    private record Run(int exit, String err) {
    }

    private static Run run(final String... args) {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final PrintStream previous = System.err;
        final int exit;
        try (PrintStream err = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            System.setErr(err);
            exit = EngramCli.run(args);
        } finally {
            System.setErr(previous);
        }
        return new Run(exit, buffer.toString(StandardCharsets.UTF_8));
    }

    /**
     * A Kafka operation the cluster's ACLs refuse is one line saying what was denied: the operation and its topic when
     * the tool named them ({@link dev.engram.kafka.KafkaOperationFailed}), else Kafka's own words with the topic or
     * group; never "cannot read" for a write (a denied delete of a model's topic said "Cannot read from the cluster").
     */
    @Test
    void shouldSayWhatTheClusterDeniedWhenAKafkaOperationIsNotAuthorized() {
        final Throwable write = new java.util.concurrent.ExecutionException(new dev.engram.kafka.KafkaOperationFailed("write",
            "topic memory-commands", new java.util.concurrent.ExecutionException(
                new org.apache.kafka.common.errors.TopicAuthorizationException(java.util.Set.of("memory-commands")))));
        final Throwable unnamed = new IllegalStateException("Cannot read offsets from the cluster: denied",
            org.apache.kafka.common.errors.GroupAuthorizationException.forGroupId("engram-extractor"));

        assertThat(EngramCli.describe(write)).isEqualTo("not authorized to write topic memory-commands (the cluster's "
            + "ACLs: Not authorized to access topics: [memory-commands])");
        assertThat(EngramCli.describe(unnamed))
            .isEqualTo("not authorized by the cluster's ACLs: Not authorized to access group: engram-extractor");
    }

    @Test
    void shouldPrintTheUsageAndExitWithUsageCodeWhenNoCommandIsGiven() {
        final Run none = run();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("engram: a command is required", "Usage: engram", "demo", "verify-erasure");

        final Run bench = run("bench");
        assertThat(bench.exit()).isEqualTo(2);
        assertThat(bench.err()).contains("engram bench: a command is required", "Usage: engram bench", "quality");
    }

    @Test
    void shouldNameTheUnknownCommandAndListTheCommandsWhenTheCommandIsUnknown() {
        final Run unknown = run("no-such", "--help");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("engram: unknown command 'no-such'", "Usage: engram [-hV] [COMMAND]",
            "ingest ", "Publish conversations");
    }

    @Test
    void shouldFailWithUsageExitCodeWhenTheCommandIsUnknownWhateverFollows() {
        assertThat(EngramCli.run("forget-everything", "--help")).isEqualTo(2);
        assertThat(EngramCli.run("forget-everything")).isEqualTo(2);
        assertThat(EngramCli.run("no-such-command", "--version")).isEqualTo(2);
        assertThat(EngramCli.run("bench", "no-such-benchmark", "--help")).isEqualTo(2);
    }

    @Test
    void shouldStillAnswerHelpForKnownCommandsWhenAsked() {
        assertThat(EngramCli.run("--help")).isZero();
        assertThat(EngramCli.run("ingest", "--help")).isZero();
        assertThat(EngramCli.run("chaos", "--help")).isZero();
        assertThat(EngramCli.run("verify-erasure", "--help")).isZero();
    }

    /**
     * A file named on the command line that does not exist is an unreadable file (exit 1, one line naming
     * it), checked before a broker starts or a cluster is asked: {@code verify --before} used to wait a
     * minute for the cluster and then report a metadata timeout; {@code demo --input} exited 2.
     */
    @Test
    void shouldNameAMissingFileAndExitOneBeforeAskingAnyClusterWhenAFileArgumentDoesNotExist(@TempDir final Path tmp) {
        final Path missing = tmp.resolve("no-such-file.json");
        final long start = System.nanoTime();

        final Run demo = run("demo", "--once", "--input", missing.toString(), "--run-dir", tmp.resolve("run").toString());
        final Run verify = run("verify", "--bootstrap-servers", "127.0.0.1:1", "--before", missing.toString());
        final Run ingest = run("ingest", "--bootstrap-servers", "127.0.0.1:1", missing.toString());

        assertThat(demo.exit()).isEqualTo(1);
        assertThat(demo.err()).contains("the input file " + missing + " does not exist");
        assertThat(tmp.resolve("run")).doesNotExist();
        assertThat(verify.exit()).isEqualTo(1);
        assertThat(verify.err()).contains("the --before snapshot " + missing + " does not exist");
        assertThat(ingest.exit()).isEqualTo(1);
        assertThat(ingest.err()).contains("the input file " + missing + " does not exist");
        assertThat((System.nanoTime() - start) / 1e9).as("seconds: no cluster was asked").isLessThan(8);
    }

    /**
     * A nested command's failure names the whole command and what went wrong (a fresh user's trial: "engram export:
     * no such file: /proc/nope" for {@code schemas export /proc/nope}).
     */
    @Test
    void shouldNameTheWholeCommandAndWhyWhenSchemasExportCannotCreateTheDirectory(@TempDir final Path tmp)
        throws Exception {
        final Path file = java.nio.file.Files.writeString(tmp.resolve("a-file"), "x");

        final Run underFile = run("schemas", "export", file.resolve("out").toString());
        final Run proc = run("schemas", "export", "/proc/nope");

        assertThat(underFile.exit()).isEqualTo(1);
        assertThat(underFile.err()).startsWith("engram schemas export: cannot create the directory " + file.resolve("out")
            + ": " + file + " is a file, not a directory");
        assertThat(proc.exit()).isEqualTo(1);
        assertThat(proc.err()).startsWith("engram schemas export: cannot create the directory /proc/nope: /proc does not "
            + "let a directory be created in it");
    }

    @Test
    void shouldNameATakenPortAndExitOneBeforeTheRunDirectoryIsTouchedWhenDemoPortIsInUse(@TempDir final Path tmp)
            throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            final long start = System.nanoTime();

            final Run demo = run("demo", "--once", "--port", String.valueOf(taken.getLocalPort()),
                "--run-dir", tmp.resolve("run").toString());

            assertThat(demo.exit()).isEqualTo(1);
            assertThat(demo.err()).contains("port " + taken.getLocalPort() + " is in use", "--port 0");
            assertThat(tmp.resolve("run")).as("nothing started, no run directory").doesNotExist();
            assertThat((System.nanoTime() - start) / 1e9).as("seconds: no broker was started").isLessThan(30);
        }
    }

    /**
     * An option value a command cannot use is one line naming the option and what it accepts, exit 2, before
     * anything starts: {@code --port 99999} exited 2 without naming the range's form, {@code --vector-index foo}
     * exited 1 with a configuration error, picocli's own errors printed the whole usage.
     */
    @Test
    void shouldNameTheOptionAndWhatItAcceptsAndExitTwoWhenAnOptionValueIsInvalid(@TempDir final Path tmp) {
        final String runDir = tmp.resolve("run").toString();

        final Run port = run("demo", "--once", "--port", "99999", "--run-dir", runDir);
        final Run notANumber = run("demo", "--once", "--port", "eighty", "--run-dir", runDir);
        final Run index = run("demo", "--once", "--vector-index", "foo", "--run-dir", runDir);
        final Run qdrantPort = run("demo", "--once", "--qdrant-port", "0", "--run-dir", runDir);
        final Run app = run("chaos", "--app", "broker", "--work-dir", tmp.resolve("chaos").toString());
        final Run kills = run("chaos", "--kills", "-1", "--work-dir", tmp.resolve("chaos").toString());
        final Run brokers = run("chaos", "--instances", "2", "--work-dir", tmp.resolve("chaos").toString());
        // rebuild's values printed Java class names (DateTimeParseException) or a line without the command's form
        final Run since = run("rebuild", "--from-timestamp", "yesterday", "--work-dir", tmp.resolve("rebuild").toString());
        final Run rebuildApp = run("rebuild", "--app", "broker", "--work-dir", tmp.resolve("rebuild").toString());
        // a timeout that is not allowed failed at run time with exit 1 (README trial); the file need not exist: checked first
        final Run timeout = run("ingest", "--bootstrap-servers", "127.0.0.1:1", "--connect-timeout", "-1",
            tmp.resolve("in.jsonl").toString());
        final Run topicsTimeout = run("topics", "--bootstrap-servers", "127.0.0.1:1", "--connect-timeout", "0");

        for (final Run r : java.util.List.of(port, notANumber, index, qdrantPort, app, kills, brokers, since, rebuildApp,
            timeout, topicsTimeout)) {
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
        }
        assertThat(port.err()).contains("engram demo: ", "'--port'", "'99999'", "0..65535", "engram demo --help");
        assertThat(notANumber.err()).contains("'--port'", "eighty");
        assertThat(index.err()).contains("'--vector-index'", "'foo'", "embedded, qdrant");
        assertThat(qdrantPort.err()).contains("'--qdrant-port'", "1..65535");
        assertThat(app.err()).contains("engram chaos: ", "'--app'", "'broker'", "consolidator, extractor, retriever, all");
        assertThat(kills.err()).contains("'--kills'", "0 or more");
        assertThat(brokers.err()).contains("'--brokers'", "'1'", "3 to 5 with --instances 2");
        assertThat(since.err()).contains("engram rebuild: ", "'--from-timestamp'", "'yesterday'", "2026-01-01T00:00:00Z")
            .doesNotContain("java.");
        assertThat(rebuildApp.err()).contains("engram rebuild: ", "'--app'", "'broker'", "consolidator, retriever, extractor");
        assertThat(timeout.err()).contains("engram ingest: ", "'--connect-timeout'", "'-1'", "at least 1");
        assertThat(topicsTimeout.err()).contains("'--connect-timeout'", "'0'", "at least 1");
        assertThat(tmp.resolve("run")).doesNotExist();
        assertThat(tmp.resolve("chaos")).doesNotExist();
        assertThat(tmp.resolve("rebuild")).doesNotExist();
    }

    /**
     * README trial: {@code ingest --bogus-flag x} said "Missing required option: '--bootstrap-servers…'", and
     * {@code ingest --bootstrap-servers H --bogus x f} "Unknown options: '--bogus', 'f'" (the file taken for an option).
     */
    @Test
    void shouldNameTheUnknownOptionAloneBeforeAMissingOneWhenAnOptionIsUnknown(@TempDir final Path tmp) {
        final String file = tmp.resolve("in.jsonl").toString();

        final Run missingToo = run("ingest", "--bogus-flag", "x");
        final Run withValue = run("ingest", "--bootstrap-servers", "127.0.0.1:1", "--bogus", "x", file);
        final Run two = run("ingest", "--bootstrap-servers", "127.0.0.1:1", "--bogus", "--other=1", file);
        final Run typo = run("ingest", "--bootstrap-server", "127.0.0.1:1", file);
        final Run demo = run("demo", "--once", "--bogus", "--run-dir", tmp.resolve("run").toString());

        for (final Run r : java.util.List.of(missingToo, withValue, two, typo, demo)) {
            assertThat(r.exit()).as(r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("Missing required", file, "'x'");
        }
        assertThat(missingToo.err()).startsWith("engram ingest: unknown option '--bogus-flag'")
            .endsWith("(see engram ingest --help)" + System.lineSeparator());
        assertThat(withValue.err()).startsWith("engram ingest: unknown option '--bogus'")
            .as("no suggestion of an option already given").doesNotContain("did you mean");
        assertThat(two.err()).startsWith("engram ingest: unknown options '--bogus', '--other=1'");
        assertThat(typo.err()).startsWith("engram ingest: unknown option '--bootstrap-server'; did you mean "
            + "--bootstrap-servers?");
        assertThat(demo.err()).startsWith("engram demo: unknown option '--bogus'");
        assertThat(tmp.resolve("run")).doesNotExist();
    }

    /** README trial: no command's {@code --help} said what its exit codes mean. */
    @Test
    void shouldListTheExitCodesInTheHelpOfEveryCommand() {
        final java.util.Map<String, String> helps = new java.util.TreeMap<>();
        final java.util.ArrayDeque<picocli.CommandLine> commands = new java.util.ArrayDeque<>(
            java.util.List.of(EngramCli.commandLine()));
        while (!commands.isEmpty()) {
            final picocli.CommandLine command = commands.pop();
            helps.put(command.getCommandSpec().qualifiedName(), command.getUsageMessage(picocli.CommandLine.Help.Ansi.OFF));
            commands.addAll(command.getSubcommands().values());
        }
        final java.io.StringWriter printed = new java.io.StringWriter();
        final picocli.CommandLine cli = EngramCli.commandLine();
        cli.setOut(new java.io.PrintWriter(printed, true));

        final int exit = cli.execute("ingest", "--help");

        assertThat(exit).isZero();
        assertThat(helps).containsKeys("engram ingest", "engram demo", "engram verify-erasure", "engram bench",
            "engram schemas export");
        helps.forEach((name, help) -> assertThat(help).as(name).contains("Exit codes:")
            .containsPattern("(?m)^ +0 +\\S").containsPattern("(?m)^ +2 +usage error")
            .containsPattern("(?m)^ +130 +interrupted").containsPattern("(?m)^ +143 +terminated"));
        assertThat(printed.toString()).contains("Exit codes:")
            .containsPattern("(?m)^ +1 +failed: .*missing or unreadable file")
            .containsPattern("(?m)^ +2 +usage error .*a line of the input refused");
        assertThat(helps.get("engram verify-erasure")).containsPattern("(?m)^ +3 +something readable of the user");
        assertThat(helps.get("engram demo")).contains("with --once: a record of the input", "stopped with Ctrl-C");
    }

    /** {@code topics} on an unreachable cluster: one line naming the bootstrap servers within its bound, exit 1 (was 62 s of silence). */
    @Test
    void shouldNameTheBootstrapServersAndExitOneWhenTopicsCannotReachTheCluster() {
        final long start = System.nanoTime();

        final Run topics = run("topics", "--bootstrap-servers", "127.0.0.1:1", "--connect-timeout", "2");

        assertThat(topics.exit()).as(topics.err()).isEqualTo(1);
        assertThat(topics.err()).contains("Creating Engram's topics on 127.0.0.1:1",
            "cannot reach the Kafka cluster at 127.0.0.1:1 within 2 s (--connect-timeout); no topic was created");
        assertThat((System.nanoTime() - start) / 1e9).as("seconds").isLessThan(UNBOUNDED_SECONDS);
    }

    /**
     * Every ops command fails within {@code --connect-timeout} on a cluster that does not answer, naming it: verify took
     * 40 s, verify-erasure 68 s, rebuild 66 s (without naming the servers), reembed --list 35 s.
     */
    @Test
    void shouldNameTheBootstrapServersWithinTheTimeoutWhenAnOpsCommandCannotReachTheCluster(@TempDir final Path tmp) {
        for (final String[] command : java.util.List.of(new String[] {"verify"},
            new String[] {"verify-erasure", "--tenant", "acme", "--user", "mira"}, new String[] {"reembed", "--list"},
            new String[] {"rebuild", "--work-dir", tmp.resolve("rebuild").toString()})) {
            final long start = System.nanoTime();
            final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command));
            args.addAll(java.util.List.of("--bootstrap-servers", "127.0.0.1:1", "--connect-timeout", "2"));

            final Run r = run(args.toArray(String[]::new));

            assertThat(r.exit()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).as(command[0]).contains("engram " + command[0] + ": ",
                "cannot reach the Kafka cluster at 127.0.0.1:1 within 2 s (--connect-timeout)");
            assertThat((System.nanoTime() - start) / 1e9).as(command[0] + " seconds").isLessThan(UNBOUNDED_SECONDS);
        }
    }
}
