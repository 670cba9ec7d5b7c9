package dev.engram.scoring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a question that asks several things at once ("Which editor and what snacks?"), each ranked on its
 * own: a memory's relevance to the question is the best of its relevance to the whole question and to each part.
 *
 * <p>Why: the calibrated relevance ({@link RelevanceModel}) of a memory that answers one part is diluted by the other
 * part's words in one query vector and one BM25 query ("Uses VS Code as IDE": 0.0045 for "Which editor?", 0.00078 for
 * "Which editor and what snacks?", under {@code retrieval.min.relevance} 0.002), though a memory that answers a part
 * holds evidence for the question: the probability that it does is at least its probability for that part, so the
 * maximum over the parts is the estimate (a disjunction of the parts' evidence, as a multi-part document is scored by
 * its best part in {@link ObservationLift}).
 *
 * <p><b>What is a part.</b> English coordinated questions only: the question is cut before a wh-word (what, which,
 * who, whom, whose, where, when, why, how) that follows "and" or "or" (after an optional comma), or a ";" or "?"
 * (optionally followed by "and"/"or"); a piece is a part when it is a question of its own: it begins with its only
 * wh-word and holds a content term ({@link TextAnalysis}); a piece that is not joins its neighbour ("When and where did
 * we meet?" stays whole: "When" holds no content term; so does "When I was taking photos in Mount Yuntai, what trouble
 * did I encounter and who helped me?": its first piece is a clause and a question, and "who helped me?" alone would
 * rank every memory of someone helping by the part that lost the place). A part that names no period ({@link TimeCues}) takes the whole question's: "On May 6th,
 * which books did I read and what did you recommend?" asks both about that day. A question of one part is ranked as
 * it always was. Stateless.
 */
final class QueryParts {

    private static final String WH = "(?:what|which|who|whom|whose|where|when|why|how)\\b";
    /** Before a coordinated wh-question: "… and what", "…, or which", "…? What", "…; and how". */
    private static final Pattern BOUNDARY = Pattern.compile(
        "(?:\\s*[;?]\\s*(?:(?:and|or)\\s+)?|,?\\s+(?:and|or)\\s+)(?=" + WH + ")", Pattern.CASE_INSENSITIVE);
    private static final Pattern HAS_WH = Pattern.compile("\\b" + WH, Pattern.CASE_INSENSITIVE);

    private QueryParts() {
    }

    /**
     * One text a memory's relevance is computed for.
     *
     * @param text the whole question or one part of it
     * @param terms its analyzed terms ({@link TextAnalysis#terms})
     * @param period the period it names (a part without one: the whole question's), or null
     * @param vectors embedding model → its normalised vector (null when not held)
     * @param dense memory id → cosine from a dense index for it, or null for exact cosines
     */
    record Part(String text, List<String> terms, TimeCues.Period period, Function<String, float[]> vectors,
                Map<String, Double> dense) {
    }

    /**
     * @param query a question
     * @return the question alone, or the question then its parts when it asks two things or more
     */
    static List<String> texts(final String query) {
        final List<int[]> spans = new ArrayList<>();
        final Matcher m = BOUNDARY.matcher(query);
        int start = 0;
        while (m.find()) {
            if (m.start() > start) {
                spans.add(new int[] {start, m.start()});
            }
            start = m.end();
        }
        if (spans.isEmpty()) {
            return List.of(query);
        }
        spans.add(new int[] {start, query.length()});
        // a piece that is not a question of its own joins its neighbour (the one before it, the first the one after)
        for (int i = 0; i < spans.size() && spans.size() > 1; ) {
            if (isPart(query.substring(spans.get(i)[0], spans.get(i)[1]))) {
                i++;
                continue;
            }
            final int with = i == 0 ? 1 : i - 1;
            final int[] joined = {spans.get(Math.min(i, with))[0], spans.get(Math.max(i, with))[1]};
            spans.set(Math.min(i, with), joined);
            spans.remove(Math.max(i, with));
            i = Math.max(0, Math.min(i, with));
        }
        if (spans.size() < 2) {
            return List.of(query);
        }
        final List<String> out = new ArrayList<>(spans.size() + 1);
        out.add(query);
        spans.forEach(span -> out.add(query.substring(span[0], span[1]).strip()));
        return List.copyOf(out);
    }

    /**
     * @param query a question
     * @param whole the question's vector per embedding model
     * @param embed (part, model) → the part's normalised vector, or null when the model is not held
     * @param dense a part's vectors → its dense-index cosines, or null without a dense index
     * @return the question and its parts ({@link #texts}), each with its terms, period and vectors
     */
    static List<Part> of(final String query, final Function<String, float[]> whole,
                         final BiFunction<String, String, float[]> embed,
                         final Function<Function<String, float[]>, Map<String, Double>> dense) {
        final List<String> texts = texts(query);
        final TimeCues.Period asked = TimeCues.in(query).orElse(null);
        final List<Part> out = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            final String text = texts.get(i);
            final Function<String, float[]> vectors = i == 0 ? whole : model -> embed.apply(text, model);
            out.add(new Part(text, TextAnalysis.terms(text), i == 0 ? asked : TimeCues.in(text).orElse(asked), vectors,
                dense == null ? null : dense.apply(vectors)));
        }
        return List.copyOf(out);
    }

    /** A question of its own: it begins with its only wh-word and holds a content term. */
    private static boolean isPart(final String piece) {
        final String question = piece.strip();
        final Matcher wh = HAS_WH.matcher(question);
        return wh.find() && wh.start() == 0 && !wh.find() && !TextAnalysis.terms(question).isEmpty();
    }
}
