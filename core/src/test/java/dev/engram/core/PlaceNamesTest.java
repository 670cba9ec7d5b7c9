package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlaceNamesTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', textBlock = """
        San Francisco | SF
        San Francisco | 旧金山
        San Francisco | san fran
        New York      | NYC
        New York      | New York City
        New York City | 纽约
        Shanghai      | 上海
        Beijing       | Peking
        北京          | BEIJING
        Munich        | München
        Munich        | Muenchen
        Lisbon        | Lisboa
        Los Angeles   | L.A.
        Zurich        | Zürich
        """)
    void shouldFoldAnotherNameOfACityToOneValueWhenTheTableListsIt(final String one, final String other) {
        assertThat(ValueAliases.fold(one)).isEqualTo(ValueAliases.fold(other));
        assertThat(PlaceNames.isKnown(other)).isTrue();
    }

    @ParameterizedTest(name = "{0} != {1}")
    @CsvSource(delimiter = '|', textBlock = """
        New York      | York
        San Francisco | San Diego
        Geneva        | Genoa
        Sydney        | Sidney
        Beijing       | Shanghai
        """)
    void shouldKeepTwoPlacesApartWhenTheyAreDifferentCities(final String one, final String other) {
        assertThat(ValueAliases.fold(one)).isNotEqualTo(ValueAliases.fold(other));
    }

    @ParameterizedTest(name = "{1} mistypes {0}")
    @CsvSource(delimiter = '|', textBlock = """
        San Francisco | San Fransisco
        San Francisco | San Fransico
        Berlin        | Berlni
        Toronto       | Toronot
        Amsterdam     | Amsterdamm
        Copenhagen    | Copenhagn
        San Fransisco | San Francisco
        Ljubljana     | Ljubljna
        """)
    void shouldTakeAValueOneOrTwoEditsFromTheCurrentPlaceAsItsTypingError(final String current, final String said) {
        assertThat(PlaceNames.mistyped(current, said)).isTrue();
    }

    @ParameterizedTest(name = "{1} is not {0} mistyped")
    @CsvSource(delimiter = '|', textBlock = """
        Sydney        | Sidney
        Sidney        | Sydney
        Austin        | Boston
        Boston        | Bolton
        Hamburg       | Homburg
        Geneva        | Genova
        Geneva        | Genoa
        Paris         | Parus
        Berlin        | Merlin
        Toronto       | Tornto Canada
        Lisbon        | Lisboa
        Shanghai      | 上海
        Berlin        | Berln
        Berlin        | Berlin
        """)
    void shouldKeepADifferentPlaceWhenItIsNoSafeTypingError(final String current, final String said) {
        assertThat(PlaceNames.mistyped(current, said)).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        null
        ''
        """, nullValues = "null")
    void shouldTellNoTypingErrorWhenAValueIsMissing(final String value) {
        assertThat(PlaceNames.mistyped(value, "Berlin")).isFalse();
        assertThat(PlaceNames.mistyped("Berlin", value)).isFalse();
    }
}
