package dev.engram.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;

/**
 * The schemas the jar ships for readers without Engram's classes: every {@code .avsc} of the source tree is in the
 * jar and in {@code avro/index.txt}, the index order lets one plain Avro parser resolve every reference, and what that
 * parser reads has the parsing canonical form (so the fingerprint) of each generated class's schema (so a reader of the
 * shipped files decodes what the apps write).
 */
class ShippedSchemasTest {

    @Test
    void shouldListEverySchemaOfTheSourceTreeInADependencyOrderAPlainParserAcceptsWhenTheJarIsRead() throws Exception {
        final Path sources = Path.of("src", "main", "avro");
        try (Stream<Path> files = Files.list(sources)) {
            assertThat(ShippedSchemas.index(ShippedSchemas.DIRECTORY)).containsExactlyInAnyOrderElementsOf(
                files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".avsc")).toList());
        }
        final Map<String, Schema> parsed = ShippedSchemas.parse();
        assertThat(parsed).hasSize(ShippedSchemas.index(ShippedSchemas.DIRECTORY).size());
        for (final Map.Entry<String, Schema> e : parsed.entrySet()) {
            final Class<?> generated = Class.forName(e.getKey());
            // the parsing canonical form: what single-object fingerprints and registry lookups compare (the generated
            // classes add Java-only properties such as avro.java.string, which no other language reads)
            assertThat(SchemaNormalization.toParsingForm(e.getValue())).as(e.getKey())
                .isEqualTo(SchemaNormalization.toParsingForm(SpecificData.get().getSchema(generated)));
        }
    }

    @Test
    void shouldShipEveryEarlierWriterSchemaWhenTheHistoryIsRead() throws IOException {
        assertThat(ShippedSchemas.history()).isNotEmpty().allSatisfy((name, text) ->
            assertThat(new Schema.Parser().parse(text).getName()).isEqualTo(name.substring(0, name.indexOf('-'))));
    }
}
