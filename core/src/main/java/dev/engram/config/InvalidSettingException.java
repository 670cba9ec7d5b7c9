package dev.engram.config;

import org.apache.kafka.common.config.ConfigException;

/**
 * A setting whose value is malformed or out of range, named with its key and value. It is a Kafka
 * {@link ConfigException}, so an app start reports it like any other configuration error, while the
 * domain module that throws it stays free of Kafka imports.
 */
public final class InvalidSettingException extends ConfigException {

    private static final long serialVersionUID = 1L;

    /**
     * @param key the setting's key, e.g. {@code relevance.calibration}
     * @param value the value given
     * @param message what is wrong with it
     */
    public InvalidSettingException(final String key, final Object value, final String message) {
        super(key, value, message);
    }
}
