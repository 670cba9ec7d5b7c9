package dev.engram.privacy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.port.ExtractedMemory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class PiiFilterTest {

    private static ExtractedMemory memory(final String content) {
        return new ExtractedMemory(MemoryType.EPISODIC, null, null, null, null, content, false, 0.6, 0.9,
            MemorySource.EXPLICIT, List.of(0), Instant.parse("2025-01-01T00:00:00Z"));
    }

    @Test
    void shouldRedactACardNumberWhenItPassesLuhn() {
        assertThat(PiiFilter.scan("My card is 4111 1111 1111 1111, exp 12/29").text())
            .isEqualTo("My card is [card], exp 12/29");
        assertThat(PiiFilter.scan("card 4111-1111-1111-1111").found()).containsExactly(PiiFilter.Kind.CARD);
        assertThat(PiiFilter.scan("5500005555555559").found()).containsExactly(PiiFilter.Kind.CARD);
    }

    @Test
    void shouldKeepLongNumbersWhenLuhnFails() {
        assertThat(PiiFilter.scan("Order 4111 1111 1111 1112 shipped").clean()).isTrue();
        assertThat(PiiFilter.scan("Call me on 0044 20 7946 0958").clean()).isTrue();
        assertThat(PiiFilter.scan("I ran 5 km in 2025").clean()).isTrue();
    }

    @Test
    void shouldRedactAnIbanWhenMod97Holds() {
        assertThat(PiiFilter.scan("Pay to GB82 WEST 1234 5698 7654 32 please").text()).isEqualTo("Pay to [iban] please");
        assertThat(PiiFilter.scan("DE89370400440532013000").found()).containsExactly(PiiFilter.Kind.IBAN);
        assertThat(PiiFilter.scan("GB82 WEST 1234 5698 7654 33").found()).doesNotContain(PiiFilter.Kind.IBAN);
    }

    @Test
    void shouldRedactNationalIdsButNotLookalikes() {
        assertThat(PiiFilter.scan("my SSN is 123-45-6789").text()).isEqualTo("my SSN is [national-id]");
        assertThat(PiiFilter.scan("NI number AB 12 34 56 C").text()).isEqualTo("NI number [national-id]");
        assertThat(PiiFilter.scan("000-12-3456 and 666-12-3456 and 123-00-4567").clean()).isTrue();
        assertThat(PiiFilter.scan("on 2025-05-01 at 10:00").clean()).isTrue();
    }

    @Test
    void shouldCountByKindAndRedactEveryFieldWhenActionIsRedact() {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final PiiFilter filter = new PiiFilter(PiiFilter.Action.REDACT, registry);
        final ExtractedMemory fact = new ExtractedMemory(MemoryType.SEMANTIC, FactCategory.PERSONAL, "iban",
            "DE89370400440532013000", null, "IBAN is DE89370400440532013000", false, 0.6, 0.9, MemorySource.EXPLICIT,
            List.of(0), Instant.parse("2025-01-01T00:00:00Z"));
        final List<ExtractedMemory> out = filter.apply(List.of(fact, memory("Likes tea"),
            memory("SSN 123-45-6789, card 4111111111111111")));
        assertThat(out).extracting(ExtractedMemory::content)
            .containsExactly("IBAN is [iban]", "Likes tea", "SSN [national-id], card [card]");
        assertThat(out.get(0).value()).isEqualTo("[iban]");
        assertThat(registry.get(PiiFilter.METER).tag("kind", "iban").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(PiiFilter.METER).tag("kind", "card").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(PiiFilter.METER).tag("kind", "national_id").counter().count()).isEqualTo(1.0);
    }

    @Test
    void shouldDropTheMemoryWhenActionIsDrop() {
        final PiiFilter filter = new PiiFilter(PiiFilter.Action.DROP, new SimpleMeterRegistry());
        assertThat(filter.apply(List.of(memory("card 4111111111111111"), memory("Likes tea"))))
            .extracting(ExtractedMemory::content).containsExactly("Likes tea");
        assertThat(filter.filterText("SSN 123-45-6789")).isNull();
        assertThat(filter.filterText("Lives in Braga")).isEqualTo("Lives in Braga");
    }
}
