package dev.engram.scoring;

import java.time.Instant;
import java.util.Collection;
import java.util.Objects;

import dev.engram.avro.Memory;
import dev.engram.core.UserKey;

/**
 * What {@link HybridScorer#rank(RankRequest)} ranks: a query and how many hits, over one user's memories either as a
 * kept index ({@link #index}: the fast path of the retriever) or as a collection decoded for this call
 * ({@link #memories}: tools, benchmarks, tests), with optional parts:
 * <ul>
 *   <li>{@link #minScore}: hits whose total is below it are dropped (0, the default, keeps all);</li>
 *   <li>{@link #asOf}: rank the memories valid at that point in event time instead of the ACTIVE ones (an audit read,
 *       exhaustive over that set);</li>
 *   <li>{@link #user}: the user scope of the dense vector index, when the scorer has one (over a collection);</li>
 *   <li>{@link #queryVector}: the query's embedding by the default model, computed by the caller (over a
 *       collection; other models' vectors are embedded on demand);</li>
 *   <li>{@link #forContext}: rank for a token-budgeted context block: an observation keeps its own relevance (no
 *       {@link ObservationLift}: it costs all its statements' tokens, and the block is judged per token).</li>
 * </ul>
 * Immutable: every method returns a new request.
 *
 * @param query the query text
 * @param k how many hits at most, at least 1
 * @param user whose memories these are, or null
 * @param index the user's kept search structures, or null
 * @param memories all memories of ONE user (any status), or null
 * @param queryVector the query embedded by the default model, or null
 * @param minScore the score floor, in [0, 1]
 * @param asOf the point in event time, or null for the ACTIVE memories now
 * @param context whether the hits fill a context block ({@link #forContext})
 */
public record RankRequest(String query, int k, UserKey user, UserMemoryIndex index, Collection<Memory> memories,
                          float[] queryVector, double minScore, Instant asOf, boolean context) {

    /**
     * @throws IllegalArgumentException when k is below 1, or both or neither of index and memories are given
     */
    public RankRequest {
        Objects.requireNonNull(query, "query");
        if (k < 1) {
            throw new IllegalArgumentException("k must be at least 1, was " + k);
        }
        if ((index == null) == (memories == null) && (index != null || memories != null)) {
            throw new IllegalArgumentException("rank either a kept index or a collection of memories, not both");
        }
    }

    /**
     * @param query the query text
     * @param k how many hits at most, at least 1
     * @return a request with nothing to rank yet: add {@link #index} or {@link #memories}
     */
    public static RankRequest of(final String query, final int k) {
        return new RankRequest(query, k, null, null, null, null, 0, null, false);
    }

    /**
     * @param owner whose index this is (the dense index's user scope)
     * @param kept the user's search structures
     * @return this request over a kept index
     */
    public RankRequest index(final UserKey owner, final UserMemoryIndex kept) {
        return new RankRequest(query, k, owner, Objects.requireNonNull(kept, "index"), null, queryVector, minScore, asOf, context);
    }

    /**
     * @param userMemories all memories of ONE user (any status)
     * @return this request over a collection, ranked exhaustively
     */
    public RankRequest memories(final Collection<Memory> userMemories) {
        return new RankRequest(query, k, user, null, Objects.requireNonNull(userMemories, "memories"), queryVector,
            minScore, asOf, context);
    }

    /**
     * @param owner whose memories these are: the user scope of the dense vector index
     * @return this request with a user
     */
    public RankRequest user(final UserKey owner) {
        return new RankRequest(query, k, owner, index, memories, queryVector, minScore, asOf, context);
    }

    /**
     * @param vector the query's embedding by the default model (normalised by the scorer)
     * @return this request with a precomputed query vector
     */
    public RankRequest queryVector(final float[] vector) {
        return new RankRequest(query, k, user, index, memories, vector, minScore, asOf, context);
    }

    /**
     * @param floor hits with a total below this are dropped
     * @return this request with a score floor
     */
    public RankRequest minScore(final double floor) {
        return new RankRequest(query, k, user, index, memories, queryVector, floor, asOf, context);
    }

    /**
     * @param when the point in event time
     * @return this request over the memories valid then
     */
    public RankRequest asOf(final Instant when) {
        return new RankRequest(query, k, user, index, memories, queryVector, minScore, when, context);
    }

    /**
     * @return this request ranking for a context block: observations are not lifted to their best statement
     *     ({@link ObservationLift})
     */
    public RankRequest forContext() {
        return new RankRequest(query, k, user, index, memories, queryVector, minScore, asOf, true);
    }
}
