package dev.engram.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.UserProfile;
import dev.engram.port.Embedder;
import dev.engram.port.ExtractedMemory;
import dev.engram.port.MemoryExtractor;

/**
 * A test extractor standing in for a slow LLM: one episodic memory per conversation (its first
 * message), each call blocking until the test opens that conversation's gate; a conversation id
 * containing {@code fail} throws {@link ExtractionException}. Plus a tiny embedder, so ordering tests
 * need no model.
 */
final class GatedExtractor implements MemoryExtractor {

    /** A deterministic 4-dimension embedder. */
    static final Embedder EMBEDDER = new Embedder() {
        @Override
        public String modelName() {
            return "test-embedder";
        }

        @Override
        public int dimensions() {
            return 4;
        }

        @Override
        public List<float[]> embedAll(final List<String> texts) {
            final List<float[]> out = new ArrayList<>();
            texts.forEach(t -> out.add(new float[] {1, 0, 0, 0}));
            return out;
        }
    };

    final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    final Map<String, Boolean> started = new ConcurrentHashMap<>();

    CountDownLatch gate(final String conversationId) {
        return gates.computeIfAbsent(conversationId, k -> new CountDownLatch(1));
    }

    @Override
    public String name() {
        return "gated";
    }

    @Override
    public List<ExtractedMemory> extract(final ConversationCompleted conversation, final UserProfile profile) {
        started.put(conversation.getConversationId(), true);
        try {
            gate(conversation.getConversationId()).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExtractionException("interrupted");
        }
        if (conversation.getConversationId().contains("fail")) {
            throw new ExtractionException("scripted failure");
        }
        return List.of(new ExtractedMemory(MemoryType.EPISODIC, null, null, null, null,
            conversation.getMessages().get(0).getContent(), false, 0.6, 0.8, MemorySource.EXPLICIT, List.of(0),
            conversation.getCompletedAt()));
    }
}
