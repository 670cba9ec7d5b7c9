package dev.engram.consolidation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.port.ExtractedMemory;
import dev.engram.scoring.SimilarityScale;
import dev.engram.scoring.TextAnalysis;
import dev.engram.scoring.Vectors;
import dev.engram.text.MemoryText;

/**
 * The two derivations behind {@link Observations}: the greedy grouping of one embedding model's statements
 * (by centroid similarity, in {@code createdAt} order) and the observation a group gives (which facts of it the text
 * leaves to the user's own words: {@link #restatedFacts}). Both are functions of
 * their input, so a replay gives the same groups and the same observations (see the class comment of
 * {@link Observations}). Stateless apart from its settings; thread-safe.
 */
final class ObservationGrouping {

    private final double threshold;
    private final int maxMembers;
    private final SimilarityScale scale;

    /**
     * @param threshold similarity ({@code scale}) from which a statement joins a group
     * @param maxMembers statements per group at most
     * @param scale puts each model's cosines on the threshold's scale
     */
    ObservationGrouping(final double threshold, final int maxMembers, final SimilarityScale scale) {
        this.threshold = threshold;
        this.maxMembers = maxMembers;
        this.scale = scale;
    }

    /** Greedy grouping of one model's statements (class comment), keyed by observation id, in order. */
    void group(final List<Memory> statements, final Map<String, List<Memory>> out) {
        final List<Memory> ordered = new ArrayList<>(statements);
        ordered.sort(Comparator.comparing(Memory::getCreatedAt).thenComparing(Memory::getMemoryId));
        final String model = ordered.get(0).getEmbeddingModel();
        final int dimensions = ordered.get(0).getEmbedding().size();
        final List<List<Memory>> members = new ArrayList<>();
        final List<float[]> sums = new ArrayList<>();
        final List<Double> sumNorms = new ArrayList<>();
        for (final Memory m : ordered) {
            if (m.getEmbedding().size() != dimensions) {
                continue;
            }
            final float[] v = Vectors.normalized(Vectors.toArray(m.getEmbedding()));
            int best = -1;
            double bestSimilarity = threshold;
            for (int g = 0; g < members.size(); g++) {
                if (members.get(g).size() >= maxMembers) {
                    continue;
                }
                final double norm = sumNorms.get(g);
                final double cosine = norm == 0 ? 0 : Vectors.dot(v, sums.get(g)) / norm;
                final double similarity = scale.similarity(model, cosine);
                if (similarity >= bestSimilarity) {
                    bestSimilarity = similarity;
                    best = g;
                }
            }
            if (best < 0) {
                members.add(new ArrayList<>(List.of(m)));
                sums.add(v);
                sumNorms.add(Math.sqrt(Vectors.dot(v, v)));
            } else {
                members.get(best).add(m);
                final float[] sum = sums.get(best);
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += v[i];
                }
                sumNorms.set(best, Math.sqrt(Vectors.dot(sum, sum)));
            }
        }
        for (final List<Memory> group : members) {
            if (group.size() >= 2) {
                out.put(Observations.idOf(group.get(0)), group);
            }
        }
    }

    /**
     * The observation of a group as its statements give it, with the access counters of {@code before}; its
     * vector is the {@link #centroid} of the statements its text voices.
     */
    static Memory observation(final String id, final List<Memory> group, final Memory before) {
        final ObservationText.Voiced voiced = ObservationText.voiced(group);
        return derived(id, group, before, voiced.text(), centroid(voiced.statements()),
            ExtractedMemory.OBSERVATION_DISPLAY_NAME, true);
    }

    /**
     * The facts of a group that another statement of it says in the user's words: a keyed statement whose value an
     * unkeyed statement of the same polarity names (letter case aside) and holds all the fact's content terms
     * ({@link TextAnalysis#terms}: stop words out, stemmed). Polarity is {@link Facts#isNegative}: "I never wanted a dog
     * named Max" does not say "Has a dog named Max". The rule extractor keeps a turn that names someone or somewhere as
     * an episode beside the fact it reads from it ("I have a dog named Max" and {@code pet:max} "Has a dog named Max"),
     * and both join one group; the observation tells the user's sentence, which says the fact and often more. The value
     * is looked for first, so the words are read only of the few statements that name it.
     *
     * @param statements the statements of a group, in order
     * @return index of each such fact → the indexes of the statements restating it (a new map, possibly empty)
     */
    static Map<Integer, List<Integer>> restatedFacts(final List<Memory> statements) {
        final Map<Integer, List<Integer>> out = new HashMap<>();
        final Map<Integer, Set<String>> words = new HashMap<>();
        for (int f = 0; f < statements.size(); f++) {
            final Memory fact = statements.get(f);
            if (fact.getKey() == null) {
                continue;
            }
            Set<String> terms = null;
            for (int i = 0; i < statements.size(); i++) {
                final Memory other = statements.get(i);
                if (other.getKey() != null || !names(other.getContent(), fact.getValue())
                    || Facts.isNegative(other.getContent()) != Facts.isNegative(fact.getContent())) {
                    continue;
                }
                terms = terms != null ? terms : terms(fact);
                if (!terms.isEmpty() && words.computeIfAbsent(i, k -> terms(other)).containsAll(terms)) {
                    out.computeIfAbsent(f, k -> new ArrayList<>()).add(i);
                }
            }
        }
        return out;
    }

    private static Set<String> terms(final Memory statement) {
        return new HashSet<>(TextAnalysis.terms(MemoryText.ownWords(statement.getContent())));
    }

    /** Whether the content holds the value, letter case aside (a fact without a value: any content). */
    private static boolean names(final String content, final String value) {
        final String v = value == null ? "" : value.strip();
        for (int i = 0; i + v.length() <= content.length(); i++) {
            if (content.regionMatches(true, i, v, 0, v.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The topic list's memory, as {@link #observation} with the list's content and statements (its vector the
     * {@link #centroid} of the statements naming a listed value), display name
     * {@link ExtractedMemory#TOPIC_LIST_DISPLAY_NAME} and no event dates (a list states none).
     */
    static Memory topicList(final String id, final TopicLists.TopicList list, final Memory before) {
        return derived(id, list.statements(), before, list.content(), centroid(list.statements()),
            ExtractedMemory.TOPIC_LIST_DISPLAY_NAME, false);
    }

    /**
     * The vector of an observation without a model call: the direction of the sum of its statements' normalised
     * vectors (the centroid the grouping compares with), normalised, summed in double precision in the statements'
     * order, so the same statements give the same floats on every run. A statement whose vector has another size
     * than the first's is left out.
     *
     * @param statements statements of ONE embedding model, with vectors, in order; at least one
     * @return the unit vector, as an Avro float list
     */
    static List<Float> centroid(final List<Memory> statements) {
        final int dimensions = statements.get(0).getEmbedding().size();
        final double[] sum = new double[dimensions];
        for (final Memory m : statements) {
            if (m.getEmbedding().size() != dimensions) {
                continue;
            }
            final float[] v = Vectors.normalized(Vectors.toArray(m.getEmbedding()));
            for (int i = 0; i < dimensions; i++) {
                sum[i] += v[i];
            }
        }
        double norm = 0;
        for (final double x : sum) {
            norm += x * x;
        }
        norm = Math.sqrt(norm);
        final float[] out = new float[dimensions];
        for (int i = 0; i < dimensions && norm > 0; i++) {
            out[i] = (float) (sum[i] / norm);
        }
        return Vectors.toList(out);
    }

    private static Memory derived(final String id, final List<Memory> group, final Memory before, final String content,
                                  final List<Float> vector, final String displayName, final boolean withDates) {
        final Memory first = group.get(0);
        Instant newest = first.getCreatedAt();
        double importance = 0;
        double confidence = 0;
        final Set<String> dates = new TreeSet<>();
        for (final Memory m : group) {
            newest = m.getCreatedAt().isAfter(newest) ? m.getCreatedAt() : newest;
            importance = Math.max(importance, m.getImportance());
            confidence = Math.max(confidence, m.getConfidence());
            if (withDates) {
                dates.addAll(m.getEventDates());
            }
        }
        final boolean hit = before != null && before.getAccessCount() > 0;
        return Memory.newBuilder(first).setMemoryId(id).setType(MemoryType.SEMANTIC).setCategory(null).setKey(null)
            .setValue(null).setDisplayName(displayName).setContent(content)
            .setImportance(importance).setConfidence(confidence).setSource(MemorySource.INFERRED)
            .setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(newest)
            .setUpdatedAt(newest)
            .setLastAccessedAt(hit ? before.getLastAccessedAt() : newest).setLastConfirmedAt(newest)
            .setAccessCount(hit ? before.getAccessCount() : 0).setReinforcementCount(group.size())
            .setExpiresAt(null).setValidFrom(newest).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(new ArrayList<>(sources(group)))
            .setEmbedding(vector)
            .setEmbeddingModel(first.getEmbeddingModel()).setEventDates(new ArrayList<>(dates)).build();
    }

    /**
     * Each statement's first source (the conversation that first said it, with the messages it cites there): what a
     * restatement in another conversation adds to the statement does not rewrite the observation.
     */
    private static Set<SourceRef> sources(final List<Memory> group) {
        final Set<SourceRef> out = new LinkedHashSet<>();
        for (final Memory m : group) {
            if (!m.getSources().isEmpty()) {
                out.add(m.getSources().get(0));
            }
        }
        return out;
    }
}
