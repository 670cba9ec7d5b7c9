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

    static {
        // Builders deep-copy enums through Avro's class allow-list; trust our package before any copy.
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

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

    @Test
    void shouldRedactEachKindOfSecretAndKeepTheSentenceAroundIt() {
        assertThat(PiiFilter.scan("My staging key is sk-test-4f9a8b7c6d5e4f3a2b1c.").text())
            .isEqualTo("My staging key is [api-key].");
        assertThat(PiiFilter.scan("token ghp_FAKE1234567890abcdefghijklmnopqrstuvwx ok").text())
            .isEqualTo("token [github-token] ok");
        assertThat(PiiFilter.scan("key id AKIAFAKE0000EXAMPLE1 and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").text())
            .isEqualTo("key id [aws-access-key] and secret [secret]");
        assertThat(PiiFilter.scan("bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LW9saSJ9.c2lnbmF0dXJlX2Zha2U here").text())
            .isEqualTo("bearer [jwt] here");
        assertThat(PiiFilter.scan("-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\nAAAA\n-----END RSA PRIVATE KEY----- done").text())
            .isEqualTo("[private-key] done");
        assertThat(PiiFilter.scan("the DB password is hunter2-fake; I prefer Postgres").text())
            .isEqualTo("the DB password is [password]; I prefer Postgres");
        assertThat(PiiFilter.scan("wifi pwd: \"c0rrect horse\"").found()).containsExactly(PiiFilter.Kind.PASSWORD);
        assertThat(PiiFilter.scan("the api key is 9f8e7d6c5b4a").text()).isEqualTo("the api key is [secret]");
    }

    @Test
    void shouldLeaveOrdinaryTextAloneWhenItOnlyMentionsPasswordsOrIds() {
        assertThat(PiiFilter.scan("My password is the same as before").clean()).isTrue();
        assertThat(PiiFilter.scan("I reset my password yesterday").clean()).isTrue();
        assertThat(PiiFilter.scan("commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f and id 123e4567-e89b-12d3-a456-426614174000")
            .clean()).isTrue();
        assertThat(PiiFilter.scan("I ask for a skeleton of the sk-learn pipeline").clean()).isTrue();
        assertThat(PiiFilter.scan("The token is a metaphor").clean()).isTrue();
    }

    @Test
    void shouldCountSecretsByKindOnTheirOwnMeterWhenAConversationIsFiltered() {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final PiiFilter filter = new PiiFilter(PiiFilter.Action.REDACT, registry);
        final dev.engram.avro.ConversationCompleted conversation = dev.engram.avro.ConversationCompleted.newBuilder()
            .setTenantId("t1").setUserId("u-oli").setConversationId("c-1")
            .setMessages(List.of(new dev.engram.avro.Message(0, "user",
                "The staging token is ghp_FAKE1234567890abcdefghijklmnopqrstuvwx and the DB password is hunter2-fake",
                Instant.parse("2025-01-01T00:00:00Z"))))
            .setCompletedAt(Instant.parse("2025-01-01T00:00:00Z")).build();
        final dev.engram.avro.ConversationCompleted clean = filter.withoutSecrets(conversation);
        assertThat(clean.getMessages().get(0).getContent())
            .isEqualTo("The staging token is [github-token] and the DB password is [password]");
        assertThat(registry.get(PiiFilter.SECRETS_METER).tag("kind", "github_token").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(PiiFilter.SECRETS_METER).tag("kind", "password").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(PiiFilter.SECRETS_METER).tag("kind", "jwt").counter().count()).isZero();
        assertThat(filter.withoutSecrets(clean)).isSameAs(clean);
    }
}
