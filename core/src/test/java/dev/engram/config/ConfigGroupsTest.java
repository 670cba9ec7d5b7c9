package dev.engram.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.config.ConfigFields.Importance;
import dev.engram.config.ConfigFields.Range;
import dev.engram.config.ConfigFields.Type;
import dev.engram.config.ConfigFinding;
import dev.engram.config.ConfigFinding.Severity;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * The composition of the groups: core's group and the ones registered as services (here {@link SampleGroup}) become
 * one definition whose validators, errors, coherence checks and table behave as one {@code ConfigDef} declared by
 * hand would.
 */
class ConfigGroupsTest {

    private static ConfigGroup group(final String name, final String... keys) {
        return new ConfigGroup() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void define(final ConfigFields fields) {
                for (final String key : keys) {
                    fields.define(key, Type.STRING, "", Importance.LOW, "A key of " + name + ".");
                }
            }
        };
    }

    @Test
    void shouldComposeCoreFirstThenTheRegisteredGroupsWhenTheClassPathHasThem() {
        assertThat(EngramConfig.groups()).extracting(ConfigGroup::name).containsExactly("core", "sample");
        assertThat(EngramConfig.owner(CoreConfig.BOOTSTRAP_SERVERS)).contains("core");
        assertThat(EngramConfig.owner(SampleGroup.SIZE)).contains("sample");
        assertThat(EngramConfig.owner("llm.base.url")).as("the llm module is not on core's class path").isEmpty();
        assertThat(EngramConfig.DEFINITION.names()).contains(CoreConfig.EMBEDDING_MODEL, SampleGroup.MODE);
        assertThat(EngramConfig.defaults().getInt(SampleGroup.SIZE)).isEqualTo(4);
    }

    @Test
    void shouldOrderTheRegisteredGroupsByNameWhenMoreThanOneIsFound() {
        final ConfigGroups groups = new ConfigGroups(List.of(group("core", "a.key"), group("b", "b.key"), group("c", "c.key")));

        assertThat(groups.owners().keySet()).containsExactly("a.key", "b.key", "c.key");
        assertThat(groups.owners().get("c.key").name()).isEqualTo("c");
        assertThat(groups.definition().configKeys().get("b.key").documentation).isEqualTo("A key of b.");
    }

    @Test
    void shouldRefuseAKeyDeclaredByTwoGroupsNamingBothOwners() {
        assertThatThrownBy(() -> new ConfigGroups(List.of(group("core", "x.y"), group("llm", "z", "x.y"))))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("x.y is declared by two groups, core (").hasMessageContaining(") and llm (");
        assertThatThrownBy(() -> new ConfigGroups(List.of(group("llm", "a"), group("llm", "b"))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("two configuration groups are named llm");
    }

    @Test
    void shouldRefuseAValueOutsideAGroupsRangeNamingTheKeyWhenTheConfigIsBuilt() {
        assertThatThrownBy(() -> new EngramConfig(Map.of(SampleGroup.SIZE, 0))).isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value 0 for configuration sample.size: Value must be at least 1");
        assertThatThrownBy(() -> new EngramConfig(Map.of(SampleGroup.LIMIT, "1.5"))).isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value 1.5 for configuration sample.limit: Value must be no more than 1.0");
        assertThatThrownBy(() -> new EngramConfig(Map.of(SampleGroup.MODE, "medium"))).isInstanceOf(ConfigException.class)
            .hasMessageContaining("sample.mode").hasMessageContaining("String must be one of: fast, slow");
        assertThatThrownBy(() -> new EngramConfig(Map.of(SampleGroup.SIZE, "many"))).isInstanceOf(ConfigException.class)
            .hasMessageContaining("sample.size").hasMessageContaining("many");
        assertThat(new EngramConfig(Map.of(SampleGroup.SIZE, "7", SampleGroup.MODE, "slow")).getInt(SampleGroup.SIZE))
            .as("a string of the type parses as the type").isEqualTo(7);
    }

    @Test
    void shouldReportAGroupsOwnValidatorsRefusalAsAConfigExceptionWithTheKeyAndValue() {
        assertThatThrownBy(() -> new EngramConfig(Map.of(SampleGroup.EVEN, 3)))
            .isInstanceOf(InvalidSettingException.class).isInstanceOf(ConfigException.class)
            .hasMessage("Invalid value 3 for configuration sample.even: must be even");
        assertThat(new EngramConfig(Map.of(SampleGroup.EVEN, 4)).getInt(SampleGroup.EVEN)).isEqualTo(4);
    }

    @Test
    void shouldKeepAnUndeclaredKeyButRefuseToReadItWhenNoGroupDeclaresIt() {
        final EngramConfig config = new EngramConfig(Map.of("nobody.owns.this", "x", "kafka.linger.ms", "5"));

        assertThat(config.originals()).containsEntry("nobody.owns.this", "x");
        assertThatThrownBy(() -> config.getString("nobody.owns.this")).isInstanceOf(ConfigException.class)
            .hasMessageContaining("Unknown configuration 'nobody.owns.this'");
        assertThat(config.kafkaProperties()).containsEntry("linger.ms", "5")
            .containsEntry("bootstrap.servers", "localhost:9092").doesNotContainKey("nobody.owns.this");
    }

    @Test
    void shouldTranslateRangesAndValidStringsIntoKafkasOwnValidatorsWhenComposed() {
        final ConfigDef.ConfigKey size = EngramConfig.DEFINITION.configKeys().get(SampleGroup.SIZE);
        final ConfigDef.ConfigKey limit = EngramConfig.DEFINITION.configKeys().get(SampleGroup.LIMIT);
        final ConfigDef.ConfigKey mode = EngramConfig.DEFINITION.configKeys().get(SampleGroup.MODE);

        assertThat(size.validator).isInstanceOf(ConfigDef.Range.class).hasToString("[1,...]");
        assertThat(limit.validator).hasToString("[0.0,...,1.0]");
        assertThat(mode.validator).isInstanceOf(ConfigDef.ValidString.class).hasToString("[fast, slow]");
        assertThat(size.importance).isEqualTo(ConfigDef.Importance.HIGH);
        assertThat(EngramConfig.DEFINITION.configKeys().get(SampleGroup.SECRET).type).isEqualTo(ConfigDef.Type.PASSWORD);
        assertThatThrownBy(() -> Range.between(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldListEveryKeyOnceUnderItsOwnersHeadingWhenTheTableIsGenerated() {
        final String table = EngramConfig.toMarkdownTable();

        assertThat(table).startsWith("### core (`CoreConfig`)\n\n| key | type | default | valid | description |\n");
        final int sample = table.indexOf("### sample (`SampleGroup`)");
        assertThat(sample).isPositive();
        for (final String key : EngramConfig.DEFINITION.names()) {
            final Matcher rows = Pattern.compile("^\\| `" + Pattern.quote(key) + "` \\|", Pattern.MULTILINE).matcher(table);
            assertThat(rows.results().count()).as(key).isEqualTo(1);
            final int row = table.indexOf("| `" + key + "` |");
            assertThat(row > sample).as(key + " under its owner's heading")
                .isEqualTo(EngramConfig.owner(key).orElseThrow().equals("sample"));
        }
        assertThat(table).contains("| `sample.home` | string | `$HOME` |  | Where this machine keeps it. |")
            .contains("| `embedding.threads` | int | cores | [1,...] |")
            .contains("| `sample.mode` | string | `fast` | [fast, slow] | Which way. |")
            .doesNotContain(System.getProperty("user.home") + "`");
    }

    @Test
    void shouldRunEveryGroupsChecksRefusalsFirstWhenTheWholeIsChecked() {
        final EngramConfig both = EngramConfig.defaults().with(Map.of(SampleGroup.MODE, "slow", SampleGroup.SIZE, 200,
            SampleGroup.LIMIT, 1.0));

        assertThat(ConfigCoherence.check(EngramConfig.defaults())).isEmpty();
        assertThat(ConfigCoherence.check(both)).extracting(ConfigFinding::severity).containsExactly(Severity.REFUSE, Severity.WARN);
        assertThatThrownBy(() -> ConfigCoherence.enforce(both, "test")).isInstanceOf(ConfigException.class)
            .hasMessage("incoherent configuration: sample.size, sample.limit: too many without a limit");
        assertThat(ConfigCoherence.enforce(EngramConfig.defaults().with(Map.of(SampleGroup.MODE, "slow")), "test"))
            .extracting(ConfigFinding::text).containsExactly("sample.mode: slow is slow");
    }

    @Test
    void shouldRefuseAnAppWhoseGroupsAreNotAllComposedNamingTheMissingOnes() {
        EngramConfig.requireGroups("sampler", List.of("core", "sample"));

        assertThatThrownBy(() -> EngramConfig.requireGroups("extractor", List.of("core", "llm", "sample", "embedder")))
            .isInstanceOf(ConfigException.class)
            .hasMessage("extractor reads the settings of llm, embedder, whose module is not on the class path "
                + "(composed: core, sample)");
    }
}
