package dev.engram.cases;

import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.CommandKind;
import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCommand;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Agent scope (mem0's {@code agent_id}) on the whole offline pipeline: a conversation's {@code agentId} travels to its
 * memories, except the user's keyed facts (the profile), which every agent of the user shares; erasing the user erases
 * every agent's memories.
 */
class AgentScopeCasesTest {

    private static ConversationCompleted withAgent(final String agent, final ConversationCompleted conversation) {
        return ConversationCompleted.newBuilder(conversation).setAgentId(agent).build();
    }

    @Test
    void shouldKeepWhatEachAgentWasToldApartAndShareTheUsersFacts() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(withAgent("travel", conversation("t1", "u1", "c-travel",
                user("I live in Braga. I am planning a two week trip to Kyoto in April with my sister.",
                    "2025-03-01T08:00:00Z"))));
            pipeline.publish(withAgent("coding", conversation("t1", "u1", "c-coding",
                user("I am rewriting the billing service with Kotlin coroutines and it keeps deadlocking.",
                    "2025-03-02T08:00:00Z"))));

            final List<Memory> memories = pipeline.retriever().active("t1/u1");
            assertThat(memories).filteredOn(m -> "city".equals(m.getKey())).singleElement()
                .satisfies(city -> assertThat(city.getAgentId()).isNull());
            assertThat(memories).filteredOn(m -> m.getContent().contains("Kyoto")).isNotEmpty()
                .allMatch(m -> "travel".equals(m.getAgentId()));
            assertThat(memories).filteredOn(m -> m.getContent().contains("billing")).isNotEmpty()
                .allMatch(m -> "coding".equals(m.getAgentId()));
            assertThat(pipeline.retriever().profile("t1/u1").getFacts()).containsKey("city");
        }
    }

    @Test
    void shouldEraseTheMemoriesOfEveryAgentWhenTheUserIsErased() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(withAgent("travel", conversation("t1", "u1", "c-travel",
                user("I am planning a two week trip to Kyoto in April with my sister.", "2025-03-01T08:00:00Z"))));
            pipeline.publish(withAgent("coding", conversation("t1", "u1", "c-coding",
                user("I am rewriting the billing service with Kotlin coroutines.", "2025-03-02T08:00:00Z"))));
            assertThat(pipeline.retriever().memories("t1/u1")).extracting(Memory::getAgentId)
                .contains("travel", "coding");

            pipeline.command(MemoryCommand.newBuilder().setCommandId("erase-1").setTenantId("t1").setUserId("u1")
                .setKind(CommandKind.ERASE).setMemoryId(null).setContent(null).setValue(null).setMemoryEnabled(null)
                .setActor("test").setIssuedAt(Instant.parse("2025-03-03T00:00:00Z")).build());

            assertThat(pipeline.retriever().memories("t1/u1")).isEmpty();
            assertThat(pipeline.consolidator().memories("t1/u1")).isEmpty();
        }
    }
}
