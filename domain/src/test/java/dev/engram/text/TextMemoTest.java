package dev.engram.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** {@link TextMemo}: a result computed once per key, the least recently used key dropped when full. */
class TextMemoTest {

    @Test
    void shouldComputeOnceAndReturnTheSameResultWhenAskedAgain() {
        final List<String> computed = new ArrayList<>();
        final TextMemo<Integer> memo = new TextMemo<>(4, text -> {
            computed.add(text);
            return text.length();
        });
        assertThat(memo.get("camping")).isEqualTo(7);
        assertThat(memo.get("camping")).isEqualTo(7);
        assertThat(memo.get("hiking")).isEqualTo(6);
        assertThat(computed).containsExactly("camping", "hiking");
        assertThat(memo.size()).isEqualTo(2);
    }

    @Test
    void shouldDropTheLeastRecentlyUsedKeyWhenFull() {
        final AtomicInteger calls = new AtomicInteger();
        final TextMemo<String> memo = new TextMemo<>(2, text -> {
            calls.incrementAndGet();
            return text.toUpperCase(java.util.Locale.ROOT);
        });
        memo.get("a");
        memo.get("b");
        memo.get("a"); // a is now the most recently used
        memo.get("c"); // drops b
        assertThat(memo.size()).isEqualTo(2);
        assertThat(calls).hasValue(3);
        assertThat(memo.get("a")).isEqualTo("A");
        assertThat(calls).as("a was kept").hasValue(3);
        assertThat(memo.get("b")).isEqualTo("B");
        assertThat(calls).as("b was dropped and computed again, with the same result").hasValue(4);
    }

    @Test
    void shouldRefuseACapacityBelowOneAndANullResult() {
        assertThatThrownBy(() -> new TextMemo<>(0, String::length)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("at least one key");
        final TextMemo<String> nothing = new TextMemo<>(1, text -> null);
        assertThatThrownBy(() -> nothing.get("x")).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("returned null");
    }
}
