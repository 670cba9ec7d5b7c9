package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LanguagesTest {

    @Test
    void shouldTellScriptsAndLatinLanguages() {
        assertThat(Languages.detect("我住在北京，在华为工作。")).isEqualTo("zh");
        assertThat(Languages.detect("私は大阪に住んでいて、週末はよく登山をします。")).isEqualTo("ja");
        assertThat(Languages.detect("저는 부산에 살고 있고 고양이 두 마리를 키워요.")).isEqualTo("ko");
        assertThat(Languages.detect("أعيش في عمّان وأعمل ممرضة في مستشفى الجامعة.")).isEqualTo("ar");
        assertThat(Languages.detect("Tôi sống ở Đà Nẵng và thích uống cà phê sữa đá.")).isEqualTo("vi");
        assertThat(Languages.detect("Я живу в Москве.")).isEqualTo("ru");
        assertThat(Languages.detect("I moved to Lisbon last spring.")).isEqualTo("en");
        assertThat(Languages.detect("Je suis à Paris avec mon chat.")).isEqualTo("fr");
        assertThat(Languages.detect("Ich wohne mit meiner Frau in Berlin und arbeite bei der Bahn.")).isEqualTo("de");
        assertThat(Languages.detect("Vivo en Madrid con mi familia.")).isEqualTo("es");
    }

    @Test
    void shouldReturnNullWhenNothingCanBeTold() {
        assertThat(Languages.detect("")).isNull();
        assertThat(Languages.detect("12:30 :-)")).isNull();
        assertThat(Languages.detect("Kotlin Gradle")).isNull();
    }

    @Test
    void shouldGiveATieToWhatCameFirstWhenTwoLanguagesOrScriptsCountAlike() {
        // two Spanish and two German function words: the language hit first wins, in either order
        assertThat(Languages.detect("yo soy ich bin")).isEqualTo("es");
        assertThat(Languages.detect("ich bin yo soy")).isEqualTo("de");
        // "la" alone is French, Spanish and Italian: the first of them in the table
        assertThat(Languages.detect("la")).isEqualTo("fr");
        // as many Han as Hangul letters: the script seen first
        assertThat(Languages.detect("北京 부산")).isEqualTo("zh");
        assertThat(Languages.detect("부산 北京")).isEqualTo("ko");
        // ASCII letters are Latin, whatever else the text holds
        assertThat(Languages.detect("Das ist mein Hund, 我的狗")).isEqualTo("de");
    }
}
