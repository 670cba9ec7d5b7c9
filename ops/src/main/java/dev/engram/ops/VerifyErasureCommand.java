package dev.engram.ops;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import dev.engram.core.UserKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/engram verify-erasure --tenant T --user U [--bootstrap-servers …] [--config FILE]}: checks
 * every place Engram keeps something about the user ({@link ErasureCheck}: stores, vector index, history,
 * profile topic, the other topics, the data key) and prints one line per place with what it found. Exit
 * code 0 when nothing readable of the user is held anywhere Engram owns (ids kept by design, such as
 * audit records, do not count), 3 when something is (e.g. the user was never erased).
 */
@Command(name = "verify-erasure", mixinStandardHelpOptions = true,
    description = "Check every store, topic, the vector index and the data key for what is still held about one user.")
public final class VerifyErasureCommand implements Callable<Integer> {

    /** Exit code when a place still holds something readable of the user. */
    public static final int HOLDS = 3;

    @Mixin
    OpsOptions options = new OpsOptions();

    @Option(names = "--tenant", required = true, paramLabel = "T", description = "Tenant id.")
    String tenant;

    @Option(names = "--user", required = true, paramLabel = "U", description = "User id.")
    String user;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT2M",
        description = "How long reading each topic may take (ISO-8601, default PT2M).")
    Duration timeout;

    private final PrintStream out;

    /** Prints to standard output. */
    public VerifyErasureCommand() {
        this(System.out);
    }

    /** @param out where the report goes */
    public VerifyErasureCommand(final PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        final UserKey key = new UserKey(tenant, user);
        final List<ErasureCheck.Place> places = ErasureCheck.run(options.reachable("nothing was checked"), key, timeout);
        out.printf("verify-erasure %s%n", key.wire());
        boolean clean = true;
        for (final ErasureCheck.Place place : places) {
            out.printf("  %-6s %-48s %s%n", place.clean() ? "clean" : "HOLDS", place.name(), place.detail());
            clean &= place.clean();
        }
        out.println(clean ? "verify-erasure: nothing readable of " + key.wire() + " is held"
            : "verify-erasure: " + key.wire() + " is still held (see HOLDS)");
        return clean ? 0 : HOLDS;
    }
}
