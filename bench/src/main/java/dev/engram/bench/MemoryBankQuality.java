package dev.engram.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.engram.avro.Memory;
import dev.engram.avro.SourceRef;
import dev.engram.config.EngramConfig;
import dev.engram.core.UserKey;
import dev.engram.domain.DomainConfig;
import dev.engram.stack.MemoryBankSource;
import dev.engram.port.Embedder;
import dev.engram.retriever.ContextBlock;
import dev.engram.retriever.OwnNames;
import dev.engram.scoring.HybridScorer;
import dev.engram.scoring.RankRequest;

/**
 * {@code bench quality --dataset memorybank}: side-aware evidence recall on MemoryBank
 * ({@code ../shared/data/memorybank/FORMAT.md}) of Engram against dense, BM25 and RRF baselines over
 * the raw query/response pairs.
 *
 * <p><b>Side-aware recall.</b> Each probing question has hand-labelled evidence items
 * {@code (date, pair index, side)}. An item is found in a system's top k when the message on its side
 * is among the sources of those k results: {@code query} = the user's message of the pair,
 * {@code response} = the assistant's reply, {@code both} = both messages (from any of the k results).
 * recall@k = found items / items, averaged over questions with evidence. A memory made only from the
 * user's question therefore does not answer "what did you recommend to me?".
 *
 * <p><b>Baselines.</b> Each raw pair of the asked user is one document (query, newline, response)
 * whose sources are both messages, so every side counts for it: dense (the same embedder as Engram,
 * cosine), BM25 ({@link Bm25}, score &gt; 0) and their reciprocal-rank fusion (k = 60). Tokens as for
 * LoCoMo: top documents joined by newlines, {@link ContextBlock#estimateTokens}.
 *
 * <p><b>Categories</b> (the {@code byCategory} keys, as LoCoMo's figures have them): {@code "1"} = every
 * item is on the user's side; {@code "2"} = at least one item needs the assistant's reply.
 */
final class MemoryBankQuality {

    /** Category of a question answered by the user's own words. */
    static final int USER_SIDE = 1;
    /** Category of a question that needs the assistant's reply. */
    static final int ASSISTANT_SIDE = 2;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One evidence item: the messages that must be among the sources.
     *
     * @param id a name unique within the question
     * @param messages message ids ({@code <conversationId>#<index>}) that must all be found
     */
    record Item(String id, Set<String> messages) {
    }

    /**
     * One probing question with evidence.
     *
     * @param user the asked user (trimmed name)
     * @param text the question
     * @param items evidence items, non-empty
     * @param category {@link #USER_SIDE} or {@link #ASSISTANT_SIDE}
     */
    record Question(String user, String text, List<Item> items, int category) {
    }

    /**
     * One raw pair.
     *
     * @param text query, newline, response
     * @param messages the ids of both messages
     */
    record Pair(String text, Set<String> messages) {
    }

    private MemoryBankQuality() {
    }

    /** @return the message id the sources of a memory and the evidence items share */
    static String messageId(final String conversationId, final int index) {
        return conversationId + "#" + index;
    }

    /**
     * @param history the MemoryBank history file
     * @return the raw pairs by trimmed user name, date order
     * @throws IOException if it cannot be read
     */
    static Map<String, List<Pair>> pairs(final Path history) throws IOException {
        final JsonNode root = JSON.readTree(history.toFile());
        final Map<String, List<Pair>> out = new LinkedHashMap<>();
        final Iterator<Map.Entry<String, JsonNode>> users = root.fields();
        while (users.hasNext()) {
            final Map.Entry<String, JsonNode> user = users.next();
            final String name = user.getKey().strip();
            final List<Pair> list = new ArrayList<>();
            for (final String date : MemoryBankSource.days(user.getValue())) {
                int i = 0;
                for (final JsonNode pair : user.getValue().path("history").path(date)) {
                    final String conversation = MemoryBankSource.conversationId(name, date);
                    list.add(new Pair(pair.path("query").asText("") + "\n" + pair.path("response").asText(""),
                        Set.of(messageId(conversation, MemoryBankSource.messageIndex(i, false)),
                            messageId(conversation, MemoryBankSource.messageIndex(i, true)))));
                    i++;
                }
            }
            out.put(name, list);
        }
        return out;
    }

    /**
     * @param questionsFile {@code probing_questions_*.jsonl}: one line per user, {@code {"<name>": [question, …]}}
     * @param evidenceFile {@code evidence_*.jsonl}: one line per question, in the same order
     * @return the questions that have evidence
     * @throws IOException if a file cannot be read, or an evidence line names a question that does not exist
     */
    static List<Question> questions(final Path questionsFile, final Path evidenceFile) throws IOException {
        final Map<String, List<String>> byUser = new HashMap<>();
        for (final String line : Files.readAllLines(questionsFile)) {
            if (line.isBlank()) {
                continue;
            }
            final JsonNode node = JSON.readTree(line);
            node.fields().forEachRemaining(e -> {
                final List<String> list = new ArrayList<>();
                e.getValue().forEach(q -> list.add(q.asText()));
                byUser.put(e.getKey().strip(), list);
            });
        }
        final List<Question> out = new ArrayList<>();
        for (final String line : Files.readAllLines(evidenceFile)) {
            if (line.isBlank()) {
                continue;
            }
            final JsonNode e = JSON.readTree(line);
            final String user = e.path("user").asText().strip();
            final int index = e.path("questionIndex").asInt(-1);
            final List<String> asked = byUser.get(user);
            if (asked == null || index < 0 || index >= asked.size()) {
                throw new IOException("Evidence names question " + index + " of " + user + ", which " + questionsFile
                    + " does not have");
            }
            final List<Item> items = new ArrayList<>();
            int category = USER_SIDE;
            for (final JsonNode item : e.path("evidence")) {
                final String conversation = MemoryBankSource.conversationId(user, item.path("date").asText());
                final int pair = item.path("index").asInt();
                final String side = item.path("side").asText();
                final Set<String> messages = new HashSet<>();
                if (!side.equals("response")) {
                    messages.add(messageId(conversation, MemoryBankSource.messageIndex(pair, false)));
                }
                if (!side.equals("query")) {
                    messages.add(messageId(conversation, MemoryBankSource.messageIndex(pair, true)));
                    category = ASSISTANT_SIDE;
                }
                items.add(new Item("item" + items.size(), Set.copyOf(messages)));
            }
            if (!items.isEmpty()) {
                out.add(new Question(user, asked.get(index), List.copyOf(items), category));
            }
        }
        return out;
    }

    /**
     * Scores Engram and the raw-pair baselines.
     *
     * @param tenant the tenant the memories were ingested under
     * @param pairs raw pairs by user
     * @param questions questions with evidence
     * @param memories Engram's memories by user id
     * @param embedder the model of the memories' embeddings (also the dense baseline's)
     * @param config the retriever's config
     * @return {@code engram, baselineRawPairs, baselineBm25, baselineRrf}, each as {@link RecallEvaluation#figures()}
     */
    static Map<String, Object> evaluate(final String tenant, final Map<String, List<Pair>> pairs,
                                        final List<Question> questions, final Map<String, List<Memory>> memories,
                                        final Embedder embedder, final EngramConfig config) {
        final HybridScorer scorer = new HybridScorer(embedder, config);
        final int maxK = config.getInt(DomainConfig.MAX_K);
        final RecallEvaluation engram = new RecallEvaluation();
        final RecallEvaluation dense = new RecallEvaluation();
        final RecallEvaluation bm25 = new RecallEvaluation();
        final RecallEvaluation rrf = new RecallEvaluation();
        final Map<String, RawDocuments> pools = new HashMap<>();
        for (final Question q : questions) {
            final Set<String> evidence = new HashSet<>();
            q.items().forEach(i -> evidence.add(i.id()));
            final UserKey user = new UserKey(tenant, q.user());
            final String text = OwnNames.strip(q.text(), user, null);
            final float[] qv = embedder.embedQuery(text); // Engram: the default model's; other models' on demand
            // raw pairs: embedded per text by script, so the question by the model of its own script
            final float[] pairQuery = embedder.embedQuery(text, embedder.modelFor(text));
            final List<Memory> own = memories.getOrDefault(q.user(), List.of());
            engram.add(q.category(), evidence, RecallEvaluation.engram(k -> scorer.forList(n -> scorer.rank(RankRequest.of(text, n).memories(own).queryVector(qv)), k),
                k -> scorer.rank(RankRequest.of(text, k).memories(own).queryVector(qv).forContext()), maxK,
                MemoryBankQuality::sources, own, messages -> found(q, messages)));
            final RawDocuments pool = pools.computeIfAbsent(q.user(), u -> pool(pairs.getOrDefault(u, List.of()), embedder));
            final List<Integer> denseOrder = pool.dense(pairQuery);
            final List<Integer> lexicalOrder = pool.lexical(text);
            dense.add(q.category(), evidence, pool.answer(denseOrder, s -> found(q, s)));
            bm25.add(q.category(), evidence, pool.answer(lexicalOrder, s -> found(q, s)));
            rrf.add(q.category(), evidence, pool.answer(LoCoMoRecall.fuse(denseOrder, lexicalOrder), s -> found(q, s)));
        }
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("engram", engram.figures());
        f.put("baselineRawPairs", dense.figures());
        f.put("baselineBm25", bm25.figures());
        f.put("baselineRrf", rrf.figures());
        return f;
    }

    private static RawDocuments pool(final List<Pair> pairs, final Embedder embedder) {
        final List<RawDocuments.Doc> docs = pairs.stream().map(p -> new RawDocuments.Doc(p.text(), p.messages())).toList();
        return new RawDocuments(docs, docs.isEmpty() ? List.of() : embedder.embedAll(docs.stream().map(RawDocuments.Doc::text).toList()));
    }

    /** @return the ids of the question's items whose every message is among {@code messages} */
    static Set<String> found(final Question q, final Set<String> messages) {
        final Set<String> out = new HashSet<>();
        for (final Item item : q.items()) {
            if (messages.containsAll(item.messages())) {
                out.add(item.id());
            }
        }
        return out;
    }

    /** @return the message ids a memory cites */
    static Set<String> sources(final Memory m) {
        final Set<String> out = new HashSet<>();
        for (final SourceRef ref : m.getSources()) {
            ref.getMessageIndexes().forEach(i -> out.add(messageId(ref.getConversationId(), i)));
        }
        return out;
    }
}
