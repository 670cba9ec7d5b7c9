package dev.engram.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.avro.UserProfile;
import org.junit.jupiter.api.Test;

/** The extractor port's two entry points: an implementation overrides one, the other's default calls it. */
class MemoryExtractorTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final ConversationCompleted CONVERSATION = ConversationCompleted.newBuilder().setTenantId("acme")
        .setUserId("alice").setConversationId("c1").setCompletedAt(T0)
        .setMessages(List.of(Message.newBuilder().setIndex(0).setRole("user").setContent("I live in Berlin").setTimestamp(T0).build()))
        .build();

    private static ExtractedMemory statement(final String content) {
        return new ExtractedMemory(MemoryType.EPISODIC, null, null, null, null, content, false, 0.5, 0.9,
            MemorySource.EXPLICIT, List.of(0), T0, null, null, null);
    }

    @Test
    void shouldWrapTheMemoriesWithTheExtractorsNameAndNoUsageWhenOnlyTheSimpleCallIsImplemented() {
        final MemoryExtractor simple = new MemoryExtractor() {
            @Override
            public String name() {
                return "simple-v1";
            }

            @Override
            public List<ExtractedMemory> extract(final ConversationCompleted conversation, final UserProfile profile) {
                return List.of(statement(conversation.getMessages().get(0).getContent().toString()));
            }
        };

        final Extraction extraction = simple.extract(CONVERSATION, null, TenantPolicy.none("acme"));

        assertThat(extraction.extractor()).isEqualTo("simple-v1");
        assertThat(extraction.memories()).extracting(ExtractedMemory::content).containsExactly("I live in Berlin");
        assertThat(extraction.usage()).isEqualTo(Extraction.Usage.NONE);
    }

    @Test
    void shouldPassTheTenantsEmptyPolicyWhenOnlyThePolicyCallIsImplemented() {
        final List<TenantPolicy> seen = new ArrayList<>();
        final MemoryExtractor tenantAware = new MemoryExtractor() {
            @Override
            public String name() {
                return "tenant-aware-v1";
            }

            @Override
            public Extraction extract(final ConversationCompleted conversation, final UserProfile profile,
                                      final TenantPolicy policy) {
                seen.add(policy);
                return new Extraction(name(), List.of(statement("x")), new Extraction.Usage(1, 10, 5));
            }
        };

        assertThat(tenantAware.extract(CONVERSATION, null)).extracting(ExtractedMemory::content).containsExactly("x");
        assertThat(seen).singleElement().satisfies(policy -> {
            assertThat(policy.tenantId()).isEqualTo("acme");
            assertThat(policy.isDefault()).isTrue();
        });
    }
}
