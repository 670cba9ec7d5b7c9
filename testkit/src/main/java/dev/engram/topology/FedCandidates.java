package dev.engram.topology;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.config.EngramConfig;
import dev.engram.core.MemoryIds;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.scoring.SimilarityScale;
import dev.engram.scoring.Vectors;

/**
 * Builds memory candidates the way the extractor emits them (deterministic id from
 * {@link MemoryIds#candidateId}, the real MiniLM embedding of the content, the contract's fact
 * vocabulary), for tests that feed {@code memory-candidates} directly.
 */
final class FedCandidates {

    private static final Map<String, float[]> EMBEDDINGS = new ConcurrentHashMap<>();

    static {
        // Builders copying records (newBuilder(other)) run Avro's class allow-list before any Serde exists.
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private FedCandidates() {
    }

    /**
     * A keyed fact, importance 0.7, confidence 0.9, EXPLICIT, from message 0.
     *
     * @param user {@code tenant/user}
     * @param conversationId conversation
     * @param at event time, ISO-8601
     * @param key fact key of the extractor's vocabulary
     * @param value fact value
     * @param content the sentence
     * @return the candidate
     */
    static MemoryCandidate fact(final String user, final String conversationId, final String at,
                                final String key, final String value, final String content) {
        return base(user, conversationId, at, content)
            .setType("response_style".equals(key) ? MemoryType.PROCEDURAL : MemoryType.SEMANTIC)
            .setCategory(categoryOf(key)).setKey(key).setValue(value).build();
    }

    /**
     * An episodic memory (no key), importance 0.5, confidence 0.9.
     *
     * @param user {@code tenant/user}
     * @param conversationId conversation
     * @param at event time, ISO-8601
     * @param content the sentence
     * @return the candidate
     */
    static MemoryCandidate episodic(final String user, final String conversationId, final String at,
                                    final String content) {
        return base(user, conversationId, at, content).setType(MemoryType.EPISODIC).setImportance(0.5).build();
    }

    /**
     * @param text a sentence
     * @return its embedding by the default model (cached per JVM)
     */
    static float[] embed(final String text) {
        return EMBEDDINGS.computeIfAbsent(text, t -> ScriptRoutedEmbedder.defaults().embed(t));
    }

    /**
     * @param a a sentence
     * @param b a sentence
     * @return similarity of their embeddings by the default model, on the thresholds' scale
     *     ({@link SimilarityScale}, what the consolidator compares with {@code dedup.*})
     */
    static double cosine(final String a, final String b) {
        return SimilarityScale.fromConfig(EngramConfig.defaults())
            .similarity(ScriptRoutedEmbedder.defaults().modelName(), Vectors.cosine(embed(a), embed(b)));
    }

    private static MemoryCandidate.Builder base(final String user, final String conversationId, final String at,
                                                final String content) {
        final UserKey key = UserKey.parse(user);
        return MemoryCandidate.newBuilder()
            .setCandidateId(MemoryIds.candidateId(key.tenantId(), key.userId(), conversationId, content))
            .setTenantId(key.tenantId()).setUserId(key.userId()).setConversationId(conversationId)
            .setCategory(null).setKey(null).setValue(null).setDisplayName(null)
            .setContent(content).setNegated(false).setImportance(0.7).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setSourceMessageIndexes(List.of(0))
            .setEventTime(Instant.parse(at))
            .setEmbedding(Vectors.toList(embed(content)))
            .setEmbeddingModel(ScriptRoutedEmbedder.defaults().modelFor(content)).setExtractor("fed-by-test");
    }

    private static FactCategory categoryOf(final String key) {
        if (key.startsWith("preference:")) {
            return FactCategory.PREFERENCE;
        }
        if (key.startsWith("uses:")) {
            return FactCategory.TECHNICAL;
        }
        return switch (key) {
            case "preferred_language", "ide", "cloud_provider" -> FactCategory.TECHNICAL;
            case "city" -> FactCategory.PERSONAL;
            case "employer", "role" -> FactCategory.ROLE;
            case "diet" -> FactCategory.CONSTRAINT;
            case "response_style" -> FactCategory.PREFERENCE;
            default -> FactCategory.PERSONAL;
        };
    }
}
