package dev.engram.ops;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import dev.engram.stack.InputFile;
import dev.engram.topics.Topic;

/**
 * {@code bin/engram verify --before FILE [--after FILE | --bootstrap-servers …] [--save FILE]}:
 * compares two {@link MemorySnapshot}s — counts by status and a content hash per user — and prints the
 * differences. Without {@code --after} the state after is read now from {@code memory-updated}
 * (read_committed, folded per user). Without {@code --before} it only takes a snapshot ({@code --save}).
 * Exit code 0 when identical, 1 when they differ.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Compare the memory state (per user: counts and content hash) before and after a rebuild; or save a snapshot.")
public final class VerifyCommand implements Callable<Integer> {

    @Mixin
    OpsOptions options = new OpsOptions();

    @Option(names = "--before", paramLabel = "FILE", description = "Snapshot taken before (e.g. a rebuild's before.json).")
    Path before;

    @Option(names = "--after", paramLabel = "FILE", description = "Snapshot taken after; default: read memory-updated now.")
    Path after;

    @Option(names = "--save", paramLabel = "FILE", description = "Also write the state read now to FILE.")
    Path save;

    private final PrintStream out;

    /** Prints to standard output. */
    public VerifyCommand() {
        this(System.out);
    }

    /** @param out where the differences go */
    public VerifyCommand(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        // the files first: a mistyped --before names itself at once, before the cluster is asked
        final Path beforeFile = before == null ? null : InputFile.readable(before, "the --before snapshot");
        final Path afterFile = after == null ? null : InputFile.readable(after, "the --after snapshot");
        final MemorySnapshot now = afterFile != null ? MemorySnapshot.read(afterFile)
            : MemorySnapshot.fromTopic(options.client(), null, Duration.ofMinutes(10),
                Topic.MEMORY_UPDATED.valueDeserializer(options.reachable("nothing was checked")));
        if (save != null) {
            now.write(save.toAbsolutePath());
            out.println("Snapshot written to " + save.toAbsolutePath());
        }
        if (before == null) {
            out.println("state: " + now.summary());
            return 0;
        }
        final MemorySnapshot then = MemorySnapshot.read(beforeFile);
        out.println("before: " + then.summary());
        out.println("after:  " + now.summary());
        final List<String> differences = then.diff(now);
        MemorySnapshot.printDiff(out, differences);
        return differences.isEmpty() ? 0 : 1;
    }
}
