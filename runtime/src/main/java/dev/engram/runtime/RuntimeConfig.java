package dev.engram.runtime;

import dev.engram.config.ConfigFields;
import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigGroup;

/**
 * The settings what every app runs on owns ({@link ConfigGroup} {@code runtime}): the address every app's HTTP server
 * (API, health, metrics) listens on. Registered as a service, composed onto the core definition by {@code
 * EngramConfig}; the keys are this class's constants.
 */
public final class RuntimeConfig implements ConfigGroup {

    /** Address every app's HTTP server listens on; loopback unless configured. */
    public static final String HTTP_BIND_ADDRESS = "http.bind.address";

    /** Called by the service loader ({@code META-INF/services/dev.engram.config.ConfigGroup}). */
    public RuntimeConfig() {
        // the keys are constants; the declaration is {@link #define}
    }

    @Override
    public String name() {
        return "runtime";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(HTTP_BIND_ADDRESS, Type.STRING, "127.0.0.1", Importance.HIGH,
                "Address the HTTP servers of every app (API, health, metrics) listen on: loopback by default, so nothing "
                    + "is reachable from another machine; 0.0.0.0 for every interface (containers, Kubernetes).");
    }
}
