package dev.engram.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The settings one {@link ConfigGroup} declares, in Kafka-free terms: each field has a key, a type, a default,
 * an optional validator, an importance and the documentation the configuration table prints. The calls mirror
 * Kafka's {@code ConfigDef#define} (Debezium's {@code Field} plays the same part), so a module below the Kafka
 * side (the domain) declares its settings without importing {@code org.apache.kafka}; {@link EngramConfig} turns
 * every group's fields into one {@code ConfigDef}.
 */
public final class ConfigFields {

    /** The type of a value, as Kafka's {@code ConfigDef.Type} of the same name parses it. */
    public enum Type {
        /** a string, stripped */
        STRING,
        /** a 32-bit integer */
        INT,
        /** a 64-bit integer */
        LONG,
        /** a double */
        DOUBLE,
        /** true or false */
        BOOLEAN,
        /** a comma-separated list of strings */
        LIST,
        /** a string that is never printed (a secret) */
        PASSWORD
    }

    /** How much a setting matters to an operator, as Kafka's {@code ConfigDef.Importance}. */
    public enum Importance {
        /** set it for production */
        HIGH,
        /** usually worth a look */
        MEDIUM,
        /** tuning */
        LOW
    }

    /**
     * Checks one parsed value (after the type's parsing); its {@link Object#toString()} is the table's "valid"
     * column.
     */
    @FunctionalInterface
    public interface Validator {

        /**
         * @param name the key
         * @param value the parsed value (may be null for a null default)
         * @throws InvalidSettingException naming the key and the value when the value is refused
         */
        void ensureValid(String name, Object value);
    }

    /**
     * A numeric range with an optional upper bound; Kafka's {@code ConfigDef.Range} enforces it.
     *
     * @param min the least valid value, inclusive
     * @param max the greatest valid value, inclusive, or null for none
     */
    public record Range(Number min, Number max) implements Validator {

        /** @throws NullPointerException without a lower bound */
        public Range {
            Objects.requireNonNull(min, "min");
        }

        /**
         * @param min the least valid value, inclusive
         * @return the range {@code [min, ...]}
         */
        public static Range atLeast(final Number min) {
            return new Range(min, null);
        }

        /**
         * @param min the least valid value, inclusive
         * @param max the greatest valid value, inclusive
         * @return the range {@code [min, ..., max]}
         */
        public static Range between(final Number min, final Number max) {
            return new Range(min, Objects.requireNonNull(max, "max"));
        }

        /** Enforced by Kafka's {@code Range} once the field is composed; never called on this record itself. */
        @Override
        public void ensureValid(final String name, final Object value) {
            throw new UnsupportedOperationException("a Range is enforced by the composed ConfigDef");
        }
    }

    /**
     * One of a fixed set of strings; Kafka's {@code ConfigDef.ValidString} enforces it.
     *
     * @param values the valid strings, in the order the table lists them
     */
    public record ValidString(List<String> values) implements Validator {

        /** Copies the values. */
        public ValidString {
            values = List.copyOf(values);
        }

        /**
         * @param values the valid strings
         * @return the validator
         */
        public static ValidString in(final String... values) {
            return new ValidString(List.of(values));
        }

        /** Enforced by Kafka's {@code ValidString} once the field is composed; never called on this record itself. */
        @Override
        public void ensureValid(final String name, final Object value) {
            throw new UnsupportedOperationException("a ValidString is enforced by the composed ConfigDef");
        }
    }

    /**
     * One declared setting.
     *
     * @param name the key, dotted (e.g. {@code llm.base.url})
     * @param type its type
     * @param defaultValue the default, as a value of the type or a string it parses; null for none
     * @param validator null for any value of the type
     * @param importance its importance
     * @param documentation what it does, the table's description
     */
    public record Field(String name, Type type, Object defaultValue, Validator validator, Importance importance,
                        String documentation) {

        /** @throws NullPointerException without a name, type, importance or documentation */
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(importance, "importance");
            Objects.requireNonNull(documentation, "documentation");
        }
    }

    private final List<Field> fields = new ArrayList<>();

    /**
     * Declares a setting any value of its type satisfies.
     *
     * @param name the key
     * @param type its type
     * @param defaultValue the default
     * @param importance its importance
     * @param documentation what it does
     * @return this
     */
    public ConfigFields define(final String name, final Type type, final Object defaultValue,
                               final Importance importance, final String documentation) {
        return define(name, type, defaultValue, null, importance, documentation);
    }

    /**
     * Declares a setting with a validator.
     *
     * @param name the key
     * @param type its type
     * @param defaultValue the default
     * @param validator what a value must satisfy
     * @param importance its importance
     * @param documentation what it does
     * @return this
     */
    public ConfigFields define(final String name, final Type type, final Object defaultValue, final Validator validator,
                               final Importance importance, final String documentation) {
        fields.add(new Field(name, type, defaultValue, validator, importance, documentation));
        return this;
    }

    /** @return the fields in declaration order (the table's order) */
    public List<Field> fields() {
        return Collections.unmodifiableList(fields);
    }
}
