package dev.engram.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import dev.engram.port.ExtractedMemory;

/**
 * Precision and recall of an extractor's facts on the {@link FactSet}, matched on (key, value).
 *
 * <p>Per turn, the facts the extractor returns ({@link ExtractedMemory#isFact()}: a key and a value) are compared
 * with the turn's labelled facts about the user. Both sides are normalized: key and value lower-cased, whitespace
 * runs folded, leading and trailing punctuation dropped; a retraction ({@code negated}) is part of the fact, so
 * "No longer lives in Boston" only matches a negated {@code city=Boston}. Duplicates count once. Then
 * <ul>
 *   <li>true positives = extracted ∩ labelled, false positives = extracted − labelled, misses = labelled − extracted;</li>
 *   <li>precision = TP / (TP + FP) (1 when nothing was extracted), recall = TP / (TP + misses) (1 when nothing was
 *       labelled), F1 their harmonic mean, micro-averaged over the turns of a group;</li>
 *   <li>{@code otherPeople}: false positives that are a labelled fact of someone else in the same turn (the sister's
 *       city read as the user's);</li>
 *   <li>{@code categoryAgreement}: of the true positives, the share whose category is the labelled one.</li>
 * </ul>
 * Figures are given for the whole set and by split, language and kind ({@link FactSet}).
 */
final class FactScore {

    /** One wrong or missed fact, for the report's list of misses. */
    record Miss(String id, String split, String text, List<String> missed, List<String> extra) {
    }

    /** Counts of one group. */
    static final class Tally {
        private int turns;
        private int tp;
        private int fp;
        private int fn;
        private int otherPeople;
        private int categoryAgree;

        /** @return TP / (TP + FP), 1 when nothing was extracted */
        double precision() {
            return tp + fp == 0 ? 1.0 : (double) tp / (tp + fp);
        }

        /** @return TP / (TP + FN), 1 when nothing was labelled */
        double recall() {
            return tp + fn == 0 ? 1.0 : (double) tp / (tp + fn);
        }

        /** @return the harmonic mean of precision and recall */
        double f1() {
            final double p = precision();
            final double r = recall();
            return p + r == 0 ? 0 : 2 * p * r / (p + r);
        }

        Map<String, Object> figures() {
            final Map<String, Object> f = new LinkedHashMap<>();
            f.put("turns", turns);
            f.put("labelled", tp + fn);
            f.put("extracted", tp + fp);
            f.put("truePositives", tp);
            f.put("precision", BenchReport.round(precision(), 3));
            f.put("recall", BenchReport.round(recall(), 3));
            f.put("f1", BenchReport.round(f1(), 3));
            f.put("otherPeople", otherPeople);
            f.put("categoryAgreement", BenchReport.round(tp == 0 ? 1.0 : (double) categoryAgree / tp, 3));
            return f;
        }

        private void add(final int dtp, final int dfp, final int dfn, final int other, final int agree) {
            turns++;
            tp += dtp;
            fp += dfp;
            fn += dfn;
            otherPeople += other;
            categoryAgree += agree;
        }
    }

    /**
     * The score of one extractor.
     *
     * @param all the whole set
     * @param groups by split, language and kind ({@code split:held-out}, {@code lang:zh}, {@code kind:pets})
     * @param misses every turn with a missed or wrong fact, set order
     */
    record Result(Tally all, Map<String, Tally> groups, List<Miss> misses) {

        /** @return the JSON block: overall figures, then {@code groups}, then the first misses */
        Map<String, Object> figures(final int maxMisses) {
            final Map<String, Object> f = new LinkedHashMap<>(all.figures());
            final Map<String, Object> g = new LinkedHashMap<>();
            groups.forEach((name, tally) -> g.put(name, tally.figures()));
            f.put("groups", g);
            f.put("misses", misses.stream().limit(maxMisses).map(m -> Map.of("id", m.id(), "text", m.text(),
                "missed", m.missed(), "extra", m.extra())).toList());
            return f;
        }
    }

    private FactScore() {
    }

    /**
     * @param sentences the labelled turns
     * @param extractor the facts an extractor gives for one turn (facts only are scored)
     * @return the score
     */
    static Result score(final List<FactSet.Sentence> sentences,
                        final Function<FactSet.Sentence, List<ExtractedMemory>> extractor) {
        final Tally all = new Tally();
        final Map<String, Tally> groups = new TreeMap<>();
        final List<Miss> misses = new ArrayList<>();
        for (final FactSet.Sentence s : sentences) {
            final Map<String, String> expected = new LinkedHashMap<>();
            for (final FactSet.Expected e : s.userFacts()) {
                expected.put(id(e.key(), e.value(), e.negated()), e.category());
            }
            final Set<String> others = new LinkedHashSet<>();
            s.facts().stream().filter(e -> !e.aboutUser()).forEach(e -> others.add(id(e.key(), e.value(), e.negated())));
            final Map<String, String> extracted = new LinkedHashMap<>();
            for (final ExtractedMemory m : extractor.apply(s)) {
                if (m.isFact()) {
                    extracted.putIfAbsent(id(m.key(), m.value(), m.negated()),
                        m.category() == null ? "" : m.category().name());
                }
            }
            int tp = 0;
            int agree = 0;
            final List<String> extra = new ArrayList<>();
            int other = 0;
            for (final Map.Entry<String, String> x : extracted.entrySet()) {
                if (expected.containsKey(x.getKey())) {
                    tp++;
                    agree += expected.get(x.getKey()).equals(x.getValue()) ? 1 : 0;
                } else {
                    extra.add(x.getKey());
                    other += others.contains(x.getKey()) ? 1 : 0;
                }
            }
            final List<String> missed = expected.keySet().stream().filter(k -> !extracted.containsKey(k)).toList();
            final int t = tp;
            final int a = agree;
            final int o = other;
            for (final Tally tally : List.of(all, group(groups, "split:" + s.split()), group(groups, "lang:" + s.lang()),
                group(groups, "kind:" + s.kind()))) {
                tally.add(t, extra.size(), missed.size(), o, a);
            }
            if (!missed.isEmpty() || !extra.isEmpty()) {
                misses.add(new Miss(s.id(), s.split(), s.text(), missed, List.copyOf(extra)));
            }
        }
        return new Result(all, groups, misses);
    }

    private static Tally group(final Map<String, Tally> groups, final String name) {
        return groups.computeIfAbsent(name, n -> new Tally());
    }

    /** @return {@code key=value}, or {@code !key=value} for a retraction, both normalized */
    static String id(final String key, final String value, final boolean negated) {
        return (negated ? "!" : "") + normalize(key) + "=" + normalize(value);
    }

    private static String normalize(final String text) {
        return text == null ? "" : text.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ")
            .replaceAll("^[\\p{P}\\s]+|[\\p{P}\\s]+$", "");
    }
}
