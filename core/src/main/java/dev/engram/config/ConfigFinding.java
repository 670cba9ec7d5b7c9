package dev.engram.config;

import java.util.List;

/**
 * One incoherence a {@link ConfigGroup#check} finds: settings each valid alone that cannot work together.
 *
 * @param severity refuse or warn
 * @param keys every key involved, in the order the message names them
 * @param message what cannot work and why
 */
public record ConfigFinding(Severity severity, List<String> keys, String message) {

    /** Whether a finding stops the start. */
    public enum Severity {
        /** the app does not start */
        REFUSE,
        /** the app starts; the finding is logged */
        WARN
    }

    /** Copies the keys. */
    public ConfigFinding {
        keys = List.copyOf(keys);
    }

    /**
     * @param message what cannot work and why
     * @param keys every key involved
     * @return a finding that stops the start
     */
    public static ConfigFinding refuse(final String message, final String... keys) {
        return new ConfigFinding(Severity.REFUSE, List.of(keys), message);
    }

    /**
     * @param message what never or wrongly fires and why
     * @param keys every key involved
     * @return a finding that is logged at start
     */
    public static ConfigFinding warn(final String message, final String... keys) {
        return new ConfigFinding(Severity.WARN, List.of(keys), message);
    }

    /** @return {@code key, key: message} */
    public String text() {
        return String.join(", ", keys) + ": " + message;
    }
}
