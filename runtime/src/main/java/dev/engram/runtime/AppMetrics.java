package dev.engram.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * Creates the Prometheus registry of one app, with the common tags {@code application} and {@value #HOST_TAG} (the
 * host name) and the JVM memory, thread and processor binders. Each app in a JVM has its own registry, so the demo's
 * three apps stay apart.
 *
 * <p>The host tag is not called {@code instance}: Prometheus sets {@code instance} (the scrape target, host:port) on
 * every series itself, and a target's own {@code instance} label then clashes with it (kept as
 * {@code exported_instance}, or overwriting the target's with {@code honor_labels}), so a query by {@code instance}
 * matched neither reliably.
 */
public final class AppMetrics {

    /** The common tag naming the host (a pod name on Kubernetes) that runs the app. */
    public static final String HOST_TAG = "host";

    private AppMetrics() {
    }

    /**
     * @param appName the {@code application} tag, e.g. {@code engram-retriever}
     * @return a new registry tagged with the app and this host as {@value #HOST_TAG}
     */
    public static PrometheusMeterRegistry registry(final String appName) {
        return registry(appName, localInstance());
    }

    /**
     * @param appName the {@code application} tag
     * @param instance the {@value #HOST_TAG} tag, e.g. a host name
     * @return a new registry with both common tags and the JVM binders
     */
    public static PrometheusMeterRegistry registry(final String appName, final String instance) {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("application", appName, HOST_TAG, instance);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        return registry;
    }

    /** @return this host's name, or {@code localhost} if it cannot be resolved */
    static String localInstance() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
