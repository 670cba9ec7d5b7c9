package dev.engram.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFields.ValidString;
import dev.engram.config.ConfigFinding;

/**
 * A group the core tests register as a service (src/test/resources), as an adapter module registers its own: one key
 * of each validator kind, a coherence rule across two of its keys and a machine-dependent default.
 */
public final class SampleGroup implements ConfigGroup {

    static final String SIZE = "sample.size";
    static final String LIMIT = "sample.limit";
    static final String MODE = "sample.mode";
    static final String EVEN = "sample.even";
    static final String HOME = "sample.home";
    static final String SECRET = "sample.secret";

    /** Called by the service loader. */
    public SampleGroup() {
        // constants only
    }

    @Override
    public String name() {
        return "sample";
    }

    @Override
    public void define(final ConfigFields fields) {
        fields
            .define(SIZE, Type.INT, 4, Range.atLeast(1), Importance.HIGH, "How many.")
            .define(LIMIT, Type.DOUBLE, 0.5, Range.between(0.0, 1.0), Importance.MEDIUM, "Up to where.")
            .define(MODE, Type.STRING, "fast", ValidString.in("fast", "slow"), Importance.LOW, "Which way.")
            .define(EVEN, Type.INT, 2, (name, value) -> {
                if (((Integer) value) % 2 != 0) {
                    throw new InvalidSettingException(name, value, "must be even");
                }
            }, Importance.LOW, "An even number.")
            .define(HOME, Type.STRING, System.getProperty("user.home"), Importance.LOW, "Where this machine keeps it.")
            .define(SECRET, Type.PASSWORD, null, Importance.LOW, "Never printed.");
    }

    /** Refuses a size above 100 with a limit of 1, warns about the slow mode. */
    @Override
    public List<ConfigFinding> check(final ConfigValues config) {
        final List<ConfigFinding> findings = new ArrayList<>();
        if ("slow".equals(config.getString(MODE))) {
            findings.add(ConfigFinding.warn("slow is slow", MODE));
        }
        if (config.getInt(SIZE) > 100 && config.getDouble(LIMIT) == 1.0) {
            findings.add(ConfigFinding.refuse("too many without a limit", SIZE, LIMIT));
        }
        return findings;
    }

    @Override
    public Optional<String> shownDefault(final String key) {
        return HOME.equals(key) ? Optional.of("`$HOME`") : Optional.empty();
    }
}
