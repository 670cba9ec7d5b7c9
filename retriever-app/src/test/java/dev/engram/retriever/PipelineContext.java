package dev.engram.retriever;

import dev.engram.config.EngramConfig;
import dev.engram.domain.DomainConfig;
import dev.engram.port.Embedder;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;
import dev.engram.testing.PipelineHarness;

/** The context block of a pipeline's user as {@code GET .../context} packs it: the default ranking of max k, then the block. */
final class PipelineContext {

    private PipelineContext() {
    }

    /**
     * @param embedder the query's embedding model
     * @param pipeline the pipeline, its retriever's read model holding the user's memories
     * @param userKey {@code tenant/user}
     * @param message the message the block is for
     * @param budget the token budget
     * @return the block
     */
    static ContextBlock.Result of(final Embedder embedder, final PipelineHarness pipeline, final String userKey,
                                  final String message, final int budget) {
        final HybridScorer scorer = new HybridScorer(embedder, EngramConfig.defaults());
        return ContextBlock.build(scorer.rank(RankRequest.of(message, EngramConfig.defaults().getInt(DomainConfig.MAX_K))
            .memories(pipeline.retriever().memories(userKey))), budget);
    }
}
