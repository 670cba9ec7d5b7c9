package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The user key: its wire form, its store keys and what it refuses. */
class UserKeyTest {

    @Test
    void shouldSplitAtTheFirstSlashWhenTheUserIdHasSlashesToo() {
        final UserKey key = UserKey.parse("acme/team/alice");

        assertThat(key.tenantId()).isEqualTo("acme");
        assertThat(key.userId()).isEqualTo("team/alice");
        assertThat(key.wire()).isEqualTo("acme/team/alice").isEqualTo(key.toString());
        assertThat(UserKey.parse(key.wire())).isEqualTo(key);
    }

    @Test
    void shouldPrefixEveryStoreKeyOfAUserWithTheSameUnambiguousPrefix() {
        final UserKey alice = new UserKey("acme", "alice");
        final UserKey alicia = new UserKey("acme", "alicia");

        assertThat(alice.storeKey("m1")).isEqualTo("acme/alice\u0000m1").startsWith(alice.storePrefix());
        assertThat(alicia.storeKey("m1")).as("a user whose id extends another's is not in its prefix scan")
            .doesNotStartWith(alice.storePrefix());
    }

    @Test
    void shouldRefuseAMalformedWireFormNamingIt() {
        for (final String wire : new String[] {"acme", "/alice", "acme/", ""}) {
            assertThatThrownBy(() -> UserKey.parse(wire)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("<tenant>/<user>");
        }
        assertThatThrownBy(() -> UserKey.parse(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldRefuseBlankLongControlOrBrokenPartsWhenBuilt() {
        assertThatThrownBy(() -> new UserKey(" ", "alice")).hasMessage("tenantId is missing or blank");
        assertThatThrownBy(() -> new UserKey("acme", null)).hasMessage("userId is missing or blank");
        assertThatThrownBy(() -> new UserKey("ac/me", "alice")).hasMessageContaining("must not contain '/'");
        assertThatThrownBy(() -> new UserKey("acme", "a".repeat(257))).hasMessageContaining("longer than 256");
        assertThatThrownBy(() -> new UserKey("acme", "al\u0000ice")).hasMessageContaining("control character");
        assertThatThrownBy(() -> new UserKey("acme", "al\uD83Dice")).hasMessageContaining("unpaired surrogate");
        assertThat(new UserKey("acme", "a".repeat(256)).userId()).hasSize(256);
        assertThat(new UserKey("acme", "zoë 🌟 北京").wire()).isEqualTo("acme/zoë 🌟 北京");
    }
}
