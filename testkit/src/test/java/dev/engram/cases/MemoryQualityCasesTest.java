package dev.engram.cases;

import static dev.engram.testing.Conversations.assistant;
import static dev.engram.testing.Conversations.conversation;
import static dev.engram.testing.Conversations.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.scoring.ScoredMemory;
import dev.engram.serde.AvroSerdes;
import dev.engram.testing.PipelineHarness;
import org.junit.jupiter.api.Test;

/**
 * Cases 12–14 of ../shared/cases (memory quality) through the whole offline pipeline: every language
 * is stored and found, the assistant's recommendations are recallable without becoming facts about
 * the user, relative dates are resolved against the message's own time.
 */
class MemoryQualityCasesTest {

    private static Set<Integer> indexes(final Memory m) {
        return m.getSources().stream().map(SourceRef::getMessageIndexes).flatMap(List::stream).collect(Collectors.toSet());
    }

    /** language, the turn, a same-language distractor turn, a question, a word of the expected memory */
    private static final List<String[]> LANGUAGES = List.of(
        new String[] {"zh", "我叫林晓，住在杭州，在一家做电动车的公司当工程师。我对花生过敏。",
            "今天下午我们全家去超市买了很多水果和蔬菜。", "林晓住在哪里？", "杭州"},
        new String[] {"ja", "私は大阪に住んでいて、週末はよく登山をします。",
            "昨日の夜は友達とラーメンを食べに行きました。", "週末は何をしますか？", "登山"},
        new String[] {"ko", "저는 부산에 살고 있고 고양이 두 마리를 키워요.",
            "어제 친구들과 함께 영화를 보러 극장에 갔어요.", "부산에 사는 사람의 반려동물은?", "고양이"},
        new String[] {"ar", "أعيش في عمّان وأعمل ممرضة في مستشفى الجامعة.",
            "ذهبنا إلى السوق واشترينا الكثير من الفواكه والخضروات.", "أين تعمل ممرضة في مستشفى؟", "ممرضة"},
        new String[] {"vi", "Tôi sống ở Đà Nẵng và thích uống cà phê sữa đá.",
            "Hôm qua chúng tôi đi xem phim với gia đình.", "Tôi sống ở đâu và thích uống gì?", "Đà Nẵng"});

    @Test
    void shouldStoreEveryLanguageInItsScriptAndFindItByASameLanguageQuestion_case12() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            for (final String[] lang : LANGUAGES) {
                final String userId = "u-" + lang[0];
                pipeline.publish(conversation("t-intl", userId, "c-" + lang[0],
                    user(lang[1], "2025-03-01T10:00:00Z"), assistant("OK.", "2025-03-01T10:00:05Z")));
                pipeline.publish(conversation("t-intl", userId, "c-" + lang[0] + "-2",
                    user(lang[2], "2025-03-02T10:00:00Z")));
                final List<Memory> active = pipeline.retriever().active("t-intl/" + userId);
                assertThat(active).as("memories of %s", lang[0]).isNotEmpty();
                assertThat(active).as("stored in the original script, language recorded")
                    .anySatisfy(m -> {
                        assertThat(m.getContent()).contains(lang[4]);
                        assertThat(m.getLanguage()).isEqualTo(lang[0]);
                    });
                final List<ScoredMemory> hits = pipeline.retrieve("t-intl/" + userId, lang[3], 3);
                assertThat(hits).as("hits of %s for %s", lang[0], lang[3]).isNotEmpty();
                assertThat(hits.get(0).memory().getContent()).as("first hit for %s", lang[3]).contains(lang[4]);
            }
        }
    }

    @Test
    void shouldStoreAChineseStatementAsFactsInChineseFoundByChineseQuestions_case12() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation("t-intl", "u-wang", "c-beijing",
                user("我住在北京，在华为工作。", "2025-03-01T10:00:00Z"), assistant("好的。", "2025-03-01T10:00:05Z")));
            pipeline.publish(conversation("t-intl", "u-wang", "c-market",
                user("今天下午我们全家去超市买了很多水果和蔬菜。", "2025-03-02T10:00:00Z")));
            final List<Memory> active = pipeline.retriever().active("t-intl/u-wang");
            assertThat(active).filteredOn(m -> m.getType() == MemoryType.SEMANTIC)
                .extracting(m -> m.getKey() + "=" + m.getValue() + ":" + m.getContent() + ":" + m.getLanguage())
                .containsExactlyInAnyOrder("city=北京:住在北京:zh", "employer=华为:在华为工作:zh");
            assertThat(pipeline.retrieve("t-intl/u-wang", "我在哪家公司工作？", 3)).first()
                .satisfies(h -> assertThat(h.memory().getContent()).isEqualTo("在华为工作"));
            assertThat(pipeline.retrieve("t-intl/u-wang", "我住在哪个城市？", 3)).first()
                .satisfies(h -> assertThat(h.memory().getContent()).isEqualTo("住在北京"));
        }
    }

    @Test
    void shouldRecallTheAssistantsRecommendationWithoutMakingItAFactAboutTheUser_case13() {
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(conversation("t1", "u-ana", "c-jazz",
                user("I want to get into jazz. Where should I start?", "2025-04-02T19:00:00Z"),
                assistant("Try Kind of Blue by Miles Davis and Time Out by the Dave Brubeck Quartet.", "2025-04-02T19:00:06Z"),
                user("My brother Tomas plays the trumpet, so Miles Davis sounds perfect.", "2025-04-02T19:01:00Z")));
            final List<Memory> active = pipeline.retriever().active("t1/u-ana");

            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-ana", "what albums did you recommend to me?", 3);
            assertThat(hits).isNotEmpty();
            final Memory recommended = hits.get(0).memory();
            assertThat(recommended.getContent()).contains("Kind of Blue").contains("Time Out");
            assertThat(recommended.getDisplayName()).isEqualTo("Assistant recommendation");
            assertThat(indexes(recommended)).as("the assistant's message is a source").contains(1);

            assertThat(active).as("facts only from the user's own messages, never the assistant's")
                .filteredOn(m -> m.getType() != MemoryType.EPISODIC)
                .allSatisfy(m -> assertThat(indexes(m)).doesNotContain(1));
            assertThat(active).as("nothing says the user plays the trumpet")
                .noneSatisfy(m -> assertThat(m.getContent()).containsPattern("(?i)^(?:plays|i play|user plays)"));
            assertThat(active).as("a fact naming Tomas keeps the user as subject and Tomas as the brother")
                .filteredOn(m -> m.getType() == MemoryType.SEMANTIC && m.getContent().contains("Tomas"))
                .allSatisfy(m -> assertThat(m.getContent()).doesNotContain("trumpet"));
            assertThat(active).as("the user's interest, from the user's own turn")
                .anySatisfy(m -> {
                    assertThat(indexes(m)).containsExactly(0);
                    assertThat(m.getContent()).containsIgnoringCase("jazz");
                });
        }
    }

    @Test
    void shouldResolveRelativeDatesAgainstTheMessageTimeIdenticallyOnReplay_case14() {
        final ConversationCompleted pottery = conversation("t1", "u-ben", "c-pottery",
            user("I started a pottery class two days ago and my sister arrives the day after tomorrow.",
                "2023-03-15T18:00:00Z"));
        final ConversationCompleted spanish = conversation("t1", "u-ben", "c-spanish",
            user("I started learning Spanish with an app last week.", "2023-06-20T09:00:00Z"));
        final Map<String, String> first;
        try (PipelineHarness pipeline = new PipelineHarness()) {
            pipeline.publish(pottery, spanish);
            final List<Memory> active = pipeline.retriever().active("t1/u-ben");
            assertThat(active).anySatisfy(m -> {
                assertThat(m.getContent()).contains("13 March 2023").contains("17 March 2023");
                assertThat(m.getEventDates()).containsExactly("2023-03-13", "2023-03-17");
            });
            final List<ScoredMemory> hits = pipeline.retrieve("t1/u-ben", "what did I start in March 2023?", 3);
            assertThat(hits.get(0).memory().getContent()).contains("pottery");
            first = bytes(active);
        }
        // backfilled years later: the record time on the topic changes, the message time does not
        try (PipelineHarness replay = new PipelineHarness()) {
            replay.publishAt(Instant.parse("2026-11-30T08:00:00Z"), pottery, spanish);
            assertThat(bytes(replay.retriever().active("t1/u-ben"))).isEqualTo(first);
        }
    }

    private static Map<String, String> bytes(final List<Memory> memories) {
        final Map<String, String> out = new TreeMap<>();
        memories.forEach(m -> out.put(m.getMemoryId(), java.util.HexFormat.of().formatHex(AvroSerdes.serde(Memory.class).serializer().serialize("t", m))));
        return out;
    }
}
