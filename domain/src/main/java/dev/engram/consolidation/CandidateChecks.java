package dev.engram.consolidation;

import java.util.List;
import java.util.Optional;

import dev.engram.avro.MemoryCandidate;
import dev.engram.core.UserKey;
import dev.engram.port.EmbeddingModels;

/** The checks a memory candidate passes before {@link Consolidator#decide}: {@link Consolidator#validate}. */
final class CandidateChecks {

    private CandidateChecks() {
    }

    /**
     * Checks a candidate before any decision. An invalid candidate goes to the dead-letter topic.
     *
     * @param settings the content size, embedding dimensions and Han model
     * @param recordKey the record key (must be the candidate's {@code tenant/user})
     * @param candidate the value, or null for a tombstone
     * @return the reason it is invalid, or empty when valid
     */
    static Optional<String> validate(final ConsolidatorSettings settings, final String recordKey,
                                     final MemoryCandidate candidate) {
        if (candidate == null) {
            return Optional.of("empty value: a memory candidate is required");
        }
        final UserKey user;
        try {
            user = UserKey.parse(recordKey);
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.of("invalid user key: " + e.getMessage());
        }
        if (!user.tenantId().equals(candidate.getTenantId()) || !user.userId().equals(candidate.getUserId())) {
            return Optional.of("record key does not match the candidate's tenantId/userId");
        }
        if (isBlank(candidate.getCandidateId()) || isBlank(candidate.getConversationId())) {
            return Optional.of("candidateId and conversationId are required");
        }
        if (isBlank(candidate.getContent())) {
            return Optional.of("content is missing or blank");
        }
        if (candidate.getContent().length() > settings.maxContentChars()) {
            return Optional.of("content longer than " + settings.maxContentChars() + " characters");
        }
        if ((candidate.getKey() == null) != (candidate.getValue() == null)
            || candidate.getKey() != null && (isBlank(candidate.getKey()) || isBlank(candidate.getValue()))) {
            return Optional.of("key and value go together and must not be blank");
        }
        if (!inUnitRange(candidate.getImportance()) || !inUnitRange(candidate.getConfidence())) {
            return Optional.of("importance and confidence must be numbers within 0..1");
        }
        final List<Float> embedding = candidate.getEmbedding();
        final int dimensions = expectedDimensions(settings, candidate.getEmbeddingModel());
        if (embedding.size() != dimensions) {
            return Optional.of("embedding of model " + candidate.getEmbeddingModel() + " has " + embedding.size()
                + " dimensions, expected " + dimensions);
        }
        double norm = 0;
        for (final Float v : embedding) {
            if (v == null || !Float.isFinite(v)) {
                return Optional.of("embedding contains a NaN or infinite value");
            }
            norm += (double) v * v;
        }
        if (norm == 0) {
            return Optional.of("embedding is the zero vector");
        }
        for (final Integer index : candidate.getSourceMessageIndexes()) {
            if (index == null || index < 0) {
                return Optional.of("sourceMessageIndexes must be non-negative");
            }
        }
        return Optional.empty();
    }

    /**
     * The vector size a candidate of a model must have: a built-in model's own size ({@link EmbeddingModels}), so
     * that after {@code bin/engram reembed} switches to a model of another size the candidates of either
     * model pass whatever {@code embedding.dimensions} says; else {@code embedding.han.dimensions} for the Han
     * model and {@code embedding.dimensions} for any other (a model served elsewhere).
     */
    static int expectedDimensions(final ConsolidatorSettings settings, final String model) {
        return EmbeddingModels.dimensions(model)
            .orElse(model.equals(settings.hanModel()) ? settings.hanDimensions() : settings.dimensions());
    }

    private static boolean inUnitRange(final double v) {
        return Double.isFinite(v) && v >= 0 && v <= 1;
    }

    private static boolean isBlank(final String s) {
        return s == null || s.isBlank();
    }
}
