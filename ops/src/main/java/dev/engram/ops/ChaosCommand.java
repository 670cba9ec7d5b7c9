package dev.engram.ops;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/engram chaos [--app consolidator|extractor|retriever|all] [--kills 20] [--stall-seconds 30]
 * [--child-heap-mb 320] [--json FILE]}: the fault soak of {@link Chaos} on an embedded broker. Prints one line per restart and
 * a table of stalls, lost and duplicated {@code memory-updated} events and retriever answers; exit code
 * 0 when every count that must be zero is zero, 1 otherwise.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
    description = "Kill and restart an app (SIGKILL, same state directory) mid-stream and count stalls, lost and duplicated memory-updated events and retriever answers other than 200/503.")
public final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--app", defaultValue = "all", description = "consolidator, extractor, retriever or all (default).")
    String app;

    @Option(names = "--kills", defaultValue = "20", description = "SIGKILLs per app (default 20).")
    int kills;

    @Option(names = "--stall-seconds", defaultValue = "30",
        description = "A restart without committed progress for longer than this counts as a stall (default 30).")
    int stallSeconds;

    @Option(names = "--rate", defaultValue = "40",
        description = "Candidates published per second (default 40; the extractor soak publishes a fifth as many conversations).")
    int rate;

    @Option(names = "--child-heap-mb", defaultValue = "320",
        description = "-Xmx of each app's JVM, MB (default 320; bin/engram runs an app with 768).")
    int childHeapMb;

    @Option(names = "--work-dir", defaultValue = "run/chaos", description = "Broker, state and child logs (emptied first).")
    Path workDir;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the counts as JSON.")
    Path json;

    @Override
    public Integer call() throws Exception {
        final List<Chaos.App> apps = new ArrayList<>();
        if ("all".equalsIgnoreCase(app)) {
            apps.addAll(List.of(Chaos.App.values()));
        } else if (java.util.Arrays.stream(Chaos.App.values()).anyMatch(a -> a.command().equalsIgnoreCase(app))) {
            apps.add(Chaos.App.valueOf(app.toUpperCase(Locale.ROOT)));
        } else {
            throw OptionValues.invalid(spec, "--app", app, "consolidator, extractor, retriever, all");
        }
        if (kills < 0) {
            throw OptionValues.invalid(spec, "--kills", kills, "0 or more");
        }
        if (stallSeconds < 1 || rate < 1 || childHeapMb < 64) {
            throw stallSeconds < 1 ? OptionValues.invalid(spec, "--stall-seconds", stallSeconds, "1 or more")
                : rate < 1 ? OptionValues.invalid(spec, "--rate", rate, "1 or more")
                : OptionValues.invalid(spec, "--child-heap-mb", childHeapMb, "64 or more");
        }
        final Chaos chaos = new Chaos(new Chaos.Settings(kills, stallSeconds, rate, 3, 8, workDir.toAbsolutePath(), childHeapMb),
            System.out);
        final List<Chaos.Result> results = new ArrayList<>();
        for (final Chaos.App a : apps) {
            final Chaos.Result result = chaos.run(a);
            System.out.println("chaos result " + result);
            results.add(result);
        }
        System.out.println("app           kills  items  stalls  lost  duplicated  answers               wrong  unreachable");
        for (final Chaos.Result r : results) {
            System.out.printf("%-13s %5d %6d %7d %5d %11d  %-20s %6d %12d%n", r.app(), r.kills(), r.items(), r.stalls(),
                r.lost(), r.duplicated(), r.answers(), r.wrongAnswers(), r.unreachable());
        }
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toAbsolutePath().toFile(), results);
        }
        return results.stream().allMatch(Chaos.Result::clean) ? 0 : 1;
    }
}
