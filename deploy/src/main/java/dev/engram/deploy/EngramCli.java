package dev.engram.deploy;

import dev.engram.bench.BenchCommand;
import dev.engram.core.ExitDrains;
import dev.engram.serde.AvroSerdes;
import dev.engram.kafka.KafkaOperationFailed;
import dev.engram.retriever.RetrieverApp;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code bin/engram} command line (picocli): {@code demo}, {@code ingest}, and one command per
 * app ({@code extractor}, {@code consolidator}, {@code retriever}), {@code bench} (benchmarks), and the
 * operations commands {@code rebuild}, {@code reembed}, {@code verify}, {@code topics} (package
 * {@code dev.engram.ops}). Paths given by the user are
 * resolved against the caller's working directory; {@code bin/engram} does not change it.
 */
@Command(name = "engram", mixinStandardHelpOptions = true, version = "Engram 0.1.0-SNAPSHOT",
    description = "Kafka-native long-term memory for chatbots.",
    subcommands = {DemoCommand.class, IngestCommand.class, AppCommands.Extractor.class,
        AppCommands.Consolidator.class, RetrieverApp.class, BenchCommand.class, dev.engram.ops.RebuildCommand.class,
        dev.engram.ops.ReembedCommand.class, dev.engram.ops.VerifyCommand.class, dev.engram.ops.VerifyErasureCommand.class,
        dev.engram.ops.TopicsCommand.class, dev.engram.ops.ChaosCommand.class,
        dev.engram.ops.SchemasCommand.class})
public final class EngramCli implements Runnable {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: the usage on stderr (reached only through {@link #commandLine()} directly). */
    @Override
    public void run() {
        spec.commandLine().usage(System.err);
    }

    /**
     * @param args the command line
     */
    public static void main(final String[] args) {
        quietLogs(); // first: Avro's classes start the logging, which must find the command line's configuration
        AvroSerdes.trustGeneratedRecords(); // before any record is built: a default of a record type is resolved by class
        ExitDrains.exit(run(args));
    }

    /** The log configuration of the command line, shipped in the runtime module. */
    static final String LOG_CONFIG = "log4j2.xml";

    /**
     * Selects {@value #LOG_CONFIG} (quiet unless {@code ENGRAM_LOG_LEVEL} is set) before the first logger
     * exists, unless the caller chose a configuration ({@code -Dlog4j2.configurationFile}). Without this, the
     * {@code log4j2-test.xml} inside a test-jar on the class path (the LLM replay server's, which {@code bench}
     * needs) won, and every command printed Kafka's warnings and Engram's INFO lines.
     */
    static void quietLogs() {
        if (System.getProperty("log4j2.configurationFile") == null && System.getProperty("log4j.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", LOG_CONFIG);
        }
    }

    /** Exit code of an unknown command (picocli's code for usage errors). */
    public static final int EXIT_USAGE = 2;

    /**
     * Runs the command line. A command line that names no command ({@code engram}, {@code engram bench})
     * or an unknown one fails with {@value #EXIT_USAGE}, printing what is wrong and the usage (with the
     * command list) on stderr, whatever follows: picocli skips validation when a help option is present, so
     * {@code engram no-such-command --help} would otherwise print the top-level usage and exit 0. A help or
     * version option where a command is missing ({@code engram --help}) still answers with exit 0.
     *
     * @param args the command line
     * @return the exit code
     */
    public static int run(final String... args) {
        final CommandLine cli = commandLine();
        CommandLine current = cli;
        for (final String arg : args) {
            if (arg.startsWith("-") || current.getSubcommands().isEmpty()
                || !current.getCommandSpec().positionalParameters().isEmpty()) {
                break;
            }
            final CommandLine next = current.getSubcommands().get(arg);
            if (next == null) {
                return usageError(current, "unknown command '" + arg + "'");
            }
            current = next;
        }
        if (!current.getSubcommands().isEmpty() && java.util.Arrays.stream(args).noneMatch(HELP_OR_VERSION::contains)) {
            return usageError(current, "a command is required");
        }
        return cli.execute(args);
    }

    private static final java.util.Set<String> HELP_OR_VERSION = java.util.Set.of("-h", "--help", "-V", "--version");

    /** Prints {@code engram[ sub]: problem} and the command's usage on stderr; returns {@value #EXIT_USAGE}. */
    private static int usageError(final CommandLine command, final String problem) {
        final String name = command.getCommandSpec().qualifiedName();
        command.getErr().println(name + ": " + problem + "; commands: " + String.join(", ", command.getSubcommands().keySet()));
        command.getErr().println();
        command.usage(command.getErr());
        return EXIT_USAGE;
    }

    /**
     * The command line with Engram's error handling: a failure is one line on stderr naming its cause
     * (a bad setting, an unreadable file, an unreachable cluster) and exit code 1; the stack trace only
     * with {@code ENGRAM_DEBUG=1}. A bad command line (an unknown option, a missing or malformed value, a value
     * out of range or not among the allowed ones: picocli's {@link CommandLine.ParameterException}, which the
     * commands also throw for their own checks, {@link dev.engram.ops.OptionValues#invalid}) is one line naming the option, what it
     * accepts and where the help is, and exit code {@value #EXIT_USAGE}.
     *
     * @return the configured picocli command line
     */
    public static CommandLine commandLine() {
        final CommandLine cli = new CommandLine(new EngramCli());
        documentExitCodes(cli);
        return cli.setParameterExceptionHandler((e, args) -> {
            final CommandLine cmd = e.getCommandLine();
            final String name = cmd.getCommandSpec().qualifiedName();
            cmd.getErr().println(name + ": " + usageProblem(e, args) + " (see " + name + " --help)");
            return EXIT_USAGE;
        }).setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (System.getenv("ENGRAM_DEBUG") != null) {
                e.printStackTrace(cmd.getErr());
            }
            // the whole command (engram schemas export), as a usage error names it; "engram export" named no command
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + describe(e)
                + (System.getenv("ENGRAM_DEBUG") == null ? " (set ENGRAM_DEBUG=1 for the stack trace)" : ""));
            return 1;
        });
    }

    /** The heading of the exit codes in every command's {@code --help}. */
    static final String EXIT_CODES_HEADING = "%nExit codes:%n";

    /**
     * The exit codes every command shares, as its {@code --help} lists them: 1 from the execution exception handler
     * ({@link #commandLine}), 2 from the parameter exception handler and {@link #usageError}, 130 and 143 from the JVM
     * (128 + the signal's number; the shutdown hooks run first: the demo and the apps close, ingest reports).
     */
    private static java.util.Map<String, String> commonExitCodes() {
        final java.util.Map<String, String> codes = new java.util.LinkedHashMap<>();
        codes.put("0", "done");
        codes.put("1", "failed: a bad setting, a missing or unreadable file, a cluster that does not answer or refuses,"
            + " an error while running (one line on stderr; ENGRAM_DEBUG=1 adds the stack trace)");
        codes.put(Integer.toString(EXIT_USAGE), "usage error: an unknown command or option, a missing or invalid option"
            + " value (one line on stderr)");
        codes.put("130", "interrupted (Ctrl-C, SIGINT)");
        codes.put("143", "terminated (SIGTERM)");
        return codes;
    }

    /**
     * Where a command's exit codes differ from or add to {@link #commonExitCodes}, by qualified name; each from the
     * command's code (the values it returns).
     */
    private static final java.util.Map<String, java.util.Map<String, String>> OWN_EXIT_CODES = java.util.Map.of(
        "engram ingest", java.util.Map.of(
            "0", "every record published and acknowledged",
            "1", "failed: a bad setting, a missing or unreadable file, a cluster that does not answer, or a record"
                + " that failed to send (one line on stderr)",
            "2", "usage error (one line on stderr), a line of the input refused (listed by number, the others"
                + " published), or a file in none of the formats (nothing published)",
            "130", "interrupted (Ctrl-C, SIGINT): the producer flushed, what was published is printed",
            "143", "terminated (SIGTERM): the producer flushed, what was published is printed"),
        "engram demo", java.util.Map.of(
            "0", "with --once: done, every record of the input published",
            "2", "usage error (one line on stderr), or with --once: a record of the input refused",
            "130", "interrupted: stopped with Ctrl-C (SIGINT), the end of a demo that serves"),
        "engram verify", java.util.Map.of(
            "1", "failed (one line on stderr), or the snapshots differ (the differences are printed)"),
        "engram rebuild", java.util.Map.of(
            "1", "failed (one line on stderr), or the rebuilt memories differ from those before"),
        "engram reembed", java.util.Map.of(
            "1", "failed (one line on stderr), or not every memory was re-embedded, or the apps did not catch up",
            "2", "usage error: no --model, --drop or --list, an unknown model or option (one line on stderr)"),
        "engram verify-erasure", java.util.Map.of(
            "3", "something readable of the user is still held (the places are listed)"));

    /**
     * Adds the exit codes to the {@code --help} of the command and of each of its subcommands, under
     * {@value #EXIT_CODES_HEADING}: {@link #commonExitCodes} with the command's own ({@link #OWN_EXIT_CODES}), unless
     * the command lists its own in its annotation.
     *
     * @param command the command line to document, with its subcommands
     */
    static void documentExitCodes(final CommandLine command) {
        final CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
        if (usage.exitCodeList().isEmpty()) {
            final java.util.Map<String, String> codes = commonExitCodes();
            final java.util.Map<String, String> own =
                OWN_EXIT_CODES.getOrDefault(command.getCommandSpec().qualifiedName(), java.util.Map.of());
            codes.putAll(own);
            final java.util.Map<String, String> ordered = new java.util.TreeMap<>(
                java.util.Comparator.comparingInt(Integer::parseInt));
            ordered.putAll(codes);
            usage.exitCodeListHeading(EXIT_CODES_HEADING).exitCodeList(new java.util.LinkedHashMap<>(ordered));
        }
        command.getSubcommands().values().forEach(EngramCli::documentExitCodes);
    }

    /**
     * What is wrong with a command line, unknown options first and named alone. picocli checks the required options
     * before it reports what it did not match, so {@code ingest --bogus-flag x} said "Missing required option:
     * '--bootstrap-servers…'", and it lists every unmatched word, so {@code ingest --bootstrap-servers H --bogus x f}
     * said "Unknown options: '--bogus', 'f'" (the file taken for an option: {@code x} was read as FILE). Words that
     * do not start with {@code -} are left out when an option is unknown: they follow from it.
     *
     * @param e picocli's refusal of the command line
     * @param args the command line
     * @return {@code unknown option '--bogus'} (with picocli's suggestions when it has some that the command line does
     *     not hold already), else picocli's message
     */
    static String usageProblem(final CommandLine.ParameterException e, final String[] args) {
        final java.util.LinkedHashSet<String> unmatched = new java.util.LinkedHashSet<>(
            e.getCommandLine().getUnmatchedArguments());
        if (e instanceof CommandLine.UnmatchedArgumentException u) {
            unmatched.addAll(u.getUnmatched());
        }
        final java.util.List<String> options = unmatched.stream()
            .filter(arg -> arg.length() > 1 && arg.startsWith("-") && !arg.matches("-\\d.*")).toList();
        if (options.isEmpty()) {
            return e.getMessage();
        }
        final java.util.List<String> suggestions =
            new CommandLine.UnmatchedArgumentException(e.getCommandLine(), options).getSuggestions().stream()
                .filter(s -> java.util.Arrays.stream(args).noneMatch(a -> a.equals(s) || a.startsWith(s + "="))).toList();
        return (options.size() == 1 ? "unknown option " : "unknown options ")
            + options.stream().map(o -> "'" + o + "'").collect(java.util.stream.Collectors.joining(", "))
            + (suggestions.isEmpty() ? "" : "; did you mean " + String.join(" or ", suggestions) + "?");
    }

    /**
     * @return the innermost useful message of an error chain, with the kind of error where it helps; a Kafka
     *     operation the cluster's ACLs refused names the operation and the topic or group when the tool named it
     *     ({@link KafkaOperationFailed}: "not authorized to write topic memory-commands (…)"), else Kafka's refusal
     */
    static String describe(final Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof KafkaOperationFailed named) {
                return named.getMessage();
            }
        }
        final java.util.Optional<org.apache.kafka.common.errors.AuthorizationException> denied =
            KafkaOperationFailed.denial(error);
        if (denied.isPresent()) {
            return "not authorized by the cluster's ACLs: " + denied.get().getMessage();
        }
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause
            && (cause.getMessage() == null || cause instanceof java.util.concurrent.ExecutionException
                || cause instanceof java.io.UncheckedIOException)) {
            cause = cause.getCause();
        }
        final String message = cause.getMessage() == null ? "" : cause.getMessage();
        if (cause instanceof java.nio.file.NoSuchFileException) {
            return "no such file: " + message;
        }
        if (cause instanceof java.nio.file.AccessDeniedException) {
            return "cannot read: " + message;
        }
        if (cause instanceof org.apache.kafka.common.config.ConfigException) {
            return "invalid setting: " + message;
        }
        return message.isEmpty() ? cause.getClass().getSimpleName() : message;
    }
}
