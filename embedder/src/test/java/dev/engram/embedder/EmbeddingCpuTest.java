package dev.engram.embedder;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class EmbeddingCpuTest {

    /** Runs {@code work} on a thread of that name and waits for it. */
    private static void onThread(final String name, final Runnable work) throws InterruptedException {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread = new Thread(work, name);
        thread.setUncaughtExceptionHandler((t, e) -> failure.set(e));
        thread.start();
        thread.join(120_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
    }

    @Test
    void shouldCountThePoolsCpuTimeForTheThreadThatAskedWhenTextsAreEmbeddedInBatches() throws Exception {
        final OnnxEmbedder embedder = OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN);
        final String caller = "engram-consolidator-test-StreamThread-" + System.nanoTime();
        onThread(caller, () -> embedder.embedAll(List.of("Mira went camping by the lake.",
            "Mira cooked over a campfire.", "Mira hiked to the ridge at dawn.")));
        assertThat(EmbeddingCpu.byCaller().getOrDefault(caller, 0L)).as("three texts on the pool").isPositive();
        assertThat(EmbeddingCpu.inline()).as("none on the caller's own thread").doesNotContainKey(caller);
    }

    @Test
    void shouldCountAnInlineEmbeddingForTheCallerAndAsInlineWhenOneTextIsEmbedded() throws Exception {
        final OnnxEmbedder embedder = OnnxEmbedder.shared(OnnxModel.BGE_SMALL_EN);
        final String caller = "engram-retriever-test-request-" + System.nanoTime();
        onThread(caller, () -> embedder.embedQuery("where did Mira camp?", embedder.modelName()));
        final long inline = EmbeddingCpu.inline().getOrDefault(caller, 0L);
        assertThat(inline).isPositive();
        assertThat(EmbeddingCpu.byCaller().get(caller)).isEqualTo(inline);
    }
}
