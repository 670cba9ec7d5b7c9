package dev.engram.ops;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.engram.port.Embedder;

/**
 * A second embedding model for tests of {@code reembed}: 64 dimensions, deterministic (token hashes
 * into buckets, L2-normalized). Registered through {@code META-INF/services} in test resources.
 */
public final class HashEmbedderProvider implements EmbedderProvider {

    /** The model name. */
    public static final String MODEL = "hash-test-64";

    @Override
    public String model() {
        return MODEL;
    }

    @Override
    public Embedder create() {
        return new Embedder() {
            @Override
            public String modelName() {
                return MODEL;
            }

            @Override
            public int dimensions() {
                return 64;
            }

            @Override
            public List<float[]> embedAll(final List<String> texts) {
                return texts.stream().map(HashEmbedderProvider::embed).toList();
            }
        };
    }

    static float[] embed(final String text) {
        final float[] v = new float[64];
        for (final String token : text.toLowerCase(java.util.Locale.ROOT).split("\\W+")) {
            if (!token.isEmpty()) {
                v[Math.floorMod(java.util.Arrays.hashCode(token.getBytes(StandardCharsets.UTF_8)), 64)] += 1f;
            }
        }
        double norm = 0;
        for (final float x : v) {
            norm += x * x;
        }
        if (norm == 0) {
            v[0] = 1f;
            return v;
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= (float) Math.sqrt(norm);
        }
        return v;
    }
}
