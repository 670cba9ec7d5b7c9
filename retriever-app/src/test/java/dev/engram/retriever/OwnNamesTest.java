package dev.engram.retriever;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.engram.avro.MemorySource;
import dev.engram.avro.ProfileFact;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.profile.ProfileProjection;
import org.junit.jupiter.api.Test;

class OwnNamesTest {

    @Test
    void shouldDropTheUserIdNameAndItsPossessiveWhenTheQuestionNamesTheUser() {
        final UserKey caroline = new UserKey("locomo", "conv-26:Caroline");
        assertThat(OwnNames.strip("What are Caroline's plans for the summer?", caroline, null))
            .isEqualTo("What are plans for the summer?");
        assertThat(OwnNames.strip("What did caroline research?", caroline, null)).isEqualTo("What did research?");
        assertThat(OwnNames.strip("Did Carolines cat eat?", caroline, null)).isEqualTo("Did Carolines cat eat?");
    }

    @Test
    void shouldDropTheProfileNameAndKeepAQueryThatIsOnlyTheName() {
        final UserProfile profile = UserProfile.newBuilder(ProfileProjection.empty("t1", "u-17")).setFacts(Map.of("name",
            ProfileFact.newBuilder().setKey("name").setValue("Mira Holm").setMemoryId("m1").setConfidence(0.9)
                .setSource(MemorySource.EXPLICIT).setUpdatedAt(java.time.Instant.EPOCH).build())).build();
        final UserKey user = new UserKey("t1", "u-17");
        assertThat(OwnNames.strip("Where does Mira Holm live?", user, profile)).isEqualTo("Where does live?");
        assertThat(OwnNames.strip("Mira", user, profile)).isEqualTo("Mira");
        assertThat(OwnNames.strip("Which language does Mira use?", new UserKey("t1", "u-17"), null))
            .isEqualTo("Which language does Mira use?");
    }

    @Test
    void shouldDropAChineseNameWrittenWithoutSpaces() {
        final UserKey user = new UserKey("memorybank-zh", "张曼婷");
        assertThat(OwnNames.strip("张曼婷最喜欢的电影是什么？", user, null)).isEqualTo("最喜欢的电影是什么？");
        assertThat(OwnNames.strip("Where does 张曼婷 live?", user, null)).isEqualTo("Where does live?");
    }
}
