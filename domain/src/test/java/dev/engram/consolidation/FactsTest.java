package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FactsTest {

    @Test
    void shouldReadDigitsAndNumberWordsInOrderWhenSentenceCarriesNumbers() {
        assertThat(Facts.numbers("I've been at Ferrovia Labs for three years now.")).containsExactly("3");
        assertThat(Facts.numbers("Has worked at Ferrovia Labs for 3 years")).containsExactly("3");
        assertThat(Facts.numbers("2 kids, twelve cats and 1.5 dogs")).containsExactly("2", "12", "1.5");
        assertThat(Facts.numbers("Kotlin is the one language I use")).isEmpty();
    }

    @Test
    void shouldTreatValuesAsSameWhenNormalizedEqualAndNumbersAgree() {
        assertThat(Facts.sameValue("Kotlin", "I write Kotlin.", "kotlin.", "Kotlin is my main language")).isTrue();
        assertThat(Facts.sameValue("Ferrovia Labs", "three years at Ferrovia Labs",
            "Ferrovia Labs", "Has worked at Ferrovia Labs for 3 years")).isTrue();
        assertThat(Facts.sameValue("vegan", "I've been vegan for two years.", "vegan", "still vegan, going strong")).isTrue();
    }

    @Test
    void shouldTreatValuesAsDifferentWhenValueOrNumbersDiffer() {
        assertThat(Facts.sameValue("Lyon", "I live in Lyon", "Nantes", "I live in Nantes")).isFalse();
        assertThat(Facts.sameValue("Ferrovia Labs", "Three years at Ferrovia Labs",
            "Ferrovia Labs", "Four years at Ferrovia Labs as of this month.")).isFalse();
    }

    @Test
    void shouldTreatAnotherNameOfACityAsTheSameValue() {
        assertThat(Facts.sameValue("San Francisco", "Lives in San Francisco", "SF", "SF is great, I live in SF")).isTrue();
        assertThat(Facts.sameValue("New York", "Lives in New York", "纽约", "住在纽约")).isTrue();
        assertThat(Facts.sameValue("Sydney", "Lives in Sydney", "Sidney", "Lives in Sidney")).isFalse();
    }

    @Test
    void shouldTakeAMistypedPlaceAsTheCurrentOneOnlyInAPlaceSlot() {
        assertThat(Facts.mistypedPlace("city", "San Francisco", "San Fransisco")).isTrue();
        assertThat(Facts.mistypedPlace("hometown", "Toronto", "Toronot")).isTrue();
        assertThat(Facts.mistypedPlace("city", "Sydney", "Sidney")).as("two places").isFalse();
        assertThat(Facts.mistypedPlace("city", "Austin", "Boston")).isFalse();
        assertThat(Facts.mistypedPlace("employer", "Siemens", "Simens")).as("not a place slot").isFalse();
        assertThat(Facts.mistypedPlace("name", "Daniel", "Daniela")).as("two names").isFalse();
        assertThat(Facts.mistypedPlace(null, "Toronto", "Toronot")).isFalse();
    }

    @Test
    void shouldDetectNegationAndAversionCuesWhenPresent() {
        assertThat(Facts.isNegative("I've totally gone off sushi, can't stand it anymore.")).isTrue();
        assertThat(Facts.isNegative("I no longer use Jira.")).isTrue();
        assertThat(Facts.isNegative("Doesn't love hiking")).isTrue();
        assertThat(Facts.isNegative("Sushi is my all-time favourite food.")).isFalse();
        assertThat(Facts.isNegative("Nothing to see")).isFalse();
    }

    @Test
    void shouldReadTheSlotOfAKeyThatNamesAPersonOrPetByName() {
        assertThat(Facts.entitySlot("pet:rex")).isEqualTo("pet:");
        assertThat(Facts.entitySlot("friend:sam")).isEqualTo("friend:");
        assertThat(Facts.entitySlot("family:son:oliver")).isEqualTo("family:son:");
        assertThat(Facts.entitySlot("employer")).isNull();
        assertThat(Facts.entitySlot("uses:jira")).isNull();
        assertThat(Facts.entitySlot("pet:")).isNull();
        assertThat(Facts.entitySlot(null)).isNull();
    }
}
