package dev.engram.retriever;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.consolidation.OutdatedPart;
import dev.engram.port.ExtractedMemory;
import dev.engram.safety.SafetyFacts;
import dev.engram.scoring.ScoredMemory;
import dev.engram.text.MemoryText;

/**
 * Builds the prompt block of {@code GET .../context}: the best memories for the message, grouped by
 * type and category, within a token budget.
 *
 * <p>Layout (Markdown-ish, one memory per line, sections in a fixed order, lines within a section in
 * score order):
 * <pre>
 * Known facts about the user:
 * ## TECHNICAL
 * - Uses Kotlin for backend work
 * How the user wants to be served:
 * - Prefers short answers
 * Relevant past conversations:
 * ## 2025-04-01
 * - Asked about the gym locker
 * Earlier, no longer current:
 * - I live in Lisbon and cycle to work (2025-01-08 until 2025-03-02)
 * </pre>
 * A memory that states what stopped being true (ACTIVE with a {@code validTo}: the fact it states was superseded,
 * corrected, deleted or negated, {@code Outdated} in the consolidator) is never told as current: it goes to the
 * last section with the time it held, so the model reads the old value as history. What of it the change did not
 * reach ({@link OutdatedPart#currentPart}: "I love sushi" of "I love sushi, any good places in Lisbon?" after a move from
 * Lisbon) is told as current too, on a line of its own under its section, before the whole memory as past.
 * Evidence per token: every heading (a fact category, an episode's day) is written once for its group;
 * a memory whose text is already in the block (a turn that an exchange episode quotes, the same
 * sentence stored twice) is left out — its sources are those of the line that holds it — except a safety fact
 * ({@link SafetyFacts#isSafety}) or a pinned memory: its line stays under its own heading (## CONSTRAINT) whatever
 * longer line (an observation under ## OTHER) states it too.
 * Tokens are estimated as ceil(characters / 4), the usual rule of thumb for English text with
 * BPE tokenizers (OpenAI's tokenizer guide: "one token ≈ 4 characters"); no tokenizer is loaded, so
 * the estimate is model-independent and may be off by ~20% for code or non-English text.
 *
 * <p><b>Packing.</b> The pinned memories first, in the order given; then the hits greedily in order of
 * {@code score / tokens^}{@value #DENSITY_EXPONENT} (ties in rank order), where tokens is the estimate of the
 * memory's line, at least {@value #MIN_LINE_TOKENS}: the greedy rule of the knapsack problem (value per weight,
 * Dantzig 1957), damped by the exponent so that relevance still leads. In plain rank order one long line (an
 * observation of 16 statements runs ~490 tokens, a session summary ~150) takes the room of several shorter ones just
 * below it; with value per token outright (exponent 1) the block fills with short lines of little relevance. On
 * LoCoMo dev (evidence recall of the block, {@code bench quality}) the exponent 0.3 was best on the LLM path
 * (0.25, 0.35, 0.4 and 0.5 measured beside it) and the offline figures rose with it too; see docs/ARCHITECTURE.md
 * for the figures. A memory that does not fit (with its heading, if new) is skipped and later ones may still fit.
 * What is packed is then told in rank order (the same lines, so the same length), and {@link Result#included} is in
 * rank order.
 */
public final class ContextBlock {

    private static final String FACTS = "Known facts about the user:";
    private static final String PROCEDURES = "How the user wants to be served:";
    private static final String EPISODES = "Relevant past conversations:";
    /** Memories that state what stopped being true (ACTIVE with {@code validTo}): told as past, never as current. */
    static final String EARLIER = "Earlier, no longer current:";
    /** An episode of fewer words than this keeps the question it answered in the block ({@link #said}). */
    static final int SHORT_TURN_WORDS = 12;
    /** The exponent of a line's tokens in the packing order, score / tokens^exponent (class comment). */
    static final double DENSITY_EXPONENT = 0.3;
    /** A line's tokens count as at least this in the packing order: a two-word line is not worth eight times more. */
    static final int MIN_LINE_TOKENS = 8;

    /**
     * The result.
     *
     * @param text the block (empty when nothing fits)
     * @param estimatedTokens its estimated tokens
     * @param included the memories in it, score order
     */
    public record Result(String text, int estimatedTokens, List<String> included) {
    }

    private ContextBlock() {
    }

    /**
     * @param text any text
     * @return ceil(chars / 4)
     */
    public static int estimateTokens(final String text) {
        return (text.length() + 3) / 4;
    }

    /**
     * @param hits scored memories, best first
     * @param budgetTokens the budget, ≥ 1
     * @return the block within the budget
     */
    public static Result build(final List<ScoredMemory> hits, final int budgetTokens) {
        return build(List.of(), hits, budgetTokens);
    }

    /**
     * The block with memories that must be in it whatever the ranking says (the user's safety facts for a message
     * about food, health, travel or plans: {@link dev.engram.safety.SafetyFacts}): they are added first, in the order
     * given, then the ranked hits; a hit already pinned is not repeated. A pinned memory that does not fit the budget
     * is left out like any other.
     *
     * @param pinned memories to add before the hits, in order
     * @param hits scored memories, best first
     * @param budgetTokens the budget, ≥ 1
     * @return the block within the budget
     */
    public static Result build(final List<Memory> pinned, final List<ScoredMemory> hits, final int budgetTokens) {
        final List<Memory> memories = new ArrayList<>(pinned);
        final java.util.Set<String> ids = new java.util.HashSet<>();
        pinned.forEach(m -> ids.add(m.getMemoryId()));
        final List<ScoredMemory> ranked = hits.stream().filter(h -> !ids.contains(h.memory().getMemoryId())).toList();
        ranked.forEach(h -> memories.add(h.memory()));
        // a memory's lines are read up to three times below (its density, then each packing): made once per request,
        // since OutdatedPart#currentPart and the small-talk patterns of #said were a quarter of a block's CPU with
        // 20 outdated memories among 100 hits (BENCHMARKS.md, "retrieval")
        final Map<Memory, List<Part>> lines = new java.util.IdentityHashMap<>();
        final java.util.function.Function<Memory, List<Part>> parts = m -> lines.computeIfAbsent(m, ContextBlock::parts);
        final double[] density = new double[ranked.size()];
        final List<Integer> order = new ArrayList<>(ranked.size());
        for (int i = 0; i < ranked.size(); i++) {
            final Memory m = ranked.get(i).memory();
            final int tokens = parts.apply(m).stream().mapToInt(p -> estimateTokens(p.line())).sum();
            density[i] = ranked.get(i).score() / Math.pow(Math.max(MIN_LINE_TOKENS, tokens), DENSITY_EXPONENT);
            order.add(i);
        }
        order.sort(java.util.Comparator.comparingDouble((Integer i) -> -density[i])); // stable: ties in rank order
        final List<Memory> byDensity = new ArrayList<>(pinned);
        order.forEach(i -> byDensity.add(ranked.get(i).memory()));
        final java.util.Set<String> held = new java.util.HashSet<>(ids);
        memories.stream().filter(SafetyFacts.DEFAULT::isSafety).forEach(m -> held.add(m.getMemoryId()));
        final Packed chosen = pack(byDensity, budgetTokens, held, parts);
        // told in rank order: the same memories, each line as the block would write it in that order (a memory another
        // one quotes is then left out or replaced), unless that order no longer fits them all (it may say more: a
        // line is replaced only by a later one of its own section)
        final java.util.Set<String> in = java.util.Set.copyOf(chosen.result().included());
        final Packed told = pack(memories.stream().filter(m -> in.contains(m.getMemoryId())).toList(), budgetTokens, held,
            parts);
        if (!told.leftOut()) {
            return told.result();
        }
        final List<String> inRankOrder = memories.stream().map(Memory::getMemoryId).filter(in::contains).distinct().toList();
        return new Result(chosen.result().text(), chosen.result().estimatedTokens(), inRankOrder);
    }

    /**
     * @param result the block
     * @param leftOut whether a memory was left out for want of room (not for being said already)
     */
    private record Packed(Result result, boolean leftOut) {
    }

    /**
     * @param held the memories whose lines no other line stands for ({@link Line#held}): the pinned and the safety facts
     * @param parts a memory's lines ({@link #parts}), made once per request
     */
    private static Packed pack(final List<Memory> memories, final int budgetTokens, final java.util.Set<String> held,
                               final java.util.function.Function<Memory, List<Part>> parts) {
        Block block = new Block();
        final List<String> included = new ArrayList<>();
        String rendered = "";
        boolean leftOut = false;
        for (final Memory m : memories) {
            final boolean kept = held.contains(m.getMemoryId());
            Block attempt = block;
            for (final Part part : parts.apply(m)) {
                final String key = normalized(part.said());
                if (!key.isEmpty() && !attempt.says(key, kept)) { // else nothing new for the model: the block says it
                    attempt = attempt.with(part.section(), part.sub(), new Line(part.line(), key, kept));
                }
            }
            if (attempt == block) {
                continue;
            }
            final String next = attempt.render();
            if (estimateTokens(next) <= budgetTokens) {
                block = attempt;
                rendered = next;
                included.add(m.getMemoryId());
            } else {
                leftOut = true;
            }
        }
        return new Packed(new Result(rendered, estimateTokens(rendered), included), leftOut);
    }

    /**
     * A line a memory gives the block.
     *
     * @param section its section heading
     * @param sub its sub-heading ({@code ""} for none)
     * @param said what it says of the memory
     * @param line the line as written ({@code "- "}, and for a past one the time it held)
     */
    private record Part(String section, String sub, String said, String line) {
    }

    /**
     * @return the lines of a memory: one under its section; a memory outdated in part ({@link OutdatedPart#currentPart})
     *     two, what it still says under its own section, then the whole memory under {@link #EARLIER}
     */
    private static List<Part> parts(final Memory m) {
        final String whole = said(m);
        if (m.getValidTo() == null) {
            return List.of(new Part(section(m), sub(m), whole, line(m, whole)));
        }
        final Part past = new Part(EARLIER, "", whole, line(m, whole));
        final String current = OutdatedPart.currentPart(m);
        return current == null ? List.of(past)
            : List.of(new Part(section(m), sub(m), current, "- " + current.strip().replace('\n', ' ')), past);
    }

    /** @return the section of a current memory's line */
    private static String section(final Memory m) {
        return switch (m.getType()) {
            case SEMANTIC -> FACTS;
            case PROCEDURAL -> PROCEDURES;
            case EPISODIC -> EPISODES;
        };
    }

    /** @return the sub-heading of a current memory's line: a fact's category, an episode's day */
    private static String sub(final Memory m) {
        return switch (m.getType()) {
            case SEMANTIC -> "## " + (ApiViews.categoryOf(m) == null ? "OTHER" : ApiViews.categoryOf(m));
            case EPISODIC -> "## " + m.getValidFrom().toString().substring(0, 10);
            case PROCEDURAL -> "";
        };
    }

    /**
     * What the block says of a memory: its content, an episode's in fewer words.
     * <ul>
     *   <li>An episode's own words without the {@code (re: "…")} question it answered ({@link MemoryText#ownWords})
     *       unless they are fewer than {@value #SHORT_TURN_WORDS} words ("Luna and Oliver!" says little without "How are
     *       your pets?"); the question costs tokens a longer turn does not need.</li>
     *   <li>Without its small talk ({@link MemoryText#withoutSmallTalk}: greetings, thanks, reactions; a yes or a no is
     *       kept), and an exchange's reply without its questions too: the user's next turn carries the question it
     *       answers, and a question of the assistant's states nothing about the user. Who said what stays:
     *       {@code User: … — Assistant: …}.</li>
     * </ul>
     */
    static String said(final Memory m) {
        if (m.getType() != MemoryType.EPISODIC || ExtractedMemory.isSummary(m.getType(), m.getDisplayName())) {
            return m.getContent();
        }
        if (ExtractedMemory.isExchange(m.getDisplayName())) {
            final MemoryText.Exchange exchange = MemoryText.Exchange.parse(m.getContent());
            return exchange == null ? m.getContent() : new MemoryText.Exchange(MemoryText.withoutSmallTalk(exchange.turn(), false),
                MemoryText.withoutSmallTalk(exchange.reply(), true)).content();
        }
        final String own = MemoryText.withoutSmallTalk(MemoryText.ownWords(m.getContent()), false);
        final String question = MemoryText.context(m.getContent());
        return question.isEmpty() || own.split("\\s+").length >= SHORT_TURN_WORDS ? own : own + " " + question;
    }

    private static String line(final Memory m, final String said) {
        final String text = "- " + said.strip().replace('\n', ' ');
        return m.getValidTo() == null ? text
            : text + " (" + m.getValidFrom().toString().substring(0, 10) + " until " + m.getValidTo().toString().substring(0, 10) + ")";
    }

    /** @return the text lower-cased with whitespace and punctuation runs folded to one space */
    private static String normalized(final String content) {
        return content == null ? "" : content.toLowerCase(java.util.Locale.ROOT)
            .replaceAll("[\\p{P}\\p{S}\\s]+", " ").strip();
    }

    /**
     * A line of the block: its text and the normalized text it says ({@link #normalized}).
     *
     * @param held a safety fact's line (or a pinned memory's): told under its own heading whatever other line says it
     *     too, so a longer line that quotes it (an observation under {@code ## OTHER}) neither replaces it nor stands
     *     for it; the block tells what must not be missed first, under its category (docs/api.md)
     */
    private record Line(String text, String key, boolean held) {
    }

    /**
     * The block's lines by section heading, then sub-heading ({@code ""} for none), in insertion order. Immutable:
     * {@link #with} returns a new block, so a line that does not fit leaves the block as it was.
     */
    private record Block(Map<String, Map<String, List<Line>>> sections) {

        Block() {
            this(emptySections());
        }

        private static Map<String, Map<String, List<Line>>> emptySections() {
            final Map<String, Map<String, List<Line>>> sections = new LinkedHashMap<>();
            for (final String heading : List.of(FACTS, PROCEDURES, EPISODES, EARLIER)) {
                sections.put(heading, new LinkedHashMap<>());
            }
            return sections;
        }

        /**
         * @param held whether the line to add is held ({@link Line#held}): only another held line says it then
         * @return true when a line already says {@code key} (its key holds it)
         */
        boolean says(final String key, final boolean held) {
            return sections.values().stream().flatMap(subs -> subs.values().stream()).flatMap(List::stream)
                .anyMatch(l -> (l.held() || !held) && l.key().contains(key));
        }

        /**
         * @return this block with {@code line} added under its headings, and without the lines of the same section
         *     that it says word for word (a turn that an exchange or an observation added later quotes): the block
         *     says each thing once, and the memory of a line left out is still told, by the line that holds it
         */
        Block with(final String section, final String sub, final Line line) {
            final Map<String, Map<String, List<Line>>> next = new LinkedHashMap<>();
            sections.forEach((heading, subs) -> {
                final Map<String, List<Line>> copy = new LinkedHashMap<>();
                subs.forEach((s, lines) -> {
                    final List<Line> kept = heading.equals(section)
                        ? lines.stream().filter(l -> l.held() || !line.key().contains(l.key())).toList() : lines;
                    if (!kept.isEmpty()) {
                        copy.put(s, new ArrayList<>(kept));
                    }
                });
                next.put(heading, copy);
            });
            next.get(section).computeIfAbsent(sub, s -> new ArrayList<>()).add(line);
            return new Block(next);
        }

        String render() {
            final StringBuilder out = new StringBuilder();
            sections.forEach((heading, subs) -> {
                if (subs.isEmpty()) {
                    return;
                }
                out.append(heading).append('\n');
                subs.forEach((sub, lines) -> {
                    if (!sub.isEmpty()) {
                        out.append(sub).append('\n');
                    }
                    lines.forEach(l -> out.append(l.text()).append('\n'));
                });
            });
            return out.toString();
        }
    }
}
