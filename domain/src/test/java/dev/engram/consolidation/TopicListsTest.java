package dev.engram.consolidation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.engram.avro.FactCategory;
import dev.engram.avro.Memory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.SourceRef;
import dev.engram.consolidation.TopicLists.Topic;
import dev.engram.consolidation.TopicLists.TopicList;
import dev.engram.text.TextMemo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TopicLists}: what values a statement names per topic, and the list a user's statements give (values in order
 * of first mention, sources exactly the statements naming a listed value, a function of the statements).
 */
class TopicListsTest {

    private static final Instant T0 = Instant.parse("2024-01-08T09:00:00Z");

    @BeforeAll
    static void trustRecords() {
        dev.engram.serde.AvroSerdes.trustGeneratedRecords();
    }

    private static Memory said(final String id, final String content, final String conversation, final int hour) {
        return statement(id, null, null, null, content, conversation, hour);
    }

    static Memory statement(final String id, final String key, final String value, final String displayName,
                                    final String content, final String conversation, final int hour) {
        final Instant at = T0.plusSeconds(3600L * hour);
        return Memory.newBuilder().setMemoryId(id).setTenantId("t1").setUserId("u1")
            .setType(key == null ? MemoryType.EPISODIC : MemoryType.SEMANTIC)
            .setCategory(key == null ? null : FactCategory.PERSONAL).setKey(key).setValue(value)
            .setDisplayName(displayName).setContent(content).setImportance(0.5).setConfidence(0.9)
            .setSource(MemorySource.EXPLICIT).setStatus(MemoryStatus.ACTIVE).setArchiveReason(null).setCreatedAt(at)
            .setUpdatedAt(at).setLastAccessedAt(at).setLastConfirmedAt(at).setAccessCount(0).setReinforcementCount(1)
            .setExpiresAt(null).setValidFrom(at).setValidTo(null).setSupersededBy(null).setSupersedes(List.of())
            .setSources(List.of(SourceRef.newBuilder().setConversationId(conversation).setMessageIndexes(List.of(hour))
                .setObservedAt(at).build()))
            .setEmbedding(List.of()).setEmbeddingModel("m").build();
    }

    private static TopicList list(final List<Memory> statements, final Topic topic) {
        return TopicLists.lists(statements).stream().filter(l -> l.topic() == topic).findFirst()
            .orElseThrow(() -> new AssertionError("no " + topic + " list in " + TopicLists.lists(statements)));
    }

    @Test
    void shouldReadTheValuesOfEachTopicFromWhatTheUserSaid() {
        assertThat(TopicLists.values(said("a", "We got another cat named Bailey last week!", "c1", 0)))
            .containsEntry(Topic.PETS, List.of("cat Bailey"));
        assertThat(TopicLists.values(said("b", "I just signed up for a pottery class yesterday.", "c1", 1)))
            .containsEntry(Topic.ACTIVITIES, List.of("pottery")).containsEntry(Topic.EVENTS, List.of("pottery class"));
        assertThat(TopicLists.values(said("c", "We camped in the mountains and went hiking.", "c1", 2)))
            .containsEntry(Topic.ACTIVITIES, List.of("camping", "hiking"));
        assertThat(TopicLists.values(said("d", "Yeah, I play clarinet! Started when I was young.", "c1", 3)))
            .containsEntry(Topic.INSTRUMENTS, List.of("clarinet"));
        assertThat(TopicLists.values(said("e", "I loved reading \"Charlotte's Web\" as a kid.", "c1", 4)))
            .containsEntry(Topic.BOOKS, List.of("\"Charlotte's Web\""));
        assertThat(TopicLists.values(said("f", "Last summer we visited Rome and took a trip to Lisbon.", "c1", 5)))
            .containsEntry(Topic.PLACES, List.of("Rome", "Lisbon"));
        assertThat(TopicLists.values(said("g", "My sister Amy and my husband came along.", "c1", 6)))
            .containsEntry(Topic.FAMILY, List.of("sister Amy", "husband"));
        assertThat(TopicLists.values(said("h", "Here's my horse painting [image: a painting of a horse]", "c1", 7)))
            .as("a painting of a horse is no pet").doesNotContainKey(Topic.PETS)
            .containsEntry(Topic.ACTIVITIES, List.of("painting"));
        assertThat(TopicLists.values(said("i", "I don't swim and I hate running.", "c1", 8)))
            .as("a negated sentence names no value").isEmpty();
        assertThat(TopicLists.values(statement("j", "pet:oliver", "Oliver", "Pet cat", "Has a cat named Oliver",
            "c1", 9))).containsEntry(Topic.PETS, List.of("cat Oliver"));
    }

    @Test
    void shouldGiveTheSameValuesThroughAMemoOfTheContentsWhateverWasReadBefore() {
        // a regrouping keeps each content's values (Observations): the key's value must still come first, and a
        // statement without the key must not get it from the memo
        final TextMemo<Map<Topic, List<String>>> memo = new TextMemo<>(8, TopicValues::ofContent);
        final String content = "We got a dog named Max and my cat Oliver sleeps all day.";
        final Memory plain = said("a", content, "c1", 0);
        final Memory keyed = statement("b", "pet:oliver", "Oliver", "Pet cat", content, "c1", 1);
        final Memory again = said("c", content, "c2", 2);
        assertThat(TopicValues.of(plain, memo::get)).isEqualTo(TopicLists.values(plain))
            .containsEntry(Topic.PETS, List.of("dog Max", "cat Oliver"));
        assertThat(TopicValues.of(keyed, memo::get)).isEqualTo(TopicLists.values(keyed))
            .as("the key's value first, the content's after it, each once")
            .containsEntry(Topic.PETS, List.of("cat Oliver", "dog Max"));
        assertThat(TopicValues.of(again, memo::get)).isEqualTo(TopicLists.values(again));
        assertThat(memo.size()).as("one content, read once").isEqualTo(1);
        final List<Memory> statements = List.of(plain, keyed, again,
            said("d", "We visited Rome, then Lisbon, and I went hiking.", "c3", 3));
        assertThat(TopicLists.lists(statements, s -> TopicValues.of(s, memo::get))).isEqualTo(TopicLists.lists(statements));
    }

    @Test
    void shouldNameAnAppositivePetAndNoRelativeByTheFirstNameOfAnEnumeration() {
        assertThat(TopicLists.values(said("a", "So much has changed - meet Toby, my puppy. He's a bundle of joy.", "c1", 0)))
            .as("the appositive names the puppy, and there is no second, nameless one")
            .containsEntry(Topic.PETS, List.of("puppy Toby"));
        assertThat(TopicLists.values(said("b", "My girlfriend, Toby and I are going camping this weekend.", "c1", 1)))
            .as("Toby is one of the three going, not the girlfriend's name")
            .containsEntry(Topic.FAMILY, List.of("girlfriend"));
        assertThat(TopicLists.values(said("c", "My sister, Amy, came along with us.", "c1", 2)))
            .as("an appositive name that no enumeration follows is still hers")
            .containsEntry(Topic.FAMILY, List.of("sister Amy"));
        assertThat(TopicLists.values(said("d", "Yes, my dog loves the park.", "c1", 3)))
            .as("a word that is no name does not name the dog").containsEntry(Topic.PETS, List.of("dog"));
    }

    @Test
    void shouldNameAPetIntroducedWithAPhotoOfItAndAPlaceTheUserWasIn() {
        assertThat(TopicLists.values(said("a", "Way to go! I just got a new addition to the family, this is Max! "
            + "[image: a photo of a dog laying on a couch in a living room]", "c1", 0)))
            .containsEntry(Topic.PETS, List.of("dog Max"));
        assertThat(TopicLists.values(said("b", "Say hi to Sarah! [image: a photo of a woman holding a small turtle]",
            "c1", 1))).as("the photo's subject is a person: Sarah is no turtle").doesNotContainKey(Topic.PETS);
        assertThat(TopicLists.values(said("c", "This is Max! [image: a photo of a sunset over the lake]", "c1", 2)))
            .as("no animal in the photo, no pet").doesNotContainKey(Topic.PETS);
        assertThat(TopicLists.values(said("d", "I was in Chicago last month, it was awesome!", "c1", 3)))
            .containsEntry(Topic.PLACES, List.of("Chicago"));
        assertThat(TopicLists.values(said("e", "It was in March, I think.", "c1", 4)))
            .as("a month is no place").doesNotContainKey(Topic.PLACES);
    }

    @Test
    void shouldListOnlyPlacesTheUserSaysTheyWereInWhenTheyWishPlanOrMove() {
        // a fresh user's trial (t14): "Places visited: Paris, Tokyo." from a condition and a wish, and
        // "Places visited: Munich, Paris." after "I moved to Munich" (a move is the city fact, not a trip)
        final List<Memory> wishes = List.of(
            said("a", "If I moved to Paris I would learn French.", "c1", 0),
            said("b", "I would love to visit Tokyo someday, and maybe Seoul if I ever get the time.", "c2", 1),
            said("c", "I moved to Munich last spring.", "c3", 2),
            said("d", "I hope to visit Rome next year. We're planning a trip to Lisbon.", "c4", 3),
            said("e", "My sister visited Oslo and she went to Bergen too.", "c5", 4));
        assertThat(wishes).allSatisfy(s -> assertThat(TopicLists.values(s)).as(s.getContent())
            .doesNotContainKey(Topic.PLACES));
        assertThat(TopicLists.lists(wishes)).noneMatch(l -> l.topic() == Topic.PLACES);
        final List<Memory> trips = List.of(
            said("f", "If I moved to Paris I would learn French.", "c1", 0),
            said("g", "I was in Vienna last week, it was lovely, and I would go back anytime.", "c2", 1),
            said("h", "My husband and I went to Kyoto in May.", "c3", 2),
            said("i", "Finally visited Prague!", "c4", 3),
            said("j", "We moved here from Porto two years ago.", "c5", 4));
        assertThat(list(trips, Topic.PLACES).values()).containsExactly("Vienna", "Kyoto", "Prague", "Porto");
    }

    @Test
    void shouldListTheValuesOfSeveralConversationsAndCiteOnlyTheStatementsNamingOne() {
        final Memory cat = said("s1", "We got another cat named Bailey, she is tiny.", "c-1", 0);
        final Memory dog = statement("s2", "pet:max", "Max", "Pet dog", "Has a dog named Max", "c-2", 5);
        final Memory unrelated = said("s3", "Work has been really busy this month.", "c-3", 7);
        final Memory again = said("s4", "Bailey and my dog Max played all day in the yard.", "c-4", 9);
        final Memory turtle = said("s5", "We adopted a turtle last week, the kids love it.", "c-5", 11);

        final TopicList pets = list(List.of(cat, dog, unrelated, again, turtle), Topic.PETS);

        assertThat(pets.content()).isEqualTo("Pets: cat Bailey, dog Max, turtle.");
        assertThat(pets.statements()).extracting(Memory::getMemoryId).containsExactly("s1", "s2", "s4", "s5");
        assertThat(pets.statements()).as("the work statement names no pet").doesNotContain(unrelated);
    }

    @Test
    void shouldWriteNoListOfASingleValue() {
        final List<Memory> once = List.of(said("s1", "My dog Max is asleep again.", "c-1", 0),
            said("s2", "Max chased a ball all afternoon.", "c-2", 1));
        assertThat(TopicLists.lists(once)).extracting(TopicList::topic).doesNotContain(Topic.PETS);
    }

    @Test
    void shouldListAPetSaidByKindAndByNameOnceAndNoListForThatOnePet() {
        // a fresh user's trial: "I work at Acme Corp. My dog is called Rex." gave "Pets: dog, dog Rex." for one dog
        final Memory kind = said("s1", "I walked my dog this morning.", "c-1", 0);
        final Memory name = said("s2", "I have a dog named Rex.", "c-2", 1);
        assertThat(TopicLists.values(kind)).containsEntry(Topic.PETS, List.of("dog"));
        assertThat(TopicLists.values(name)).containsEntry(Topic.PETS, List.of("dog Rex"));
        assertThat(TopicLists.lists(List.of(kind, name))).extracting(TopicList::topic).doesNotContain(Topic.PETS);

        final Memory cat = said("s3", "We got a cat named Luna.", "c-3", 2);
        assertThat(list(List.of(kind, name, cat), Topic.PETS)).satisfies(l -> {
            assertThat(l.content()).isEqualTo("Pets: dog Rex, cat Luna.");
            assertThat(l.statements()).as("the statement naming only the kind is still one of the list's")
                .extracting(Memory::getMemoryId).containsExactly("s1", "s2", "s3");
        });
        assertThat(TopicLists.namedKinds(List.of("guinea pig", "guinea pig Tom", "dog")))
            .containsExactly("guinea pig");
    }

    @Test
    void shouldStopAtTheCharacterLimitAndCiteNoStatementOfAValueLeftOut() {
        final List<Memory> statements = new ArrayList<>();
        final String[] places = {"Amsterdam", "Barcelona", "Copenhagen", "Dubrovnik", "Edinburgh", "Florence", "Geneva",
            "Helsinki", "Istanbul", "Jerusalem", "Kyoto", "Lisbon", "Marrakesh", "Naples", "Oslo", "Prague", "Quebec",
            "Reykjavik", "Salzburg", "Tallinn", "Utrecht", "Valencia", "Warsaw", "Yerevan", "Zagreb", "Antwerp",
            "Bruges", "Cordoba", "Dresden", "Esbjerg", "Funchal", "Granada", "Hamburg", "Innsbruck", "Krakow", "Leipzig",
            "Madrid", "Nice", "Porto", "Riga", "Seville", "Toledo", "Vienna", "Zurich"};
        for (int i = 0; i < 2 * places.length; i++) {
            final String place = (i < places.length ? "" : "New ") + places[i % places.length];
            statements.add(said("s" + i, "Last month we visited " + place + " for a week.", "c-" + i, i));
        }
        final TopicList visited = list(statements, Topic.PLACES);
        assertThat(visited.content().length()).isLessThanOrEqualTo(TopicLists.MAX_CHARS);
        assertThat(visited.values()).hasSizeLessThan(2 * places.length).startsWith("Amsterdam", "Barcelona");
        assertThat(visited.statements()).hasSize(visited.values().size())
            .allSatisfy(s -> assertThat(visited.values()).contains(s.getContent().replaceAll(".* visited (.+) for a week.", "$1")));
    }

    @Test
    void shouldGiveTheSameListsWhateverOrderTheStatementsWereReadIn() {
        final List<Memory> statements = new ArrayList<>(List.of(
            said("s1", "I go swimming with the kids on Sundays.", "c-1", 0),
            said("s2", "I signed up for a pottery class.", "c-2", 1),
            said("s3", "We went camping at the beach.", "c-3", 2),
            said("s4", "My son loves the dinosaur exhibit at the museum we went to.", "c-4", 3)));
        final List<TopicList> first = TopicLists.lists(statements);
        for (int seed = 0; seed < 5; seed++) {
            final List<Memory> shuffled = new ArrayList<>(statements);
            Collections.shuffle(shuffled, new Random(seed));
            assertThat(TopicLists.lists(shuffled)).isEqualTo(first);
        }
        assertThat(first).extracting(TopicList::content).contains("Activities and hobbies: swimming, pottery, camping.");
    }
}
