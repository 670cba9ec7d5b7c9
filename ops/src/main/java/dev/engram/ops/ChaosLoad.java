package dev.engram.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Samples {@code /proc/loadavg} (the 1-minute load average) every 5 s on a daemon thread while a chaos run lasts, so
 * that its recovery times and latencies are reported with the load they were measured under.
 */
final class ChaosLoad {
    private final double start = now();
    private volatile double max = start;
    private volatile double end = start;
    private volatile boolean running = true;

    /** Starts sampling now. */
    ChaosLoad() {
        final Thread thread = new Thread(() -> {
            while (running) {
                Chaos.sleep(5);
                sample();
            }
        }, "chaos-load");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        final double load = now();
        max = Math.max(max, load);
        end = load;
    }

    /** Stops sampling; the last sample is taken now. Idempotent. */
    void stop() {
        if (running) {
            running = false;
            sample();
        }
    }

    /** @return the load at the start, the highest sample and the last one, one decimal */
    ChaosScaleOut.Load result() {
        return new ChaosScaleOut.Load(Chaos.round1(start), Chaos.round1(max), Chaos.round1(end));
    }

    /** @return the 1-minute load average, -1 where {@code /proc/loadavg} cannot be read */
    static double now() {
        try {
            final String line = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII);
            return Double.parseDouble(line.split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

}
