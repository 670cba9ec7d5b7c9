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
 *
 * <p>With {@code --instances 2 --brokers 3} (and {@code --kills} rounds, default 6; {@code --app} restricts which
 * app's instances are killed): the scale-out run of {@link ChaosScaleOut}, two instances of every app and a
 * three-broker cluster, each a JVM of its own, one app instance and one broker SIGKILLed per round; its JSON is one
 * object ({@link ChaosScaleOut.Result}).
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
    description = "Kill and restart an app (SIGKILL, same state directory) mid-stream and count stalls, lost and duplicated memory-updated events and retriever answers other than 200/503. "
        + "With --instances 2 --brokers 3: two instances of every app and three brokers, one instance and one broker killed per round.")
public final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--app", defaultValue = "all", description = "consolidator, extractor, retriever or all (default).")
    String app;

    @Option(names = "--kills", description = "SIGKILLs per app (default 20); with --instances, kill rounds (default 6).")
    Integer kills;

    @Option(names = "--instances", defaultValue = "1",
        description = "Instances of every app, each a JVM of its own (default 1: the per-app soak). 2 or more: the "
            + "scale-out run, with --brokers 3 or more.")
    int instances;

    @Option(names = "--brokers", defaultValue = "1",
        description = "Kafka brokers (default 1, in this JVM and never killed). 3 or more: each a JVM of its own, "
            + "replication factor 3, min.insync.replicas 2; the scale-out run kills one per round.")
    int brokers;

    @Option(names = "--broker-heap-mb", defaultValue = "384",
        description = "-Xmx of each broker JVM of the scale-out run, MB (default 384).")
    int brokerHeapMb;

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
        final boolean scaleOut = instances > 1 || brokers > 1;
        if (instances < 1 || instances > 4) {
            throw OptionValues.invalid(spec, "--instances", instances, "1 to 4");
        }
        if (scaleOut && (instances < 2 || brokers < 3 || brokers > 5)) {
            throw instances < 2 ? OptionValues.invalid(spec, "--instances", instances, "2 or more with --brokers " + brokers)
                : OptionValues.invalid(spec, "--brokers", brokers, "3 to 5 with --instances " + instances);
        }
        if (brokerHeapMb < 128) {
            throw OptionValues.invalid(spec, "--broker-heap-mb", brokerHeapMb, "128 or more");
        }
        final int kills = this.kills != null ? this.kills : scaleOut ? 6 : 20;
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
        if (scaleOut) {
            return scaleOut(apps, kills);
        }
        final Chaos chaos = new Chaos(new Chaos.Settings(kills, stallSeconds, rate, 3, 8, workDir.toAbsolutePath(), childHeapMb),
            System.out);
        final List<Chaos.Result> results = new ArrayList<>();
        for (final Chaos.App a : apps) {
            final Chaos.Result result = chaos.run(a);
            System.out.println("chaos result " + result);
            results.add(result);
        }
        System.out.println("app           kills  items  stalls  lost  duplicated  answers               wrong  unreachable"
            + "  failed-sends  unsent");
        for (final Chaos.Result r : results) {
            System.out.printf("%-13s %5d %6d %7d %5d %11d  %-20s %6d %12d %13d %7d%n", r.app(), r.kills(), r.items(),
                r.stalls(), r.lost(), r.duplicated(), r.answers(), r.wrongAnswers(), r.unreachable(), r.failedSends(),
                r.unsent());
        }
        for (final Chaos.Result r : results) {
            System.out.printf("%s: not served %d, restarts: HTTP after %s s, first progress after %s s; latency p50 "
                    + "%.1f ms, p99 %.1f ms, max %.1f ms; load average %.1f at the start, %.1f at most, %.1f at the end; "
                    + "%.0f s%n",
                r.app(), r.notServed(), spread(r.secondsToHttp()), spread(r.secondsToProgress()), r.p50Ms(), r.p99Ms(),
                r.maxMs(), r.load().start(), r.load().max(), r.load().end(), r.elapsedSeconds());
        }
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toAbsolutePath().toFile(), results);
        }
        return results.stream().allMatch(Chaos.Result::clean) ? 0 : 1;
    }

    /** @return "min–median–max" of recovery times (one decimal), "-" without any; -1 entries (never) are named */
    private static String spread(final List<Double> seconds) {
        final double[] done = seconds.stream().mapToDouble(Double::doubleValue).filter(s -> s >= 0).sorted().toArray();
        final long never = seconds.size() - done.length;
        final String range = done.length == 0 ? "-" : String.format(Locale.ROOT, "%.1f–%.1f–%.1f", done[0],
            done[done.length / 2], done[done.length - 1]);
        return never == 0 ? range : range + " (" + never + " never)";
    }

    /** The scale-out run ({@link ChaosScaleOut}): prints its counts, writes them as one JSON object. */
    private int scaleOut(final List<Chaos.App> victims, final int rounds) throws Exception {
        final ChaosScaleOut run = new ChaosScaleOut(new ChaosScaleOut.Settings(instances, brokers, rounds, stallSeconds,
            Math.max(1, rate / 5), workDir.toAbsolutePath(), childHeapMb, brokerHeapMb,
            List.of(Chaos.App.EXTRACTOR, Chaos.App.CONSOLIDATOR, Chaos.App.RETRIEVER).stream()
                .filter(victims::contains).toList()), System.out);
        final ChaosScaleOut.Result r = run.run();
        System.out.println("chaos scale-out result " + r);
        System.out.printf("instances %d, brokers %d, rounds %d (app kills %s, broker kills %d), %d conversations at %d/s%n",
            r.instances(), r.brokers(), r.rounds(), r.appKills(), r.brokerKills(), r.items(), r.conversationsPerSecond());
        System.out.printf("failed sends %d (retried), unsent %d, stalls %d, not in sync %d, lost %d, duplicated %d, "
                + "not served %d%n", r.failedSends(), r.unsent(), r.stalls(), r.notInSync(), r.lost(), r.duplicated(),
            r.notServed());
        System.out.printf("answers %s (wrong %d, unreachable %d, timeouts %d, served by a survivor %d, by instance %s), "
                + "latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", r.answers(), r.wrongAnswers(), r.unreachable(),
            r.timeouts(), r.servedBySurvivor(), r.answeredBy(), r.p50Ms(), r.p99Ms(), r.maxMs());
        System.out.printf("load average %.1f at the start, %.1f at most, %.1f at the end; %.0f s%n", r.load().start(),
            r.load().max(), r.load().end(), r.elapsedSeconds());
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toAbsolutePath().toFile(), r);
        }
        return r.clean() ? 0 : 1;
    }
}
