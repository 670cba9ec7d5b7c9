package dev.engram.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The one header set of every app's dead letters: ours and KIP-1034's, replacing, never piling up. */
class DeadLettersTest {

    @Test
    void shouldReplaceEarlierErrorHeadersKeepOthersAndLeaveTheOriginalUntouched() {
        // a record that was dead-lettered before (e.g. replayed from a DLQ) and carries a trace header
        final Headers original = new RecordHeaders();
        original.add("traceparent", "00-abc-01".getBytes(StandardCharsets.UTF_8));
        original.add(DeadLetters.HEADER_REASON, "old reason".getBytes(StandardCharsets.UTF_8));
        original.add("__streams.errors.message", "old reason".getBytes(StandardCharsets.UTF_8));

        final Headers out = DeadLetters.headers(original, new DeadLetters.Source("memory-candidates", 1, 42),
            DeadLetters.STAGE_VALIDATION, "dev.engram.InvalidMemoryCandidate", "embedding has 2 dimensions");

        assertThat(values(out, DeadLetters.HEADER_REASON)).containsExactly("embedding has 2 dimensions");
        assertThat(values(out, "__streams.errors.message")).containsExactly("embedding has 2 dimensions");
        assertThat(values(out, "__streams.errors.exception")).containsExactly("dev.engram.InvalidMemoryCandidate");
        assertThat(values(out, DeadLetters.HEADER_CLASS)).containsExactly("dev.engram.InvalidMemoryCandidate");
        assertThat(values(out, DeadLetters.HEADER_STAGE)).containsExactly("validation");
        assertThat(values(out, "__streams.errors.topic")).containsExactly("memory-candidates");
        assertThat(values(out, DeadLetters.HEADER_SOURCE_PARTITION)).containsExactly("1");
        assertThat(values(out, "__streams.errors.offset")).containsExactly("42");
        assertThat(values(out, "traceparent")).containsExactly("00-abc-01");
        assertThat(values(original, DeadLetters.HEADER_REASON)).containsExactly("old reason");
        assertThat(DeadLetters.KIP_1034_HEADERS).allSatisfy(name -> assertThat(values(out, name)).hasSize(1));
    }

    @Test
    void shouldWriteAMissingReasonAsEmptyRatherThanFail() {
        final Headers out = DeadLetters.headers(new RecordHeaders(), new DeadLetters.Source("", -1, -1L),
            DeadLetters.STAGE_EXTRACTION, "java.lang.IllegalStateException", null);
        assertThat(values(out, DeadLetters.HEADER_REASON)).containsExactly("");
        assertThat(values(out, DeadLetters.HEADER_SOURCE_OFFSET)).containsExactly("-1");
    }

    private static List<String> values(final Headers headers, final String name) {
        final List<String> out = new ArrayList<>();
        for (final Header h : headers.headers(name)) {
            out.add(new String(h.value(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
