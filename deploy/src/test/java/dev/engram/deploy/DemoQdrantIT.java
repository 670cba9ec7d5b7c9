package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import dev.engram.qdrant.testing.QdrantDouble;
import dev.engram.stack.DemoSummary;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.UpsertPoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code bin/engram demo --once --vector-index qdrant --qdrant-host localhost --qdrant-port P} on the
 * shipped sample, with the Qdrant double serving gRPC on a local TCP port (no Qdrant server can run
 * here): the consolidator writes every memory to Qdrant with {@code wait=true}, and both the
 * consolidator's dedup searches and the retriever's example retrievals are Qdrant queries scoped to
 * one tenant and user.
 */
class DemoQdrantIT {

    @TempDir
    Path dir;

    @Test
    void shouldRunTheDemoAgainstQdrantWhenTheVectorIndexFlagsAreGiven() throws Exception {
        try (QdrantDouble qdrant = QdrantDouble.start()) {
            final int port = qdrant.startTcp();
            final Path summaryFile = dir.resolve("summary.json");
            final ByteArrayOutputStream console = new ByteArrayOutputStream();
            final int exit;
            try (PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8)) {
                exit = new CommandLine(new DemoCommand(out)).execute("--once", "--summary", summaryFile.toString(),
                    "--port", "0", "--run-dir", dir.resolve("run").toString(),
                    "--vector-index", "qdrant", "--qdrant-host", "localhost", "--qdrant-port", Integer.toString(port));
            }
            final String printed = console.toString(StandardCharsets.UTF_8);
            System.out.println(printed);

            assertThat(exit).as(printed).isZero();
            assertThat(printed).contains("Vector index: Qdrant at localhost:" + port, "Example retrievals");
            final DemoSummary summary = DemoSummary.read(summaryFile);
            assertThat(summary.memoriesCreated()).isPositive();
            // every stored memory is a point (created ones, late statements stored as superseded) until the
            // lifecycle hard-deletes it, which deletes the point too
            assertThat((long) qdrant.pointCount("engram-memories")).isPositive()
                .isLessThanOrEqualTo(summary.memoriesCreated() + summary.memoriesSuperseded());
            assertThat(qdrant.requests(UpsertPoints.class)).isNotEmpty().allSatisfy(u -> assertThat(u.getWait()).isTrue());
            assertThat(qdrant.requests(DeletePoints.class)).allSatisfy(d -> assertThat(d.getWait()).isTrue());
            final List<QueryPoints> queries = qdrant.requests(QueryPoints.class);
            assertThat(queries).isNotEmpty().allSatisfy(q -> assertThat(q.getFilter().getMustList())
                .extracting(Condition::getField).extracting(f -> f.getKey())
                .contains("tenant_id", "user_id"));
            assertThat(qdrant.calls()).allSatisfy(c -> assertThat(c.hadDeadline()).isTrue());
        }
    }
}
