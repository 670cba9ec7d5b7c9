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
 * of its own, on this JVM's class path, and the scale-out run's brokers ({@link ChaosBroker}); destroyed on close
 * and on JVM shutdown.
 */
final class ChaosChildren implements AutoCloseable {
    private final Path work;
    private final String bootstrap;
    private final int heapMb;
    /** Ports taken by someone else that is not listening yet (the scale-out run's brokers). */
    private final java.util.Set<Integer> reserved;
    private final int retrieverPort;
    private volatile int lastPort;
    private final Map<String, Integer> ports = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread hook = new Thread(() -> processes.forEach(Process::destroyForcibly), "chaos-children");

    ChaosChildren(final Path work, final String bootstrap, final int heapMb) {
        this(work, bootstrap, heapMb, java.util.Set.of());
    }

    /**
     * @param work the soak's directory (properties files, state directories, logs)
     * @param bootstrap the cluster the apps use
     * @param heapMb -Xmx of each app JVM
     * @param reserved ports the children's HTTP servers must not take (chosen for brokers not started yet)
     */
    ChaosChildren(final Path work, final String bootstrap, final int heapMb, final java.util.Set<Integer> reserved) {
        this.work = work;
        this.bootstrap = bootstrap;
        this.heapMb = heapMb;
        this.reserved = java.util.Set.copyOf(reserved);
        this.retrieverPort = freePort();
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
        return awaitHttp(process, port, 180);
    }

    /**
     * Waits until the child's {@code /health/live} answers.
     *
     * @param process the child
     * @param port its HTTP port
     * @param maxSeconds bound of the wait (the scale-out's first start of six JVMs at once at load 85+ took over 180 s)
     * @return seconds waited, or -1 if the process died or the bound passed
     */
    double awaitHttp(final Process process, final int port, final int maxSeconds) {
        final long start = System.nanoTime();
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        while (process.isAlive() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(maxSeconds)) {
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

    /**
     * Starts instance 0 of an app (the single-instance soak).
     *
     * @param command consolidator, extractor or retriever
     * @param name the child's log name ({@code <work>/<name>.log})
     * @return the process
     */
    Process start(final String command, final String name) {
        return start(command, 0, name);
    }

    /**
     * Starts one instance of an app: its own state directory {@code state-<command>-<instance>} and HTTP port (the
     * same for every restart of that instance, so a restarted retriever is found where it was), its own properties
     * file.
     *
     * @param command consolidator, extractor or retriever
     * @param instance the instance, 0 …
     * @param name the child's log name ({@code <work>/<name>.log})
     * @return the process
     */
    Process start(final String command, final int instance, final String name) {
        final Path props = work.resolve(command + "-" + instance + ".properties");
        final Map<String, String> config = new LinkedHashMap<>();
        config.put(CoreConfig.BOOTSTRAP_SERVERS, bootstrap);
        config.put(PipelineConfig.STATE_DIR, stateDir(command, instance).toString());
        final int port = port(command, instance);
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
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + props, e);
        }
        // each app's own main (what bin/engram <app> runs), so the soak needs only the apps on its class path
        return switch (command) {
            case "consolidator" -> startJava("dev.engram.consolidator.ConsolidatorApp", List.of(props.toString()), name, heapMb);
            case "extractor" -> startJava("dev.engram.extractor.ExtractorApp", List.of(props.toString()), name, heapMb);
            default -> startJava("dev.engram.retriever.RetrieverApp", List.of("--config", props.toString()), name, heapMb);
        };
    }

    /**
     * @param command consolidator, extractor or retriever
     * @param instance the instance
     * @return its state directory
     */
    Path stateDir(final String command, final int instance) {
        return work.resolve("state-" + command + "-" + instance);
    }

    /**
     * @param command consolidator, extractor or retriever
     * @param instance the instance
     * @return its HTTP port, chosen on first use and kept for its restarts
     */
    int port(final String command, final int instance) {
        return "retriever".equals(command) && instance == 0 ? retrieverPort
            : ports.computeIfAbsent(command + "-" + instance, k -> freePort());
    }

    /**
     * Starts a main class of this JVM's class path in a child JVM (serial GC, exit on out-of-memory), its output in
     * {@code <work>/<name>.log}; destroyed on {@link #close()}.
     *
     * @param mainClass the class
     * @param args its arguments
     * @param name the log name
     * @param heap -Xmx, MB
     * @return the process
     */
    Process startJava(final String mainClass, final List<String> args, final String name, final int heap) {
        final List<String> cmd = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap + "m",
            "-XX:+UseSerialGC",
            // as the Kubernetes manifests run the apps: a JVM out of heap exits (and is restarted) instead of
            // staying up with a stream thread lost in garbage collection
            "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path")));
        final String log4j = System.getProperty("engram.chaos.log4j");
        if (log4j != null) {
            cmd.add(1, "-Dlog4j2.configurationFile=" + log4j);
        }
        cmd.add(mainClass);
        cmd.addAll(args);
        try {
            final Process process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve(name + ".log").toFile())).start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + mainClass, e);
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
        // one deadline for all of them: a broker whose peers are gone may hang in its controlled shutdown
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (final Process p : processes) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }

    private int freePort() {
        while (true) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
                if (!reserved.contains(socket.getLocalPort()) && !ports.containsValue(socket.getLocalPort())
                    && socket.getLocalPort() != retrieverPort) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("No free port", e);
            }
        }
    }
}
