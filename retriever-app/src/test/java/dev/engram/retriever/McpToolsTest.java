package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** What the MCP tools' text says beside their structured content. */
class McpToolsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldSayAnOutdatedSearchHitIsNoLongerCurrentInTheTextAndLeaveCurrentHitsAsTheyAre() throws Exception {
        // README trial: search_memories served the Umbrella Labs episode as a plain current hit
        final JsonNode body = JSON.readTree("{\"memories\":[{\"memoryId\":\"m-2\",\"content\":\"I work at Globex now.\","
            + "\"outdated\":false},{\"memoryId\":\"m-1\",\"content\":\"I work at Umbrella Labs.\",\"outdated\":true,"
            + "\"validTo\":\"2025-04-03T07:00:00Z\",\"supersededBy\":\"m-3\"}]}");
        final JsonNode text = JSON.readTree(McpTools.withOutdatedMarked(body));
        assertThat(text.get("memories").get(0).get("content").asText()).isEqualTo("I work at Globex now.");
        assertThat(text.get("memories").get(1).get("content").asText())
            .isEqualTo("I work at Umbrella Labs. (no longer current)");
        assertThat(text.get("memories").get(1).get("supersededBy").asText()).isEqualTo("m-3");
        // the structured content is the answer as is
        assertThat(body.get("memories").get(1).get("content").asText()).isEqualTo("I work at Umbrella Labs.");
    }
}
