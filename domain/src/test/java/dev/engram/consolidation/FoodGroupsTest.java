package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which food likes a diet or a food given up rules out ({@link FoodGroups}). */
class FoodGroupsTest {

    @ParameterizedTest(name = "{0}={1} rules out {2}: {3}")
    @CsvSource(delimiter = '|', textBlock = """
        diet         | vegetarian  | steak           | true
        diet         | vegetarian  | fried_chicken   | true
        diet         | vegetarian  | smoked salmon   | true
        diet         | vegetarian  | cheese          | false
        diet         | vegetarian  | veggie burgers  | false
        diet         | vegan       | ice cream       | true
        diet         | vegan       | peanut butter   | false
        diet         | vegan       | oat milk        | false
        diet         | pescatarian | sushi           | false
        diet         | pescatarian | salmon          | false
        diet         | pescatarian | pork ribs       | true
        diet         | keto        | bread           | false
        avoids:meat  | meat        | steaks          | true
        avoids:meat  | meat        | chocolate       | false
        avoids:pork  | pork        | bacon           | true
        avoids:pork  | pork        | steak           | false
        avoids:dairy | dairy       | cheese          | true
        avoids:chocolate | chocolate | dark chocolate | true
        preference:x | like        | steak           | false
        """)
    void shouldRuleOutTheLikedFoodsOfTheDietsGroupsOnlyWhenItNamesOne(final String key, final String value,
                                                                    final String subject, final boolean ruledOut) {
        assertThat(FoodGroups.rulesOut(subject, FoodGroups.ruledOutBy(key, value))).isEqualTo(ruledOut);
    }
}
