package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.ConversationCompleted;
import dev.engram.config.CoreConfig;
import dev.engram.config.EngramConfig;
import dev.engram.serde.AvroSerdes;
import dev.engram.stack.TopicSetup;
import dev.engram.testing.EmbeddedKafka;
import dev.engram.topics.Topic;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/engram ingest} against a real broker with the topics Engram creates: one size limit for
 * ingest, producer and broker — a 10 MB message is refused at ingest by its line with the limit named,
 * a 1.35 MB conversation inside the limits is published (the broker's 1 MiB default would refuse it),
 * the rest of the file goes on, and the exit code says a line was refused. When the cluster's topic
 * allows less than the setting, the topic's limit is the one applied and named.
 */
class IngestIT {

    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        TopicSetup.createAll(kafka.admin(), 1);
    }

    @AfterAll
    static void stopKafka() throws Exception {
        kafka.close();
    }

    @Test
    void shouldRefuseOnlyTheOversizedLineByNumberAndPublishTheRestWhenOneSetOfLimitsApplies() throws Exception {
        final Path file = dir.resolve("sizes.jsonl");
        Files.writeString(file, String.join("\n",
            line("c1", "I use IntelliJ."),
            line("c2", "x".repeat(10 * 1024 * 1024)),
            // 1.35 MB in 15 messages of 90,000 characters: within input.max.message.chars and the record limit
            conversation("c3", 15, "y".repeat(90_000)),
            line("c4", "I prefer tea.")) + "\n", StandardCharsets.UTF_8);

        final Run run = ingest(file);

        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.out()).contains("line 2: the record is 10,485,").contains("over input.max.record.bytes = 4,194,304 bytes")
            .contains("3 records published (3 acknowledged, 0 failed)");
        final List<ConsumerRecord<String, ConversationCompleted>> published = kafka.read(Topic.CONVERSATIONS_COMPLETED.name(),
            Serdes.String().deserializer(), AvroSerdes.serde(ConversationCompleted.class).deserializer(), 3,
            Duration.ofSeconds(30));
        // the other tests publish to the same topic, as other users: whatever order they run in
        assertThat(published).filteredOn(r -> r.key().equals("t1/u-size")).extracting(r -> r.value().getConversationId())
            .containsExactly("c1", "c3", "c4");
        assertThat(published.get(1).serializedValueSize()).isGreaterThan(1_300_000);

        // a cluster whose topic was created with the broker's 1 MiB default: that limit is applied and named
        kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, Topic.CONVERSATIONS_COMPLETED.name()),
            List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588"), AlterConfigOp.OpType.SET))))
            .all().get(30, TimeUnit.SECONDS);
        final Run small = ingest(file);
        assertThat(small.exit()).isEqualTo(2);
        assertThat(small.out()).contains("line 3: the record is").contains("max.message.bytes of topic conversations-completed (1048588)")
            .contains("2 records published (2 acknowledged, 0 failed)");
        assertThat(EngramConfig.defaults().maxMessageBytes()).isEqualTo(5 * 1024 * 1024);
        assertThat(Set.of(CoreConfig.MAX_RECORD_BYTES)).containsExactly("input.max.record.bytes");
    }

    @Test
    void shouldKeepEveryRecordWhateverItsEventTimeWhenTopicsComeFromTopicSetup() throws Exception {
        final Map<ConfigResource, org.apache.kafka.clients.admin.Config> configs = kafka.admin().describeConfigs(
            Topic.allNames().stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList())
            .all().get(30, TimeUnit.SECONDS);

        // the test broker keeps Kafka's default 7-day retention: each topic must override it
        assertThat(configs.values()).allSatisfy(c -> {
            assertThat(c.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
            assertThat(c.get(TopicConfig.RETENTION_MS_CONFIG).source())
                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(c.get(TopicConfig.RETENTION_BYTES_CONFIG).value()).isEqualTo("-1");
            // the test broker keeps Kafka 4's default of 1 hour ahead of its clock: each topic must lift it
            assertThat(c.get(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG).value()).isEqualTo(String.valueOf(Long.MAX_VALUE));
        });
    }

    @Test
    void shouldRefuseTheLineDatedInYear9999WithTheSettingNamedAndPublishThe2024LineWhenTheTopicsComeFromTopicSetup()
        throws Exception {
        final Path file = dir.resolve("future.jsonl");
        Files.writeString(file, String.join("\n",
            line("future-1", "I will retire in Lisbon.").replace("2025-01-01T10:00:00Z", "9999-12-31T23:59:59Z")
                .replace("u-size", "u-future"),
            line("past-1", "I retired in Lisbon.").replace("2025-01-01T10:00:00Z", "2024-03-01T10:00:00Z")
                .replace("u-size", "u-future")) + "\n", StandardCharsets.UTF_8);
        // the topics still take any timestamp (old data replays; what the pipeline accepts is the edges' to bound):
        // a topic created before Engram lifted the limit (Kafka 4's default: 1 hour ahead), bin/engram topics aligns it
        final ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, Topic.CONVERSATIONS_COMPLETED.name());
        kafka.admin().incrementalAlterConfigs(Map.of(topic, List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
            new org.apache.kafka.clients.admin.ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, "3600000"),
            org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        assertThat(TopicSetup.alignTimestampLimits(kafka.admin())).containsExactly(Topic.CONVERSATIONS_COMPLETED.name());
        assertThat(TopicSetup.alignTimestampLimits(kafka.admin())).isEmpty();

        final Run run = ingest(file);

        // one date ahead would be the consolidator's clock for every user of its partition: refused at ingest
        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.out()).contains("line 1: completedAt 9999-12-31T23:59:59Z lies ahead of this receiver's clock",
            "input.max.future.ms=3600000", "(not published)").contains("1 records published (1 acknowledged, 0 failed)");
        assertThat(awaitPublished("past-1")).doesNotContain("future-1");
    }

    @Test
    void shouldRefuseALineWithANegativeOrSharedMessageIndexAsPostConversationsDoesAndPublishTheOthers() throws Exception {
        final String turn = "{\"role\":\"user\",\"content\":\"I live in Delft.\",\"timestamp\":\"2025-01-01T10:00:00Z\"%s}";
        final String head = "{\"tenantId\":\"t1\",\"userId\":\"u-index\",\"conversationId\":\"";
        final Path file = dir.resolve("indexes.jsonl");
        Files.writeString(file, String.join("\n",
            head + "neg-1\",\"messages\":[" + turn.formatted(",\"index\":-1") + "]}",
            head + "dup-1\",\"messages\":[" + turn.formatted(",\"index\":0") + "," + turn.formatted("") + ","
                + turn.formatted(",\"index\":1") + "]}",
            head + "gaps-1\",\"messages\":[" + turn.formatted(",\"index\":4") + "," + turn.formatted(",\"index\":2")
                + "]}") + "\n", StandardCharsets.UTF_8);

        final Run run = ingest(file);

        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.out()).contains("line 1: messages[0].index must not be negative (the message's position, from 0), "
            + "was -1", "line 2: messages[2].index 1 is also messages[1]'s", "(not published)")
            .contains("1 records published (1 acknowledged, 0 failed)");
        assertThat(awaitPublished("gaps-1")).doesNotContain("neg-1", "dup-1");
    }

    @Test
    void shouldPublishEachConversationWhenTheFileIsAJsonArrayAndRefuseWithExit2WhenItIsAnArrayOfSomethingElse()
        throws Exception {
        final Path array = dir.resolve("export.json");
        Files.writeString(array, "[" + conversation("arr-1", 1, "I drink tea.").replace("u-size", "u-array") + ",\n"
            + conversation("arr-2", 1, "I live in Delft.").replace("u-size", "u-array") + "]", StandardCharsets.UTF_8);

        final Run run = ingest(array);

        assertThat(run.exit()).as(run.out()).isZero();
        assertThat(run.out()).contains("as JSON_ARRAY: 2 records published (2 acknowledged, 0 failed)");
        final Path strings = dir.resolve("strings.json");
        Files.writeString(strings, "[\"hello\"]", StandardCharsets.UTF_8);
        assertThat(ingest(strings).exit()).isEqualTo(2);
    }

    @Test
    void shouldFailWithinTheConnectTimeoutNamingTheAddressWhenTheClusterIsUnreachable() throws Exception {
        final Path file = dir.resolve("one.jsonl");
        Files.writeString(file, line("c1", "I use IntelliJ.") + "\n", StandardCharsets.UTF_8);
        final int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        final java.io.StringWriter err = new java.io.StringWriter();
        final picocli.CommandLine cli = EngramCli.commandLine();
        cli.setErr(new java.io.PrintWriter(err, true));

        final long start = System.nanoTime();
        final int exit = cli.execute("ingest", "--bootstrap-servers", "127.0.0.1:" + closedPort, "--connect-timeout", "2",
            file.toString());
        final Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot reach the Kafka cluster at 127.0.0.1:" + closedPort + " within 2 s")
            .contains("--connect-timeout").contains("nothing was published");
        // the producer's own timeouts took about 2 minutes; the check gives up after its 2 s (+1 s margin, + start-up)
        assertThat(took).isLessThan(Duration.ofSeconds(60)); // generous for a loaded machine, far below the 2 minutes
        assertThat(cli.execute("ingest", "--bootstrap-servers", kafka.bootstrapServers(), "--connect-timeout", "0",
            file.toString())).as("a value the option does not allow: a usage error").isEqualTo(2);
    }

    /**
     * README trial: 600,000 lines printed nothing for 31 s, and SIGTERM or Ctrl-C ended the run with 143 or 130 and
     * not a word. Run as {@code bin/engram} runs it (a JVM of its own): progress lines on stderr while it publishes,
     * and on SIGTERM the producer flushed and what was published said; the topic holds exactly the records it says
     * were acknowledged.
     */
    @Test
    void shouldPrintProgressWhileItRunsAndWhatWasPublishedWhenItIsTerminated() throws Exception {
        final Path file = dir.resolve("long.jsonl");
        try (java.io.BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < 400_000; i++) {
                out.write((i % 1000 == 7 ? "not json" : line("c-long-" + i, "I drink tea number " + i + ".")
                    .replace("u-size", "u-long")) + "\n");
            }
        }
        final long before = endOffset();
        final Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "ingest",
            "--bootstrap-servers", kafka.bootstrapServers(), "--progress-seconds", "1", file.toString())
            .redirectErrorStream(true).start();
        final List<String> lines = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final java.util.concurrent.CountDownLatch progressed = new java.util.concurrent.CountDownLatch(1);
        final Thread reader = new Thread(() -> new java.io.BufferedReader(new java.io.InputStreamReader(
            process.getInputStream(), StandardCharsets.UTF_8)).lines().forEach(l -> {
                lines.add(l);
                if (l.matches("ingest: [1-9][\\d,]* records published .*")) {
                    progressed.countDown();
                }
            }));
        reader.start();

        final boolean sawProgress = progressed.await(120, TimeUnit.SECONDS);
        // SIGTERM; not Process#destroy, which closes the pipes as it signals and so loses what the hook prints
        process.toHandle().destroy();
        assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
        reader.join(10_000);

        final String output = String.join("\n", lines);
        assertThat(sawProgress).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isEqualTo(143);
        assertThat(lines).as(output).anySatisfy(l -> assertThat(l)
            .matches("ingest: [\\d,]+ records published \\([\\d,]+ acknowledged, 0 failed\\), [\\d,]+ lines refused, "
                + "[\\d,]+ records/s over \\d+ s"));
        assertThat(lines).as(output).contains("ingest: stopping: waiting for the records in flight…");
        final String interrupted = lines.stream().filter(l -> l.startsWith("ingest: interrupted: ")).findFirst()
            .orElseThrow(() -> new AssertionError("no interrupted line in:\n" + output));
        assertThat(interrupted).containsPattern("lines refused, .*; the last record published is line \\d+, the input "
            + "after it was not read");
        assertThat(interrupted).doesNotContain("400,000 records published");
        final java.util.regex.Matcher counts = java.util.regex.Pattern
            .compile("interrupted: ([\\d,]+) records published \\(([\\d,]+) acknowledged, 0 failed\\), ([\\d,]+) lines refused")
            .matcher(interrupted);
        assertThat(counts.find()).as(interrupted).isTrue();
        final long published = Long.parseLong(counts.group(1).replace(",", ""));
        assertThat(Long.parseLong(counts.group(2).replace(",", ""))).as("flushed: every record sent acknowledged")
            .isEqualTo(published);
        assertThat(Long.parseLong(counts.group(3).replace(",", ""))).as("one line in 1000 is not JSON")
            .isBetween(published / 1000 - 1, published / 1000 + 1);
        assertThat(endOffset() - before).as("records on the topic").isEqualTo(published);
        assertThat(lines).as(output).noneMatch(l -> l.startsWith("Read "));
    }

    /** @return the end offset of conversations-completed (one partition here) */
    private static long endOffset() {
        final org.apache.kafka.common.TopicPartition partition =
            new org.apache.kafka.common.TopicPartition(Topic.CONVERSATIONS_COMPLETED.name(), 0);
        try {
            return kafka.admin().listOffsets(Map.of(partition, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .partitionResult(partition).get(30, TimeUnit.SECONDS).offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private record Run(int exit, String out) {
    }

    private static Run ingest(final Path file) {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        final int exit;
        try (PrintStream capture = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            exit = EngramCli.commandLine().execute("ingest", "--bootstrap-servers", kafka.bootstrapServers(), file.toString());
        } finally {
            System.setOut(original);
        }
        final String out = buffer.toString(StandardCharsets.UTF_8);
        original.print(out);
        return new Run(exit, out);
    }

    /** @return the conversation ids on conversations-completed once {@code expected} is among them (bounded wait) */
    private static List<String> awaitPublished(final String expected) {
        final List<String> published = new java.util.ArrayList<>();
        EmbeddedKafka.waitUntil(() -> {
            published.clear();
            kafka.read(Topic.CONVERSATIONS_COMPLETED.name(), Serdes.String().deserializer(),
                AvroSerdes.serde(ConversationCompleted.class).deserializer(), (int) endOffset(), Duration.ofSeconds(30))
                .forEach(r -> published.add(r.value().getConversationId()));
            return published.contains(expected);
        }, Duration.ofSeconds(60), expected + " on " + Topic.CONVERSATIONS_COMPLETED.name());
        return published;
    }

    private static String line(final String id, final String content) {
        return conversation(id, 1, content);
    }

    private static String conversation(final String id, final int messages, final String content) {
        final StringBuilder json = new StringBuilder("{\"tenantId\":\"t1\",\"userId\":\"u-size\",\"conversationId\":\"")
            .append(id).append("\",\"messages\":[");
        for (int i = 0; i < messages; i++) {
            json.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"").append(content)
                .append("\",\"timestamp\":\"2025-01-01T10:00:0").append(i % 10).append("Z\"}");
        }
        return json.append("]}").toString();
    }
}
