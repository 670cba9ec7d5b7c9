package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's console is its own lines only: {@code bin/engram ingest} against a cluster that does not
 * answer printed a dozen Kafka {@code NetworkClient} warnings before its one-line error, because a test-jar's
 * {@code log4j2-test.xml} on the class path won over the shipped {@code log4j2.xml}. Run as {@code bin/engram}
 * runs it: {@link EngramCli#main} in a JVM of its own, on this test class path (which holds such files too).
 */
class EngramCliLogsTest {

    @TempDir
    Path tmp;

    @Test
    void shouldPrintOnlyItsOwnErrorLineWhenTheClusterDoesNotAnswer() throws Exception {
        final List<String> lines = ingestAgainstClosedPort(null);

        assertThat(lines).as(String.join("\n", lines)).anySatisfy(l -> assertThat(l).startsWith("engram ingest: cannot reach"));
        assertThat(lines).as(String.join("\n", lines)).noneMatch(l -> l.contains(" WARN ") || l.contains(" INFO "));
    }

    @Test
    void shouldPrintKafkasWarningsWhenTheLogLevelIsRaised() throws Exception {
        final List<String> lines = ingestAgainstClosedPort("WARN");

        assertThat(lines).as(String.join("\n", lines)).anyMatch(l -> l.contains(" WARN ") && l.contains("NetworkClient"));
    }

    /** @return the merged stdout and stderr of {@code engram ingest} against a port nobody listens on */
    private List<String> ingestAgainstClosedPort(final String logLevel) throws Exception {
        final int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        final Path input = Files.writeString(tmp.resolve("one.jsonl"), "{\"tenantId\":\"t1\",\"userId\":\"u1\","
            + "\"conversationId\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"2025-01-01T00:00:00Z\"}]}\n");
        final ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "ingest",
            "--bootstrap-servers", "127.0.0.1:" + closedPort, "--connect-timeout", "3", input.toString())
            .redirectErrorStream(true);
        builder.environment().remove("ENGRAM_LOG_LEVEL");
        if (logLevel != null) {
            builder.environment().put("ENGRAM_LOG_LEVEL", logLevel);
        }
        final Process process = builder.start();
        final byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(1);
        return new String(output, StandardCharsets.UTF_8).lines().toList();
    }
}
