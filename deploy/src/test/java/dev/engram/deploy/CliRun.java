package dev.engram.deploy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import picocli.CommandLine;

/**
 * What one in-process {@code bin/engram} run printed and returned, for the CLI tests.
 *
 * @param exit the exit code
 * @param out standard output
 */
record CliRun(int exit, String out) {

    /** Runs {@code bin/engram ARGS} in this JVM, capturing (and echoing) standard output. */
    static CliRun engram(final String... args) {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final PrintStream previous = System.out;
        final int exit;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            exit = new CommandLine(new EngramCli()).execute(args);
        } finally {
            System.setOut(previous);
        }
        final String printed = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        return new CliRun(exit, printed);
    }
}
