package dev.engram.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ValueAliasesTest {

    @Test
    void shouldFoldEveryNameOfOneToolToOneValue() {
        assertThat(ValueAliases.fold("vscode")).isEqualTo(ValueAliases.fold("Visual Studio Code"))
            .isEqualTo(ValueAliases.fold("VS Code")).isEqualTo(ValueAliases.fold("VSCode"))
            .isEqualTo(ValueAliases.fold("vs  code")).isEqualTo("vs code");
        assertThat(ValueAliases.fold("k8s")).isEqualTo(ValueAliases.fold("Kubernetes"));
        assertThat(ValueAliases.fold("Postgres")).isEqualTo(ValueAliases.fold("PostgreSQL"));
        assertThat(ValueAliases.fold("Golang")).isEqualTo(ValueAliases.fold("Go"));
    }

    @Test
    void shouldKeepOtherToolsAndOtherValuesApartAsTheFoldDoes() {
        assertThat(ValueAliases.fold("Visual Studio")).as("another IDE").isNotEqualTo(ValueAliases.fold("VS Code"));
        assertThat(ValueAliases.fold("Neovim")).isNotEqualTo(ValueAliases.fold("Vim"));
        assertThat(ValueAliases.fold("São Paulo")).isEqualTo(MemoryIds.fold("Sao Paulo"));
        assertThat(ValueAliases.fold(null)).isEmpty();
    }

    @Test
    void shouldListEverySpellingOfAValueItselfFirst() {
        assertThat(ValueAliases.spellings("vscode")).startsWith("vscode")
            .contains("VS Code", "Visual Studio Code").doesNotContain("Visual Studio");
        assertThat(ValueAliases.spellings("Porto")).containsExactly("Porto");
        assertThat(ValueAliases.spellings(null)).isEmpty();
    }
}
