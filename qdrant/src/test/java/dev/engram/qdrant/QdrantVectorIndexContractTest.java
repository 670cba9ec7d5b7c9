package dev.engram.qdrant;

import java.time.Duration;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.testing.VectorIndexContract;
import dev.engram.qdrant.testing.QdrantDouble;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The {@link VectorIndexContract} on {@link QdrantVectorIndex}, over the wire (gRPC, in-process) to
 * the {@link QdrantDouble}.
 */
class QdrantVectorIndexContractTest extends VectorIndexContract {

    @Override
    protected Subject subject() {
        final QdrantDouble qdrant = QdrantDouble.start();
        final Duration timeout = Duration.ofSeconds(5);
        final QdrantVectorIndex index = new QdrantVectorIndex(qdrant.client(timeout), "engram-memories",
            dev.engram.embedder.ScriptRoutedEmbedder.defaults().modelName(), timeout, DIMENSIONS, new SimpleMeterRegistry());
        index.ensureCollection();
        return new Subject() {
            @Override
            public VectorIndex index() {
                return index;
            }

            @Override
            public void write(final Memory memory) {
                index.upsert(memory);
            }

            @Override
            public void remove(final UserKey user, final String memoryId) {
                index.delete(user, memoryId);
            }

            @Override
            public void removeUser(final UserKey user) {
                index.deleteUser(user);
            }

            @Override
            public void close() {
                index.close();
                qdrant.close();
            }
        };
    }
}
