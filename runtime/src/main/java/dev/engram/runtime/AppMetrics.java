package dev.engram.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * Creates the Prometheus registry of one app, with the common tags {@code application} and
 * {@code instance} (micrometer's {@code prometheus.adoc} convention) and the JVM memory, thread and
 * processor binders. Each app in a JVM has its own registry, so the demo's three apps stay apart.
 */
public final class AppMetrics {

    private AppMetrics() {
    }

    /**
     * @param appName the {@code application} tag, e.g. {@code engram-retriever}
     * @return a new registry tagged with the app and this host as {@code instance}
     */
    public static PrometheusMeterRegistry registry(final String appName) {
        return registry(appName, localInstance());
    }

    /**
     * @param appName the {@code application} tag
     * @param instance the {@code instance} tag, e.g. {@code host:port}
     * @return a new registry with both common tags and the JVM binders
     */
    public static PrometheusMeterRegistry registry(final String appName, final String instance) {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("application", appName, "instance", instance);
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
