package dev.engram.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EngramCliTest {

    @Test
    void shouldFailWithUsageExitCodeWhenTheCommandIsUnknownWhateverFollows() {
        assertThat(EngramCli.run("forget-everything", "--help")).isEqualTo(2);
        assertThat(EngramCli.run("forget-everything")).isEqualTo(2);
        assertThat(EngramCli.run("no-such-command", "--version")).isEqualTo(2);
        assertThat(EngramCli.run("bench", "no-such-benchmark", "--help")).isEqualTo(2);
    }

    @Test
    void shouldStillAnswerHelpForKnownCommandsWhenAsked() {
        assertThat(EngramCli.run("--help")).isZero();
        assertThat(EngramCli.run("ingest", "--help")).isZero();
        assertThat(EngramCli.run("chaos", "--help")).isZero();
        assertThat(EngramCli.run("verify-erasure", "--help")).isZero();
    }
}
