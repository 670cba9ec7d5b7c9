package dev.engram.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.UserKey;
import dev.engram.retriever.OwnNames;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RelevanceModel;
import dev.engram.scoring.ScoredMemory;
import dev.engram.port.KindPrior;
import dev.engram.port.MemoryKind;
import dev.engram.scoring.RankRequest;

/**
 * Fits {@link RelevanceModel} on LoCoMo: for every question and every ACTIVE memory of the asked
 * user, the features (cosine, BM25 / idf mass, in the named period) as {@link HybridScorer#features}
 * computes them and the label "one of the memory's source turns is an evidence turn"; then, per
 * embedding model of the memories, logistic regression by iteratively reweighted least squares
 * (Newton's method on the log-likelihood, with a tiny ridge term 1e-6 for stability), i.e. Platt
 * scaling of the signals. Reports each model's coefficients and a reliability table (predicted vs
 * observed rate per bin of predicted relevance).
 */
final class RelevanceCalibration {

    private static final double[] BINS = {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0000001};
    private static final int FEATURES = 3;
    /** Largest change of a coefficient in one Newton step (log-odds). */
    private static final double MAX_STEP = 1.0;

    private RelevanceCalibration() {
    }

    /**
     * One question asked of one user: the user's ACTIVE memories and which of them hold evidence.
     *
     * @param query the question as the retriever sees it (own names stripped)
     * @param memories the user's ACTIVE memories
     * @param relevant whether a memory holds evidence for the question
     */
    record Probe(String query, List<Memory> memories, Predicate<Memory> relevant) {
    }

    /**
     * @param samples the LoCoMo samples (questions with evidence)
     * @param memories user id → the memories Engram stored for that user
     * @return one probe per question and asked speaker with memories, a memory relevant when one of its
     *     source turns is an evidence turn
     */
    static List<Probe> locomo(final List<LoCoMoQa.Sample> samples, final Map<String, List<Memory>> memories) {
        final List<Probe> probes = new ArrayList<>();
        for (final LoCoMoQa.Sample sample : samples) {
            for (final LoCoMoQa.Question q : sample.questions()) {
                final Set<String> evidence = Set.copyOf(q.evidence());
                for (final String speaker : q.speakers()) {
                    final List<Memory> active = active(memories.getOrDefault(sample.userId(speaker), List.of()));
                    if (!active.isEmpty()) {
                        probes.add(new Probe(
                            OwnNames.strip(q.question(), new UserKey("locomo", sample.userId(speaker)), null), active,
                            m -> LoCoMoRecall.sources(sample, m).stream().anyMatch(evidence::contains)));
                    }
                }
            }
        }
        return probes;
    }

    /**
     * @param tenant the tenant the MemoryBank users were ingested under
     * @param questions MemoryBank questions with their evidence items
     * @param memories user id → the memories Engram stored for that user
     * @return one probe per question, a memory relevant when it cites a message of an evidence item
     */
    static List<Probe> memoryBank(final String tenant, final List<MemoryBankQuality.Question> questions,
                                  final Map<String, List<Memory>> memories) {
        final List<Probe> probes = new ArrayList<>();
        for (final MemoryBankQuality.Question q : questions) {
            final List<Memory> active = active(memories.getOrDefault(q.user(), List.of()));
            final Set<String> evidence = new HashSet<>();
            q.items().forEach(i -> evidence.addAll(i.messages()));
            if (!active.isEmpty()) {
                probes.add(new Probe(OwnNames.strip(q.text(), new UserKey(tenant, q.user()), null), active,
                    m -> MemoryBankQuality.sources(m).stream().anyMatch(evidence::contains)));
            }
        }
        return probes;
    }

    private static List<Memory> active(final List<Memory> memories) {
        return memories.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE).toList();
    }

    /**
     * @param probes questions with their users' memories and labels
     * @param scorer the ranking whose features are fitted (its embedder embeds the questions)
     * @return {@code {model, coefficients, pairs, positives, periodPairs, reliability}} of the first model's
     *     fit, and {@code byModel}: the same per embedding model met
     */
    static Map<String, Object> fit(final List<Probe> probes, final HybridScorer scorer) {
        final Map<String, List<double[]>> x = new LinkedHashMap<>();
        final Map<String, List<Boolean>> y = new HashMap<>();
        for (final Probe probe : probes) {
            final double[][] f = scorer.features(probe.query(), probe.memories());
            for (int i = 0; i < probe.memories().size(); i++) {
                final Memory m = probe.memories().get(i);
                final String model = String.valueOf(m.getEmbeddingModel());
                x.computeIfAbsent(model, k -> new ArrayList<>()).add(f[i]);
                y.computeIfAbsent(model, k -> new ArrayList<>()).add(probe.relevant().test(m));
            }
        }
        final Map<String, Object> byModel = new LinkedHashMap<>();
        for (final Map.Entry<String, List<double[]>> e : x.entrySet()) {
            byModel.put(e.getKey(), fitOne(e.getKey(), e.getValue(), y.get(e.getKey())));
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        if (!byModel.isEmpty() && byModel.values().iterator().next() instanceof Map<?, ?> first) {
            first.forEach((k, v) -> out.put(String.valueOf(k), v));
        }
        out.put("byModel", byModel);
        return out;
    }

    private static Map<String, Object> fitOne(final String modelName, final List<double[]> x, final List<Boolean> y) {
        final double[] beta = irls(x, y);
        final RelevanceModel model = new RelevanceModel(beta[0], beta[1], beta[2], beta[3]);
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("model", modelName);
        out.put("coefficients", model.toString());
        out.put("pairs", x.size());
        out.put("positives", y.stream().filter(b -> b).count());
        out.put("periodPairs", x.stream().filter(r -> r[2] > 0).count());
        final List<Map<String, Object>> reliability = new ArrayList<>();
        for (int b = 0; b + 1 < BINS.length; b++) {
            long n = 0;
            long positive = 0;
            double predicted = 0;
            for (int i = 0; i < x.size(); i++) {
                final double p = RelevanceModel.probability(model.logit(x.get(i)[0], x.get(i)[1], x.get(i)[2] > 0));
                if (p >= BINS[b] && p < BINS[b + 1]) {
                    n++;
                    predicted += p;
                    positive += y.get(i) ? 1 : 0;
                }
            }
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("bin", String.format(Locale.ROOT, "%.2f-%.2f", BINS[b], Math.min(1, BINS[b + 1])));
            row.put("pairs", n);
            row.put("meanPredicted", n == 0 ? 0 : BenchReport.round(predicted / n, 4));
            row.put("observed", n == 0 ? 0 : BenchReport.round((double) positive / n, 4));
            reliability.add(row);
        }
        out.put("reliability", reliability);
        return out;
    }

    /**
     * Logistic regression y ~ σ(b0 + Σ b_j·x_j) by Newton–Raphson (IRLS).
     *
     * @param x per pair the {@value #FEATURES} features
     * @param y per pair the label
     * @return b0 … b_{@value #FEATURES}
     */
    static double[] irls(final List<double[]> x, final List<Boolean> y) {
        final List<double[]> rows = new ArrayList<>(x.size());
        for (final double[] features : x) {
            final double[] row = new double[FEATURES + 1];
            row[0] = 1;
            System.arraycopy(features, 0, row, 1, FEATURES);
            rows.add(row);
        }
        return logistic(rows, null, y);
    }

    /**
     * Logistic regression y ~ σ(offset + Σ b_j·row_j) by Newton–Raphson (IRLS), with a tiny ridge term 1e-6 and
     * steps of at most {@value #MAX_STEP} per coefficient.
     *
     * @param rows per pair the design row (a leading 1 for an intercept is the caller's)
     * @param offset per pair a fixed term of the logit (slope 1, not fitted), or null for none
     * @param y per pair the label
     * @return b per column of the rows
     */
    static double[] logistic(final List<double[]> rows, final double[] offset, final List<Boolean> y) {
        final int n = rows.isEmpty() ? 0 : rows.get(0).length;
        final double[] beta = new double[n];
        for (int iteration = 0; iteration < 200; iteration++) {
            final double[] gradient = new double[n];
            final double[][] hessian = new double[n][n];
            for (int i = 0; i < rows.size(); i++) {
                final double[] row = rows.get(i);
                double logit = offset == null ? 0 : offset[i];
                for (int a = 0; a < n; a++) {
                    logit += beta[a] * row[a];
                }
                final double p = RelevanceModel.probability(logit);
                final double residual = (y.get(i) ? 1 : 0) - p;
                final double w = Math.max(p * (1 - p), 1e-12);
                for (int a = 0; a < n; a++) {
                    gradient[a] += residual * row[a];
                    for (int b = 0; b < n; b++) {
                        hessian[a][b] += w * row[a] * row[b];
                    }
                }
            }
            for (int a = 0; a < n; a++) {
                hessian[a][a] += 1e-6;
            }
            final double[] step = solve(hessian, gradient);
            double change = 0;
            for (int a = 0; a < n; a++) {
                change = Math.max(change, Math.abs(step[a]));
            }
            // a damped step: a full Newton step from far off (large fixed offsets) can overshoot and diverge
            final double scale = change > MAX_STEP ? MAX_STEP / change : 1;
            for (int a = 0; a < n; a++) {
                beta[a] += scale * step[a];
            }
            if (change < 1e-8) {
                break;
            }
        }
        return beta;
    }

    /**
     * Fits {@link KindPrior}: for every probe, the best {@code pool} hits of the ranking without a kind prior (what
     * a list of {@code pool / overfetch} re-orders, {@link HybridScorer#forList}); then logistic regression of
     * "holds evidence" on the hit's relevance logit (an offset, slope 1) and one indicator per {@link MemoryKind}
     * other than {@link MemoryKind#STATEMENT}, whose b_kind is 0 (the common intercept is dropped: the prior moves
     * kinds against each other, not the scale of relevance).
     *
     * @param probes the questions
     * @param scorer ranks a probe's memories (its kind prior is not used by {@code rank})
     * @param pool hits per probe, ≥ 1
     * @return {@code kindPrior} (configuration text), {@code pairs}, {@code positives} and per kind {@code byKind}
     *     (pairs, positives, b)
     */
    static Map<String, Object> fitKindPrior(final List<Probe> probes, final HybridScorer scorer, final int pool) {
        final List<MemoryKind> kinds = List.of(MemoryKind.values());
        final List<double[]> rows = new ArrayList<>();
        final List<Double> offsets = new ArrayList<>();
        final List<Boolean> y = new ArrayList<>();
        final Map<MemoryKind, long[]> counts = new EnumMap<>(MemoryKind.class);
        for (final Probe probe : probes) {
            for (final ScoredMemory hit : scorer.rank(RankRequest.of(probe.query(), pool).memories(probe.memories()))) {
                final MemoryKind kind = MemoryKind.of(hit.memory());
                final double[] row = new double[kinds.size()];
                row[0] = 1; // the intercept in STATEMENT's column
                if (kind != MemoryKind.STATEMENT) {
                    row[kind.ordinal()] = 1;
                }
                final boolean relevant = probe.relevant().test(hit.memory());
                rows.add(row);
                offsets.add(RelevanceModel.logitOf(Math.min(1 - 1e-12, Math.max(1e-12, hit.semantic()))));
                y.add(relevant);
                final long[] c = counts.computeIfAbsent(kind, k -> new long[2]);
                c[0]++;
                c[1] += relevant ? 1 : 0;
            }
        }
        // a kind never met has no column to fit: leave it out of the design (b_kind 0)
        final List<Integer> columns = new ArrayList<>();
        columns.add(0);
        for (final MemoryKind kind : kinds) {
            if (kind != MemoryKind.STATEMENT && counts.containsKey(kind)) {
                columns.add(kind.ordinal());
            }
        }
        final List<double[]> design = new ArrayList<>(rows.size());
        for (final double[] row : rows) {
            final double[] d = new double[columns.size()];
            for (int c = 0; c < d.length; c++) {
                d[c] = row[columns.get(c)];
            }
            design.add(d);
        }
        final double[] offset = offsets.stream().mapToDouble(Double::doubleValue).toArray();
        final double[] beta = logistic(design, offset, y);
        final Map<MemoryKind, Double> fitted = new EnumMap<>(MemoryKind.class);
        for (int c = 1; c < columns.size(); c++) {
            fitted.put(kinds.get(columns.get(c)), BenchReport.round(beta[c], 2));
        }
        final KindPrior prior = new KindPrior(fitted);
        final Map<String, Object> byKind = new LinkedHashMap<>();
        counts.forEach((kind, c) -> byKind.put(kind.configName(),
            Map.of("pairs", c[0], "positives", c[1], "b", prior.offset(kind))));
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("kindPrior", prior.toString());
        out.put("pairs", rows.size());
        out.put("positives", y.stream().filter(b -> b).count());
        out.put("byKind", byKind);
        return out;
    }

    /** Gaussian elimination with partial pivoting on an n×n system. */
    private static double[] solve(final double[][] a, final double[] b) {
        final int n = b.length;
        final double[][] m = new double[n][n + 1];
        for (int i = 0; i < n; i++) {
            System.arraycopy(a[i], 0, m[i], 0, n);
            m[i][n] = b[i];
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
                    pivot = r;
                }
            }
            final double[] tmp = m[col];
            m[col] = m[pivot];
            m[pivot] = tmp;
            for (int r = 0; r < n; r++) {
                if (r != col) {
                    final double factor = m[r][col] / m[col][col];
                    for (int c = col; c <= n; c++) {
                        m[r][c] -= factor * m[col][c];
                    }
                }
            }
        }
        final double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = m[i][n] / m[i][i];
        }
        return out;
    }
}
