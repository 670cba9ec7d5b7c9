package dev.engram.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.FactCategory;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.Extraction;
import dev.engram.port.TenantPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The LLM path under a tenant's settings, against {@link StubChatServer}: what the prompt and schema say, what comes back. */
class LlmTenantSettingsTest {

    private static final String MEDICATION = "{\"memories\":[{\"type\":\"SEMANTIC\",\"category\":\"medications\","
        + "\"key\":\"medications:amlodipine\",\"value\":\"5 mg daily\",\"content\":\"Takes 5 mg of amlodipine daily\","
        + "\"importance\":0.8,\"confidence\":0.9,\"source\":\"EXPLICIT\",\"evidence\":[0]}]}";
    private static final TenantPolicy HEALTH = new TenantPolicy("health", Instant.EPOCH,
        List.of(new TenantPolicy.Category("medications", "Medicines the user takes, with doses",
            List.of("mg", "amlodipine"), 365)),
        "Keep every dose exactly as the user said it.", Set.of(FactCategory.PERSONAL), null, null);

    private StubChatServer server;
    private LlmMemoryExtractor extractor;

    @BeforeEach
    void start() throws Exception {
        server = StubChatServer.start(4);
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        extractor = new LlmMemoryExtractor(new ChatCompletionsClient(LlmSettings.of(server.baseUrl(), "stub-model")
            .withResilience(Duration.ofSeconds(5), 3, Duration.ofMillis(5), Duration.ofSeconds(1)), registry, "test"),
            registry, "test");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ConversationCompleted conversation(final String tenant, final String... texts) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            messages.add(Message.newBuilder().setIndex(i).setRole(i % 2 == 0 ? "user" : "assistant")
                .setContent(texts[i]).setTimestamp(Instant.parse("2025-05-02T10:00:00Z").plusSeconds(i)).build());
        }
        return ConversationCompleted.newBuilder().setTenantId(tenant).setUserId("u1").setConversationId("c-1")
            .setMessages(messages).setCompletedAt(Instant.parse("2025-05-02T10:05:00Z")).build();
    }

    private static String system(final JsonNode request) {
        return request.path("messages").get(0).path("content").asText();
    }

    private static List<String> categoryEnum(final JsonNode request) {
        final List<String> out = new ArrayList<>();
        request.path("response_format").path("json_schema").path("schema").path("properties").path("memories")
            .path("items").path("properties").path("category").path("enum").forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void shouldPutTheTenantsCategoriesAndInstructionsIntoThePromptAndSchemaWhenItHasSettings() {
        server.script(StubChatServer.Reply.content(MEDICATION), StubChatServer.Reply.content("{\"memories\":[]}"));

        final Extraction health = extractor.extract(conversation("health", "I take 5 mg of amlodipine daily."), null,
            HEALTH);
        extractor.extract(conversation("shop", "I take 5 mg of amlodipine daily."), null, TenantPolicy.none("shop"));

        final JsonNode withSettings = server.requests().get(0);
        assertThat(system(withSettings))
            .contains("- medications: Medicines the user takes, with doses (e.g. mg, amlodipine)")
            .contains("Do not keep facts of these categories: PERSONAL.")
            .contains("Instructions from the platform:\nKeep every dose exactly as the user said it.");
        assertThat(categoryEnum(withSettings)).contains("medications", "TECHNICAL").doesNotContain("PERSONAL");
        final JsonNode without = server.requests().get(1);
        assertThat(system(without)).doesNotContain("medications").doesNotContain("Instructions from the platform");
        assertThat(categoryEnum(without)).contains("PERSONAL").doesNotContain("medications");

        final ExtractedMemory medication = health.memories().get(0);
        assertThat(medication.customCategory()).isEqualTo("medications");
        assertThat(medication.category()).isNull();
        assertThat(medication.key()).isEqualTo("medications:amlodipine");
    }

    @Test
    void shouldNotFileAFactUnderACategoryOfAnotherTenant() {
        server.script(StubChatServer.Reply.content(MEDICATION));

        final Extraction shop = extractor.extract(conversation("shop", "I take 5 mg of amlodipine daily."), null,
            TenantPolicy.none("shop"));

        // "medications" is no category of this tenant: the item is dropped as a bad category, never filed under it
        assertThat(shop.memories()).noneMatch(m -> "medications".equals(m.customCategory()));
    }
}
