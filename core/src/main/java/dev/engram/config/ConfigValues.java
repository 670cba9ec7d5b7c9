package dev.engram.config;

import java.util.List;
import java.util.Map;

/**
 * Read access to a composed configuration, in Kafka-free terms: what the domain and the groups' coherence checks
 * ({@link ConfigGroup#check}) read. {@link EngramConfig} implements it (Kafka's {@code AbstractConfig} already has these
 * methods), so code that takes a {@code ConfigValues} is handed an {@code EngramConfig} without knowing Kafka. Every
 * getter throws Kafka's "Unknown configuration" {@code ConfigException} for a key no group declares, and returns the
 * value parsed to the key's declared type.
 */
public interface ConfigValues {

    /**
     * @param key an {@code INT} key
     * @return its value
     */
    Integer getInt(String key);

    /**
     * @param key a {@code LONG} key
     * @return its value
     */
    Long getLong(String key);

    /**
     * @param key a {@code DOUBLE} key
     * @return its value
     */
    Double getDouble(String key);

    /**
     * @param key a {@code STRING} key
     * @return its value, stripped; null for a null default not set
     */
    String getString(String key);

    /**
     * @param key a {@code BOOLEAN} key
     * @return its value
     */
    Boolean getBoolean(String key);

    /**
     * @param key a {@code LIST} key
     * @return its entries, in order
     */
    List<String> getList(String key);

    /** @return the settings as given (defaults not applied), keys not declared by any group included */
    Map<String, Object> originals();
}
