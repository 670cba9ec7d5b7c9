package dev.engram.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.engram.config.CoreConfig;
import dev.engram.streams.PipelineConfig;

/**
 * The soak's child JVMs: each app's own main (what {@code bin/engram <app>} runs) with a properties file
 * of its own, on this JVM's class path; destroyed on close and on JVM shutdown.
 */
final class ChaosChildren implements AutoCloseable {
    private final Path work;
    private final String bootstrap;
    private final int heapMb;
    private final int retrieverPort = freePort();
    private volatile int lastPort;
    private final List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread hook = new Thread(() -> processes.forEach(Process::destroyForcibly), "chaos-children");

    ChaosChildren(final Path work, final String bootstrap, final int heapMb) {
        this.work = work;
        this.bootstrap = bootstrap;
        this.heapMb = heapMb;
        // Ctrl-C on the soak must not leave child JVMs behind
        Runtime.getRuntime().addShutdownHook(hook);
    }

    int retrieverPort() {
        return retrieverPort;
    }

    /** @return the HTTP port of the child started last */
    int lastPort() {
        return lastPort;
    }

    /**
     * Waits until the child's {@code /health/live} answers (the JVM is up and the app configured).
     *
     * @return seconds waited, or -1 if the process died or 180 s passed
     */
    double awaitHttp(final Process process, final int port) {
        final long start = System.nanoTime();
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        while (process.isAlive() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(180)) {
            try {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                return (System.nanoTime() - start) / 1e9;
            } catch (IOException notYet) {
                Chaos.sleep(0.1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return -1;
    }

    Process start(final String command, final String name) {
        final Path props = work.resolve(command + ".properties");
        final Map<String, String> config = new LinkedHashMap<>();
        config.put(CoreConfig.BOOTSTRAP_SERVERS, bootstrap);
        config.put(PipelineConfig.STATE_DIR, work.resolve("state-" + command).toString());
        final int port = "retriever".equals(command) ? retrieverPort : freePort();
        lastPort = port;
        config.put(PipelineConfig.EXTRACTOR_HTTP_PORT, String.valueOf(port));
        config.put(PipelineConfig.CONSOLIDATOR_HTTP_PORT, String.valueOf(port));
        config.put(PipelineConfig.RETRIEVER_HTTP_PORT, String.valueOf(port));
        config.put("retriever.auth.keys", Chaos.API_KEY + "=" + Chaos.TENANT + ":admin");
        // the soak counts kills, losses and duplicates on records it reads in the clear (Chaos's decoders)
        config.put(PipelineConfig.CRYPTO_ENABLED, "false");
        final StringBuilder text = new StringBuilder();
        config.forEach((k, v) -> text.append(k).append('=').append(v.replace("\\", "/")).append('\n'));
        try {
            Files.writeString(props, text);
            final List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heapMb + "m",
                "-XX:+UseSerialGC",
                // as the Kubernetes manifests run the apps: a JVM out of heap exits (and is restarted) instead of
                // staying up with a stream thread lost in garbage collection
                "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path")));
            final String log4j = System.getProperty("engram.chaos.log4j");
            if (log4j != null) {
                cmd.add(1, "-Dlog4j2.configurationFile=" + log4j);
            }
            // each app's own main (what bin/engram <app> runs), so the soak needs only the apps on its class path
            switch (command) {
                case "consolidator" -> cmd.addAll(List.of("dev.engram.consolidator.ConsolidatorApp", props.toString()));
                case "extractor" -> cmd.addAll(List.of("dev.engram.extractor.ExtractorApp", props.toString()));
                default -> cmd.addAll(List.of("dev.engram.retriever.RetrieverApp", "--config", props.toString()));
            }
            final Process process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile()).start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + command, e);
        }
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs
        }
        for (final Process p : processes) {
            p.destroy();
        }
        for (final Process p : processes) {
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port", e);
        }
    }
}
