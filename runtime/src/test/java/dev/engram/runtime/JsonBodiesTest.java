package dev.engram.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.junit.jupiter.api.Test;

class JsonBodiesTest {

    private static final Set<String> FIELDS = Set.of("content", "value");

    @Test
    void shouldReturnTheObjectWhenTheBodyIsOneObjectOfKnownFields() {
        assertThat(JsonBodies.object(bytes("{\"value\":\"Delft\", \"content\":\"Lives in Delft \\ud800\"}"), FIELDS)
            .get("content").asText()).isEqualTo("Lives in Delft \ud800");
    }

    @Test
    void shouldRefuseTwoConcatenatedObjectsWhenOnlyOneValueIsAllowed() {
        assertThat(problem("{\"value\":\"Delft\"}{\"value\":\"Gouda\"}")).contains("more than one JSON value", "line 1, column");
        assertThat(problem("{\"value\":\"Delft\"} 42")).contains("more than one JSON value");
    }

    @Test
    void shouldSayWhatIsWrongWithoutTheParsersInternalsWhenTheBodyUsesNonStandardJson() {
        for (final String body : new String[] {"{\"value\": NaN}", "{\"value\": 1 /* c */}", "{'value': 1}",
            "{\"value\": 01}", "{\"value\": Infinity}", "{\"value\": tru}", "{\"value\": \"x}"}) {
            assertThat(problem(body)).as(body).startsWith("the body is not valid JSON at line 1, column")
                .doesNotContain("Feature", "REDACTED", "`", "enable", "for parser");
        }
        assertThat(problem("{\"value\": NaN}")).endsWith("Non-standard token 'NaN' (JSON has no NaN or Infinity: send a"
            + " number or null)");
        assertThat(problem("{\"value\": 1 /* c */}")).endsWith("maybe a (non-standard) comment? (JSON has no comments)");
    }

    @Test
    void shouldGiveTheLineAndColumnOfAnUnclosedObjectWithoutTheParsersSwitch() {
        // "(start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, …])"
        assertThat(problem("{\"value\": {")).contains("start marker at line 1, column 11")
            .doesNotContain("Source", "REDACTED", "StreamReadFeature", "`");
    }

    @Test
    void shouldSkipAByteOrderMarkBeforeTheValueAsRfc8259Allows() {
        final byte[] json = bytes("{\"value\":\"Delft\"}");
        final byte[] marked = new byte[json.length + 3];
        marked[0] = (byte) 0xEF;
        marked[1] = (byte) 0xBB;
        marked[2] = (byte) 0xBF;
        System.arraycopy(json, 0, marked, 3, json.length);

        assertThat(JsonBodies.object(marked, FIELDS).get("value").asText()).isEqualTo("Delft");
        assertThat(JsonBodies.withoutBom(marked)).isEqualTo(json);
        assertThat(JsonBodies.withoutBom(json)).isSameAs(json);
        // only before the value: a BOM inside is a character of a string, or not JSON
        assertThat(problem("{\"value\": \uFEFF\"Delft\"}")).startsWith("the body is not valid JSON");
    }

    @Test
    void shouldNameTheFieldWhenAKeyIsDuplicated() {
        assertThat(problem("{\"value\":\"Delft\",\"value\":\"Gouda\"}")).contains("duplicate field", "value");
    }

    @Test
    void shouldNameUnknownFieldsAndTheAcceptedOnesWhenAFieldIsUnknown() {
        assertThat(problem("{\"value\":\"Delft\",\"valeu\":\"x\",\"extra\":1}"))
            .isEqualTo("unknown fields \"extra\", \"valeu\" in the body; accepted: \"content\", \"value\"");
    }

    @Test
    void shouldRefuseInvalidUtf8WithItsOffsetWhenABodyByteIsNotUtf8() {
        final byte[] body = {'{', '"', 'v', 'a', 'l', 'u', 'e', '"', ':', '"', (byte) 0xFF, '"', '}'};
        assertThat(problem(body)).isEqualTo("the body is not valid UTF-8: byte 0xFF at offset 10 does not start or continue a character");
        assertThat(problem(new byte[] {'{', '"', 'a', (byte) 0xC3})).contains("not valid UTF-8", "offset 3");
    }

    @Test
    void shouldRefuseWhatIsNotAnObjectWhenTheBodyIsEmptyMalformedOrAnotherValue() {
        assertThat(problem("  ")).contains("a JSON body is required");
        assertThat(problem("[1,2]")).contains("must be a JSON object", "not array");
        assertThat(problem("{\"value\": }")).startsWith("the body is not valid JSON at line 1, column 11");
    }

    @Test
    void shouldSayWhatAValueIsWhenItHasTheWrongType() throws Exception {
        final com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(JsonBodies.describe(json.readTree("\"no\""))).isEqualTo("a string (\"no\")");
        assertThat(JsonBodies.describe(json.readTree("\"" + "x".repeat(50) + "\"")))
            .isEqualTo("a string (\"" + "x".repeat(40) + "…\")");
        assertThat(JsonBodies.describe(json.readTree("\" \""))).isEqualTo("a blank string");
        assertThat(JsonBodies.describe(json.readTree("\"\""))).isEqualTo("an empty string");
        assertThat(JsonBodies.describe(json.readTree("1"))).isEqualTo("a number (1)");
        assertThat(JsonBodies.describe(json.readTree("[true]"))).isEqualTo("an array");
    }

    @Test
    void shouldNameTheNestingLimitWhenTheBodyNestsTooDeep() {
        final String deep = "{\"value\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertThat(problem(deep)).isEqualTo("the body nests arrays and objects deeper than the 1,000 levels the JSON "
            + "parser allows; send a flatter document");
        assertThatThrownBy(() -> JsonBodies.value(bytes("[".repeat(1_001) + "]".repeat(1_001))))
            .hasMessageContaining("deeper than the 1,000 levels");
        assertThat(JsonBodies.value(bytes("[".repeat(999) + "]".repeat(999))).isArray()).isTrue();
    }

    @Test
    void shouldParseAnyOneValueStrictlyWhenTheCallerChecksItsShape() {
        assertThat(JsonBodies.value(bytes("[1, {\"a\": 2}]")).get(1).get("a").asInt()).isEqualTo(2);
        for (final String body : new String[] {"{\"a\":1}{\"a\":2}", "{\"a\":1,\"a\":2}", "", "nope"}) {
            assertThatThrownBy(() -> JsonBodies.value(bytes(body))).as(body).isInstanceOfSatisfying(ApiProblem.class,
                p -> assertThat(p.status()).isEqualTo(400));
        }
        assertThatThrownBy(() -> JsonBodies.value(new byte[] {'[', '"', (byte) 0xFE, '"', ']'}))
            .hasMessageContaining("not valid UTF-8: byte 0xFE at offset 2");
        assertThatThrownBy(() -> JsonBodies.value(bytes("{\"a\":1,\"a\":2}"))).hasMessageContaining("duplicate field");
    }

    private static String problem(final String body) {
        return problem(bytes(body));
    }

    private static String problem(final byte[] body) {
        final ApiProblem[] thrown = new ApiProblem[1];
        assertThatThrownBy(() -> JsonBodies.object(body, FIELDS)).isInstanceOfSatisfying(ApiProblem.class, p -> {
            assertThat(p.status()).isEqualTo(400);
            thrown[0] = p;
        });
        return thrown[0].getMessage();
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
