package dev.engram.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.engram.config.EngramConfig;
import dev.engram.serde.RegistryAvroSerdes;
import dev.engram.serde.SchemaRegistryClient;
import dev.engram.serde.ShippedSchemas;
import dev.engram.streams.PipelineConfig;
import dev.engram.topics.Topic;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/engram schemas export DIR | register}: Engram's Avro schemas for readers without Engram's classes.
 *
 * <ul>
 *   <li>{@code export DIR} writes {@code DIR/<topic>-value.avsc} for every topic with Avro values (the whole schema,
 *       nested types inlined: what {@code serde.format=registry} registers, one file a consumer loads alone), the
 *       {@code .avsc} sources with their dependency order ({@code DIR/avro/index.txt}) and the earlier writer schemas
 *       ({@code DIR/avro-history/}), the same files the {@code engram-schemas} jar carries as resources;</li>
 *   <li>{@code register} registers those value schemas in a Confluent-compatible registry over its REST API
 *       ({@code POST /subjects/<topic>-value/versions}; compatibility {@code BACKWARD} on subjects that have none),
 *       exactly as the apps' first write would, and prints each subject's id. Re-running it registers nothing new.</li>
 * </ul>
 * Exit 0 on success, 1 when a file cannot be written or the registry refuses a schema.
 */
@Command(name = "schemas", mixinStandardHelpOptions = true,
    subcommands = {SchemasCommand.Export.class, SchemasCommand.Register.class},
    description = "Export Engram's Avro schemas (.avsc) or register them in a schema registry.")
public final class SchemasCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return 2;
    }

    /** {@code bin/engram schemas export DIR}. */
    @Command(name = "export", mixinStandardHelpOptions = true,
        description = "Write <topic>-value.avsc for every topic, the .avsc sources (avro/, in dependency order: avro/index.txt) "
            + "and the earlier writer schemas (avro-history/) to DIR.")
    public static final class Export implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "DIR", description = "Output directory (created if missing; files are overwritten).")
        Path dir;

        @Override
        public Integer call() throws IOException {
            final Path out = dir.toAbsolutePath();
            try {
                Files.createDirectories(out);
            } catch (java.nio.file.FileSystemException e) {
                throw new IOException(cannotCreate(out, e), e);
            }
            write(out.resolve("avro"), ShippedSchemas.current(), ShippedSchemas.index(ShippedSchemas.DIRECTORY));
            write(out.resolve("avro-history"), ShippedSchemas.history(), ShippedSchemas.index(ShippedSchemas.HISTORY_DIRECTORY));
            for (final Topic<String, ? extends SpecificRecordBase> topic : Topic.records()) {
                Files.writeString(out.resolve(RegistryAvroSerdes.valueSubject(topic.name()) + ".avsc"),
                    SpecificData.getForClass(topic.valueType()).getSchema(topic.valueType()).toString(true) + "\n",
                    StandardCharsets.UTF_8);
            }
            System.out.printf("Wrote %d topic value schemas, %d .avsc sources and %d earlier writer schemas to %s%n",
                Topic.records().size(), ShippedSchemas.current().size(), ShippedSchemas.history().size(), out);
            return 0;
        }

        /**
         * Why a directory could not be made, for the one line the CLI prints (a fresh user's trial: "engram export: no
         * such file: /proc/nope" named neither the command nor that the directory was the problem).
         *
         * @param dir the directory asked for
         * @param e the file system's refusal
         * @return {@code cannot create the directory DIR: WHY}, WHY naming the path refused and the system's reason
         */
        static String cannotCreate(final Path dir, final java.nio.file.FileSystemException e) {
            final String at = e.getFile() != null ? e.getFile() : dir.toString();
            Path existing = Path.of(at);
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            final String why;
            if (existing != null && !Files.isDirectory(existing)) {
                why = existing + " is a file, not a directory";
            } else if (e instanceof java.nio.file.AccessDeniedException) {
                why = "permission denied to create " + at;
            } else if (e instanceof java.nio.file.NoSuchFileException) {
                // mkdir's ENOENT where the parent exists: a file system that takes no new entries (/proc, /sys)
                final Path parent = Path.of(at).getParent();
                why = parent != null && Files.isDirectory(parent)
                    ? parent + " does not let a directory be created in it (no such file or directory)"
                    : "no such file or directory: " + at;
            } else {
                why = (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()) + ": " + at;
            }
            return "cannot create the directory " + dir + ": " + why;
        }

        private static void write(final Path dir, final Map<String, String> files, final java.util.List<String> order)
            throws IOException {
            Files.createDirectories(dir);
            for (final Map.Entry<String, String> file : files.entrySet()) {
                Files.writeString(dir.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
            }
            Files.writeString(dir.resolve("index.txt"), String.join("\n", order) + "\n", StandardCharsets.UTF_8);
        }
    }

    /** {@code bin/engram schemas register}. */
    @Command(name = "register", mixinStandardHelpOptions = true,
        description = "Register every topic's value schema under <topic>-value in a Confluent-compatible schema registry.")
    public static final class Register implements Callable<Integer> {

        @Option(names = "--registry-url", paramLabel = "URL",
            description = "Base URL of the registry (default: schema.registry.url of the environment, ENGRAM_SCHEMA_REGISTRY_URL).")
        String url;

        @Override
        public Integer call() {
            final EngramConfig config = EngramConfig.load(null, System.getenv(), Map.of());
            final String base = url != null ? url : config.getString(PipelineConfig.SCHEMA_REGISTRY_URL);
            if (base == null || base.isBlank()) {
                System.err.println("No registry: give --registry-url or set ENGRAM_SCHEMA_REGISTRY_URL");
                return 2;
            }
            final RegistryAvroSerdes registry = new RegistryAvroSerdes(new SchemaRegistryClient(base,
                config.getPassword(PipelineConfig.SCHEMA_REGISTRY_USER_INFO).value()));
            try {
                for (final Topic<String, ? extends SpecificRecordBase> topic : Topic.records()) {
                    final int id = registry.registerValueSchema(topic.name(), topic.valueType());
                    System.out.printf("%s: id %d (%s)%n", RegistryAvroSerdes.valueSubject(topic.name()), id,
                        topic.valueType().getSimpleName());
                }
            } catch (RuntimeException e) {
                System.err.println("The registry at " + base + " did not take the schemas: " + e.getMessage());
                return 1;
            }
            return 0;
        }
    }
}
