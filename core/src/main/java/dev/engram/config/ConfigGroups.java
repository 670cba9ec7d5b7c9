package dev.engram.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import org.apache.kafka.common.config.ConfigDef;

/**
 * The composition of every {@link ConfigGroup} into one Kafka {@link ConfigDef}: core's group first, then the groups
 * registered as services on the class path, ordered by name, each key in its group's declaration order. A group's
 * Kafka-free {@link ConfigFields} become Kafka's types and validators here ({@code Range} and {@code ValidString} become
 * Kafka's own, so the validators and their table text are Kafka's), the only place they meet.
 */
final class ConfigGroups {

    private final List<ConfigGroup> groups;
    private final Map<String, ConfigGroup> owners;
    private final ConfigDef definition;

    /**
     * @param groups the groups, in the table's order
     * @throws IllegalStateException naming both owners when two groups declare one key, or two groups share a name
     */
    ConfigGroups(final List<ConfigGroup> groups) {
        this.groups = List.copyOf(groups);
        final Map<String, ConfigGroup> byName = new HashMap<>();
        final Map<String, ConfigGroup> keys = new LinkedHashMap<>();
        final ConfigDef def = new ConfigDef();
        for (final ConfigGroup group : this.groups) {
            final ConfigGroup sameName = byName.putIfAbsent(group.name(), group);
            if (sameName != null) {
                throw new IllegalStateException("two configuration groups are named " + group.name() + ": "
                    + sameName.getClass().getName() + " and " + group.getClass().getName());
            }
            final ConfigFields fields = new ConfigFields();
            group.define(fields);
            for (final ConfigFields.Field field : fields.fields()) {
                final ConfigGroup owner = keys.putIfAbsent(field.name(), group);
                if (owner != null) {
                    throw new IllegalStateException("the setting " + field.name() + " is declared by two groups, "
                        + owner.name() + " (" + owner.getClass().getName() + ") and " + group.name() + " ("
                        + group.getClass().getName() + "): a key has one owner");
                }
                def.define(field.name(), ConfigDef.Type.valueOf(field.type().name()), field.defaultValue(),
                    kafka(field.validator()), ConfigDef.Importance.valueOf(field.importance().name()),
                    field.documentation());
            }
        }
        this.owners = java.util.Collections.unmodifiableMap(keys);
        this.definition = def;
    }

    /**
     * @param core core's own group
     * @return core's group, then every group the service loader finds beside {@link ConfigGroup}, by name
     */
    static ConfigGroups discover(final ConfigGroup core) {
        final List<ConfigGroup> found = new ArrayList<>();
        ServiceLoader.load(ConfigGroup.class, ConfigGroup.class.getClassLoader()).forEach(found::add);
        found.sort(Comparator.comparing(ConfigGroup::name));
        final List<ConfigGroup> all = new ArrayList<>();
        all.add(core);
        all.addAll(found);
        return new ConfigGroups(all);
    }

    /** @return the groups, in the table's order */
    List<ConfigGroup> groups() {
        return groups;
    }

    /** @return every declared key → the group that declares it, in the table's order */
    Map<String, ConfigGroup> owners() {
        return owners;
    }

    /** @return the composed definition */
    ConfigDef definition() {
        return definition;
    }

    private static ConfigDef.Validator kafka(final ConfigFields.Validator validator) {
        if (validator == null) {
            return null;
        }
        if (validator instanceof ConfigFields.Range range) {
            return range.max() == null ? ConfigDef.Range.atLeast(range.min())
                : ConfigDef.Range.between(range.min(), range.max());
        }
        if (validator instanceof ConfigFields.ValidString valid) {
            return ConfigDef.ValidString.in(valid.values().toArray(String[]::new));
        }
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(final String name, final Object value) {
                validator.ensureValid(name, value);
            }

            @Override
            public String toString() {
                return validator.toString();
            }
        };
    }
}
