package dev.engram.scoring;

import java.util.List;

import dev.engram.avro.Memory;

/**
 * Copies of a {@link Memory} that do not deep-copy its embedding (Avro's builder copies every field, and an
 * embedding is hundreds of boxed floats): what the retriever's {@link UserMemoryIndex} holds (a memory without
 * its embedding) and what the materializer writes back (a memory sharing its embedding list).
 */
public final class MemoryCopies {

    private MemoryCopies() {
    }

    /**
     * A copy of a memory without its embedding, made without first copying the embedding's boxed floats
     * (Avro's builder deep-copies every field): see {@link #builderSharingEmbedding}.
     *
     * @param memory a memory the calling thread owns (the stream thread's decoded record)
     * @return the copy, with an empty embedding
     */
    public static Memory withoutEmbedding(final Memory memory) {
        return builderSharingEmbedding(memory, List.of()).build();
    }

    /**
     * A builder of a copy of a memory that carries {@code embedding} (the same list, not a copy), made without
     * deep-copying the memory's own embedding: it is set aside while Avro's builder copies the other fields,
     * and put back. Embedding lists are never changed in place once a record is built, so two records may
     * share one.
     *
     * @param memory a memory the calling thread owns (it is changed and restored during the call)
     * @param embedding the copy's embedding, e.g. {@code memory.getEmbedding()} or an empty list
     * @return a builder holding the copy
     */
    public static Memory.Builder builderSharingEmbedding(final Memory memory, final List<Float> embedding) {
        final List<Float> own = memory.getEmbedding();
        memory.setEmbedding(List.of());
        try {
            return Memory.newBuilder(memory).setEmbedding(embedding);
        } finally {
            memory.setEmbedding(own);
        }
    }
}
