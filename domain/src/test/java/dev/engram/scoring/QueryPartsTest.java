package dev.engram.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which questions ask several things ({@link QueryParts#texts}): coordinated wh-questions, nothing else. */
class QueryPartsTest {

    @Test
    void shouldRankEachCoordinatedQuestionOnItsOwnBesideTheWholeQuestion() {
        assertThat(QueryParts.texts("Which editor and what snacks?"))
            .containsExactly("Which editor and what snacks?", "Which editor", "what snacks?");
        assertThat(QueryParts.texts("Which editor do I use, and what snacks do I like?"))
            .containsExactly("Which editor do I use, and what snacks do I like?", "Which editor do I use",
                "what snacks do I like?");
        assertThat(QueryParts.texts("Where do I live? What is my dog called?"))
            .containsExactly("Where do I live? What is my dog called?", "Where do I live", "What is my dog called?");
        assertThat(QueryParts.texts("What schools did John play basketball in and how many years was he with his team?"))
            .containsExactly("What schools did John play basketball in and how many years was he with his team?",
                "What schools did John play basketball in", "how many years was he with his team?");
    }

    @Test
    void shouldKeepAQuestionWholeWhenAPieceIsNoQuestionOfItsOwn() {
        for (final String whole : new String[] {"When and where did we meet?", "Where do I work and live?",
                "What is a prominent charity organization that John might want to work with and why?",
                "According to Gina, what makes Jon a perfect mentor and guide?",
                "I once recommended a food program to you, what was its name?",
                "What was the weather like on April 30th? What did I do?",
                "When I was taking photos in Mount Yuntai, what trouble did I encounter and who helped me?",
                "I recently went to whose concert? What is my favorite song of theirs?",
                "Who or which organizations have been the beneficiaries of John's charity tournaments?",
                "Which editor do I use?", "我用什么编辑器，喜欢什么零食？"}) {
            assertThat(QueryParts.texts(whole)).as(whole).containsExactly(whole);
        }
    }
}
