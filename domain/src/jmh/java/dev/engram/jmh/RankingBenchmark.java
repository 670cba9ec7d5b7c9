package dev.engram.jmh;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.embedder.ScriptRoutedEmbedder;
import dev.engram.port.Embedder;
import dev.engram.scoring.Bm25;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.ScoredMemory;
import dev.engram.scoring.UserMemoryIndex;
import dev.engram.scoring.Vectors;
import dev.engram.serde.AvroSerdes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import dev.engram.scoring.RankRequest;

/**
 * JMH of the retriever's hot paths over one user's memories, at 100 / 1,000 / 10,000 memories
 * ({@code mvn -B -Pjmh -pl topology -am verify -DskipTests}; average time per operation, µs):
 *
 * <ul>
 *   <li>{@code lexicalIndexAndScore}: {@link Bm25#index} over every memory's content and one query's scores, what a
 *       request costs when the lexical index is rebuilt per request;</li>
 *   <li>{@code lexicalScore}: one query's {@link Bm25#scores} on an index built once;</li>
 *   <li>{@code denseCosine}: the query's cosine against every memory vector ({@link Vectors#cosine}, primitive arrays);</li>
 *   <li>{@code rankExhaustive}: {@link HybridScorer#rank(String, float[], java.util.Collection, int)}, k = 10, with the
 *       query vector given (the embedding of the query is not timed): every memory scored;</li>
 *   <li>{@code rankIndexed}: {@link HybridScorer#rank(UserKey, UserMemoryIndex, String, int, double)}, k = 10, over the
 *       kept {@link UserMemoryIndex} of the same memories, what a retriever request costs after the query embedding
 *       (the query vector comes from the scorer's LRU: embedded once in the set-up, a cache hit in every call).
 *       It returns what {@code rankExhaustive} returns (checked in the set-up; IndexedRankingTest checks it on
 *       changing memories);</li>
 *   <li>{@code rankIndexedInPeriod}: the same for the query followed by "in May 2025", so the question's period is
 *       compared with every memory's dates (validFrom: the memories are spread over 2025).</li>
 * </ul>
 *
 * <p>The memories are synthetic and deterministic (seed 42): contents of 8–24 words drawn from a 2,000-word
 * vocabulary with a Zipf-like skew, as chat text is; unit vectors of 384 dimensions near the query's (cosine 0.5–0.8) under the default model
 * (cosines with the query around 0.5, as bge-small's are, so most memories are candidates as on real users); ACTIVE, spread over a year. The query is 6 words of the
 * same vocabulary.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RankingBenchmark {

    /** Memories of the one user. */
    @Param({"100", "1000", "10000"})
    public int memories;

    private static final int DIMENSIONS = 384;
    private static final String[] VOCABULARY = vocabulary(2_000);

    private List<Memory> userMemories;
    private List<String> contents;
    private float[][] vectors;
    private Bm25 lexical;
    private HybridScorer scorer;
    private String query;
    private String periodQuery;
    private float[] queryVector;
    private UserMemoryIndex index;
    private static final UserKey USER = new UserKey("t1", "u1");

    /** Builds the memories, the prebuilt lexical index and the scorer (loads the default embedding model once). */
    @Setup(Level.Trial)
    public void setUp() {
        // the kept index copies memories (Avro's deep copy resolves the generated enums): trust them, as the serdes do
        AvroSerdes.trustGeneratedRecords();
        final Random random = new Random(42);
        final EngramConfig config = EngramConfig.defaults();
        final Embedder embedder = ScriptRoutedEmbedder.fromConfig(config);
        final String model = embedder.modelFor("text");
        final Instant start = Instant.parse("2025-01-01T00:00:00Z");
        scorer = new HybridScorer(embedder, config);
        query = sentence(random, 6);
        periodQuery = query + " in May 2025";
        // the scorer's own (cached) query vector: the exhaustive path gets it too, so both rank the same input
        queryVector = scorer.queryVector(query, model);
        userMemories = new ArrayList<>(memories);
        contents = new ArrayList<>(memories);
        vectors = new float[memories][];
        for (int i = 0; i < memories; i++) {
            final String content = sentence(random, 8 + random.nextInt(17));
            final float[] vector = nearQuery(random);
            final Instant at = start.plusSeconds(random.nextInt(365 * 86_400));
            contents.add(content);
            vectors[i] = vector;
            userMemories.add(Memory.newBuilder().setMemoryId("m-" + i).setTenantId("t1").setUserId("u1")
                .setType(MemoryType.EPISODIC).setContent(content).setImportance(random.nextDouble())
                .setConfidence(0.9).setSource(MemorySource.EXPLICIT).setStatus(MemoryStatus.ACTIVE)
                .setCreatedAt(at).setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at).setValidFrom(at)
                .setAccessCount(random.nextInt(3))
                .setSources(List.of(new SourceRef("c-" + i, List.of(0), at)))
                .setEmbedding(Vectors.toList(vector)).setEmbeddingModel(model).build());
        }
        lexical = Bm25.index(contents);
        index = new UserMemoryIndex();
        userMemories.forEach(index::put);
        final List<ScoredMemory> indexed = scorer.rank(RankRequest.of(query, 10).index(USER, index));
        final List<ScoredMemory> exhaustive = scorer.rank(RankRequest.of(query, 10).memories(userMemories).queryVector(queryVector));
        if (!ids(indexed).equals(ids(exhaustive))) {
            throw new IllegalStateException("the kept index ranks differently: " + ids(indexed) + " vs " + ids(exhaustive));
        }
    }

    private static List<String> ids(final List<ScoredMemory> hits) {
        return hits.stream().map(h -> h.memory().getMemoryId()).toList();
    }

    /** @return the scores of one query over an index built for this request */
    @Benchmark
    public double[] lexicalIndexAndScore() {
        return Bm25.index(contents).scores(query);
    }

    /** @return the scores of one query over the prebuilt index */
    @Benchmark
    public double[] lexicalScore() {
        return lexical.scores(query);
    }

    /** @return the best cosine (so the loop is not dead code) */
    @Benchmark
    public double denseCosine() {
        double best = -1;
        for (final float[] vector : vectors) {
            best = Math.max(best, Vectors.cosine(queryVector, vector));
        }
        return best;
    }

    /** @return the top 10 of every memory ranked */
    @Benchmark
    public List<ScoredMemory> rankExhaustive() {
        return scorer.rank(RankRequest.of(query, 10).memories(userMemories).queryVector(queryVector));
    }

    /** @return the top 10 from the kept index (query vector from the LRU) */
    @Benchmark
    public List<ScoredMemory> rankIndexed() {
        return scorer.rank(RankRequest.of(query, 10).index(USER, index));
    }

    /** @return the top 10 from the kept index for a question naming a period (every memory's dates compared) */
    @Benchmark
    public List<ScoredMemory> rankIndexedInPeriod() {
        return scorer.rank(RankRequest.of(periodQuery, 10).index(USER, index));
    }

    private static String[] vocabulary(final int size) {
        final Random random = new Random(7);
        final String[] words = new String[size];
        for (int i = 0; i < size; i++) {
            final StringBuilder word = new StringBuilder();
            final int length = 3 + random.nextInt(7);
            for (int c = 0; c < length; c++) {
                word.append((char) ('a' + random.nextInt(26)));
            }
            words[i] = word.toString();
        }
        return words;
    }

    /** Words drawn with probability ~ 1 / rank (a Zipf-like skew). */
    private static String sentence(final Random random, final int words) {
        final StringBuilder out = new StringBuilder();
        for (int w = 0; w < words; w++) {
            final int index = (int) Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(random.nextDouble()
                * Math.log(VOCABULARY.length)))) ;
            out.append(w == 0 ? "" : " ").append(VOCABULARY[index]);
        }
        return out.toString();
    }

    /**
     * A unit vector whose cosine with the query is spread around 0.5, as bge-small's cosines of unrelated chat
     * texts are (random vectors would sit near 0, under {@code retrieval.min.relevance}, and skip the candidate heap).
     */
    private float[] nearQuery(final Random random) {
        final float[] v = new float[DIMENSIONS];
        final double weight = 0.6 + 0.6 * random.nextDouble();
        double norm = 0;
        for (int i = 0; i < DIMENSIONS; i++) {
            v[i] = (float) (weight * queryVector[i] + random.nextGaussian() / Math.sqrt(DIMENSIONS));
            norm += v[i] * v[i];
        }
        final float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < DIMENSIONS; i++) {
            v[i] *= scale;
        }
        return v;
    }
}
