package dev.engram.serde;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;

/**
 * The Avro schemas shipped in this jar for readers that have no Engram classes (another language, a registry): the
 * {@code .avsc} sources under {@code avro/}, listed in dependency order in {@code avro/index.txt} (a file names only
 * types defined by the files above it), and the writer schemas of earlier releases under {@code avro-history/}
 * ({@code avro-history/index.txt}). Resources of the {@code engram-schemas} jar; {@code bin/engram schemas} exports them
 * and registers the topics' value schemas in a registry.
 */
public final class ShippedSchemas {

    /** The directory of the current {@code .avsc} files in the jar. */
    public static final String DIRECTORY = "avro/";
    /** The directory of earlier writer schemas in the jar. */
    public static final String HISTORY_DIRECTORY = "avro-history/";

    private ShippedSchemas() {
    }

    /**
     * @return file name → text of every current schema, in dependency order
     * @throws UncheckedIOException if a listed file is missing from the classpath
     */
    public static Map<String, String> current() {
        return read(DIRECTORY);
    }

    /**
     * @return file name → text of every earlier writer schema, oldest first
     * @throws UncheckedIOException if a listed file is missing from the classpath
     */
    public static Map<String, String> history() {
        return read(HISTORY_DIRECTORY);
    }

    /**
     * @param directory {@link #DIRECTORY} or {@link #HISTORY_DIRECTORY}
     * @return the files {@code index.txt} of that directory lists (blank lines and {@code #} comments skipped)
     */
    public static List<String> index(final String directory) {
        return text(directory + "index.txt").lines().map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }

    /**
     * Parses the current schemas the way a reader without Engram's classes would: one parser, the files in index order.
     *
     * @return full name (e.g. {@code dev.engram.avro.MemoryUpdated}) → schema
     * @throws org.apache.avro.SchemaParseException if a file names a type not defined above it
     */
    public static Map<String, Schema> parse() {
        final Schema.Parser parser = new Schema.Parser();
        final Map<String, Schema> schemas = new LinkedHashMap<>();
        for (final String text : current().values()) {
            final Schema schema = parser.parse(text);
            schemas.put(schema.getFullName(), schema);
        }
        return schemas;
    }

    private static Map<String, String> read(final String directory) {
        final Map<String, String> files = new LinkedHashMap<>();
        for (final String file : index(directory)) {
            files.put(file, text(directory + file));
        }
        return files;
    }

    private static String text(final String resource) {
        try (InputStream in = ShippedSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("Missing resource " + resource + " in the schemas jar"));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + resource, e);
        }
    }
}
