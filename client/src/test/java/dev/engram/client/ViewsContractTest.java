package dev.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.retriever.ApiViews;
import org.junit.jupiter.api.Test;

/**
 * The client's views against the records the retriever serializes ({@link ApiViews}): every field the retriever
 * writes in a search hit or a memory is one the client reads, under the same JSON name and of the same type; and
 * the client still reads an answer with fields it does not know, or without the ones an older retriever lacks.
 */
class ViewsContractTest {

    @Test
    void shouldReadEveryFieldTheRetrieverWritesInAHitAndAMemory() {
        for (final Class<?>[] pair : List.of(
            new Class<?>[] {ApiViews.Hit.class, Views.Hit.class},
            new Class<?>[] {ApiViews.MemoryView.class, Views.MemoryView.class},
            new Class<?>[] {ApiViews.Components.class, Views.Components.class},
            new Class<?>[] {ApiViews.Source.class, Views.Source.class},
            new Class<?>[] {ApiViews.FormerValue.class, Views.FormerValue.class},
            new Class<?>[] {ApiViews.Fact.class, Views.Fact.class},
            new Class<?>[] {ApiViews.Profile.class, Views.Profile.class},
            new Class<?>[] {ApiViews.Context.class, Views.Context.class})) {
            assertThat(fields(pair[1])).as("the client's %s", pair[1].getSimpleName())
                .containsExactlyEntriesOf(fields(pair[0]));
        }
    }

    @Test
    void shouldReadAnOutdatedHitAndIgnoreFieldsItDoesNotKnow() {
        final String json = """
            {"memoryId":"m-1","type":"EPISODIC","content":"I work at Umbrella Labs.","score":0.71,
             "components":{"semantic":0.8,"recency":1,"importance":0.5,"access":0},"sources":[],"status":"ACTIVE",
             "reinforcementCount":1,"createdAt":"2025-01-06T09:00:00Z","updatedAt":"2025-01-08T09:00:00Z",
             "agentId":"travel","outdated":true,"validTo":"2025-01-08T09:00:00Z","supersededBy":"m-2",
             "outdatedValues":["Umbrella Labs"],"currentPart":null,"aFieldOfANewerRetriever":{"x":1}}""";

        final Views.Hit hit = ClientTransport.convert(read(json), Views.Hit.class);

        assertThat(hit.outdated()).isTrue();
        assertThat(hit.validTo()).isEqualTo(Instant.parse("2025-01-08T09:00:00Z"));
        assertThat(hit.supersededBy()).isEqualTo("m-2");
        assertThat(hit.agentId()).isEqualTo("travel");
        assertThat(hit.outdatedValues()).containsExactly("Umbrella Labs");
        assertThat(hit.currentPart()).isNull();
    }

    @Test
    void shouldReadAHitOfAnOlderRetrieverAsCurrentAndShared() {
        final String json = """
            {"memoryId":"m-1","type":"SEMANTIC","content":"Lives in Berlin","score":0.9,"sources":[],"status":"ACTIVE",
             "reinforcementCount":1,"createdAt":"2025-01-06T09:00:00Z","updatedAt":"2025-01-06T09:00:00Z"}""";

        final Views.Hit hit = ClientTransport.convert(read(json), Views.Hit.class);

        assertThat(hit.outdated()).isFalse();
        assertThat(hit.validTo()).isNull();
        assertThat(hit.supersededBy()).isNull();
        assertThat(hit.agentId()).isNull();
        assertThat(hit.outdatedValues()).isNull();
        assertThat(hit.currentPart()).isNull();
        assertThat(hit.formerValues()).isNull();
    }

    private static com.fasterxml.jackson.databind.JsonNode read(final String json) {
        try {
            return new ObjectMapper().readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    /** A record's JSON names, in order, each with its type, nested views named by their simple name. */
    private static Map<String, String> fields(final Class<?> record) {
        return Arrays.stream(record.getRecordComponents()).collect(Collectors.toMap(RecordComponent::getName,
            c -> typeName(c.getGenericType()), (a, b) -> a, java.util.LinkedHashMap::new));
    }

    private static String typeName(final Type type) {
        if (type instanceof ParameterizedType p) {
            return ((Class<?>) p.getRawType()).getSimpleName() + Arrays.stream(p.getActualTypeArguments())
                .map(ViewsContractTest::typeName).collect(Collectors.joining(",", "<", ">"));
        }
        return ((Class<?>) type).getSimpleName();
    }
}
