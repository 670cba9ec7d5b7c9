package dev.engram.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.FactCategory;
import dev.engram.avro.MemorySource;
import dev.engram.avro.MemoryType;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import dev.engram.profile.ProfileProjection;
import dev.engram.text.TurnHeuristics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RuleBasedExtractorTest {

    private static final Instant T0 = Instant.parse("2025-02-03T09:12:00Z");

    private final RuleBasedExtractor extractor = new RuleBasedExtractor();

    /** One conversation whose messages alternate user / assistant starting with the given roles. */
    static ConversationCompleted conversation(final String... roleAndText) {
        final List<Message> messages = new ArrayList<>();
        for (int i = 0; i < roleAndText.length; i += 2) {
            messages.add(new Message(i / 2, roleAndText[i], roleAndText[i + 1], T0.plusSeconds(i)));
        }
        return ConversationCompleted.newBuilder().setTenantId("t1").setUserId("u1").setConversationId("c1")
            .setCompletedAt(T0.plusSeconds(60)).setMessages(messages).build();
    }

    private List<ExtractedMemory> said(final String text) {
        return extractor.extract(conversation("user", text), null);
    }

    private List<ExtractedMemory> facts(final String text) {
        return said(text).stream().filter(ExtractedMemory::isFact).toList();
    }

    /** The README's client example: a language written without "in" ("I mostly write Go"). */
    @Test
    void shouldReadTheLanguageTheUserWritesWhenItFollowsTheVerb() {
        assertThat(facts("I live in Madrid and I mostly write Go.")).extracting(ExtractedMemory::key, ExtractedMemory::value)
            .containsExactlyInAnyOrder(tuple("city", "Madrid"), tuple("preferred_language", "Go"));
        assertThat(facts("We write Rust at work.")).extracting(ExtractedMemory::value).containsExactly("Rust");
        // "go" the verb, and a word that only starts like a language, are no language
        assertThat(facts("I write go-to lists and then we go home.")).isEmpty();
    }

    @Test
    void shouldNameItselfRuleBasedV1() {
        assertThat(extractor.name()).isEqualTo("rule-based-v1");
    }

    // case-01, case-02, case-03, case-04, case-11: every statement the cases use

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        These days I write almost everything in Kotlin.                | preferred_language | Kotlin        | Main programming language is Kotlin
        As I said before, Kotlin is my main language.                  | preferred_language | Kotlin        | Main programming language is Kotlin
        I've been at Ferrovia Labs for three years now.                | employer           | Ferrovia Labs | Has worked at Ferrovia Labs for 3 years
        Three years at Ferrovia Labs, like I mentioned.                | employer           | Ferrovia Labs | Has worked at Ferrovia Labs for 3 years
        Four years at Ferrovia Labs as of this month.                  | employer           | Ferrovia Labs | Has worked at Ferrovia Labs for 4 years
        Sushi is my all-time favourite food.                           | preference:sushi   | like          | Likes sushi
        I've totally gone off sushi, can't stand it anymore.           | preference:sushi   | dislike       | Dislikes sushi
        I've been vegan for two years.                                 | diet               | vegan         | Follows a vegan diet (keep in mind when cooking or suggesting meals)
        still vegan, going strong                                      | diet               | vegan         | Follows a vegan diet (keep in mind when cooking or suggesting meals)
        vegan potluck was great                                        | diet               | vegan         | Follows a vegan diet (keep in mind when cooking or suggesting meals)
        Started eating fish again; being vegan wasn't working for me.  | diet               | pescatarian   | Follows a pescatarian diet (keep in mind when cooking or suggesting meals)
        I use IntelliJ for everything.                                 | ide                | IntelliJ      | Uses IntelliJ as IDE
        We relocated to Oslo                                           | city               | Oslo          | Lives in Oslo
        Now living in Trondheim                                        | city               | Trondheim     | Lives in Trondheim
        I live in Lyon.                                                | city               | Lyon          | Lives in Lyon
        We moved to Nantes last spring.                                | city               | Nantes        | Lives in Nantes
        """)
    void shouldExtractExactlyTheFactOfEveryCaseStatementWhenTheUserSaysIt(final String text, final String key,
                                                                         final String value, final String content) {
        assertThat(said(text)).singleElement().satisfies(m -> {
            assertThat(m.key()).isEqualTo(key);
            assertThat(m.value()).isEqualTo(value);
            assertThat(m.content()).isEqualTo(content);
            assertThat(m.negated()).isFalse();
            assertThat(m.sourceMessageIndexes()).containsExactly(0);
            assertThat(m.eventTime()).isEqualTo(T0);
            assertThat(m.importance()).isGreaterThanOrEqualTo(0.3);
            assertThat(m.confidence()).isGreaterThanOrEqualTo(0.5);
        });
    }

    @Test
    void shouldGiveTheSameContentWhenAFactIsRestatedInOtherWords() {
        // case-01 and case-02: a restatement must read as the same fact (same key, value, numbers)
        assertThat(facts("These days I write almost everything in Kotlin.").get(0).content())
            .isEqualTo(facts("As I said before, Kotlin is my main language.").get(0).content());
        assertThat(facts("I've been at Ferrovia Labs for three years now.").get(0).content())
            .isEqualTo(facts("Three years at Ferrovia Labs, like I mentioned.").get(0).content());
    }

    @Test
    void shouldMarkALoneDietWordInferredWithLowerConfidenceWhenNoVerbStatesIt() {
        final ExtractedMemory explicit = facts("I've been vegan for two years.").get(0);
        final ExtractedMemory inferred = facts("vegan potluck was great").get(0);
        assertThat(explicit.source()).isEqualTo(MemorySource.EXPLICIT);
        assertThat(inferred.source()).isEqualTo(MemorySource.INFERRED);
        assertThat(inferred.confidence()).isGreaterThanOrEqualTo(0.5).isLessThan(explicit.confidence());
        assertThat(explicit.category()).isEqualTo(FactCategory.CONSTRAINT);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        My name is Mira Jensen.                      | name               | Mira Jensen     | PERSONAL
        I work as a nurse.                           | role               | nurse           | ROLE
        I work at Globex.                            | employer           | Globex          | ROLE
        We're on GCP.                                | cloud_provider     | GCP             | TECHNICAL
        We mostly deploy everything on AWS.          | cloud_provider     | AWS             | TECHNICAL
        My editor of choice is Neovim.               | ide                | Neovim          | TECHNICAL
        I use Docker for all my side projects.       | uses:docker        | Docker          | TECHNICAL
        I mostly use Python.                         | preferred_language | Python          | TECHNICAL
        I love hiking in the mountains.              | preference:hiking  | like            | PREFERENCE
        I really enjoy board games.                  | preference:board_games | like        | PREFERENCE
        I hate cilantro.                             | preference:cilantro | dislike        | PREFERENCE
        I can't stand jazz.                          | preference:jazz    | dislike         | PREFERENCE
        My favourite food is ramen.                  | preference:ramen   | like            | PREFERENCE
        I'm vegetarian.                              | diet               | vegetarian      | CONSTRAINT
        I'm based in Berlin.                         | city               | Berlin          | PERSONAL
        """)
    void shouldExtractTheVocabularyFactWhenTheUserStatesIt(final String text, final String key, final String value,
                                                          final FactCategory category) {
        assertThat(facts(text)).extracting(ExtractedMemory::key, ExtractedMemory::value, ExtractedMemory::category)
            .containsExactly(tuple(key, value, category));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I love making jewelry out of recycled stuff.  | preference:making_jewelry    | Likes making jewelry
        I'm a huge fan of Lord of the Rings!          | preference:lord_of_the_rings | Likes Lord of the Rings
        I like also cheese pizza and prosciutto.      | preference:cheese_pizza      | Likes cheese pizza
        I love traveling too.                         | preference:traveling         | Likes traveling
        Great idea, except I don't like dark beer.    | preference:dark_beer         | Dislikes dark beer
        """)
    void shouldNameTheLikedThingWhenLocomoTurnsSayIt(final String text, final String key, final String content) {
        assertThat(facts(text)).extracting(ExtractedMemory::key, ExtractedMemory::content)
            .containsExactly(tuple(key, content));
    }

    // issue 27: every fact of a sentence, and the facts that were episodes or the wrong slot

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I have a pet hamster named Biscuit and I live in Ghent.   | pet:biscuit=Biscuit, city=Ghent
        I live in Tampere and I play chess.                       | city=Tampere, hobby:chess=chess
        I work at Norrland Bank as a data analyst.                | employer=Norrland Bank, role=data analyst
        I have a cat named Luna.                                  | pet:luna=Luna
        My son is named Oliver.                                   | family:son:oliver=Oliver
        My daughter is named Amara.                               | family:daughter:amara=Amara
        My favorite book is Middlemarch.                          | favorite:book=Middlemarch
        Harry Potter is my favorite book.                         | favorite:book=Harry Potter
        I prefer Trello.                                          | preference:trello=like
        I use Trello.                                             | uses:trello=Trello
        I'm allergic to peanuts and I take insulin.               | allergy:peanut=peanut, medication:insulin=insulin
        I have two cats, Salt and Pepa.                           | pet:salt=Salt, pet:pepa=Pepa
        我住在成都，养了一只叫豆豆的猫。                              | city=成都, pet:豆豆=豆豆
        我在腾讯当产品经理。                                        | employer=腾讯, role=产品经理
        I usually play CS:GO with my friends.                     | hobby:cs_go=CS:GO
        """)
    void shouldStateEveryFactOfTheSentenceInItsOwnSlotWhenTheUserSaysSeveral(final String text, final String expected) {
        assertThat(facts(text)).extracting(m -> m.key() + "=" + m.value())
            .containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    /** A trial: "green now" was stored as the colour; a title that ends in Now keeps it. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        Actually my favourite colour is green now.      | favorite:color=green
        My favorite color is blue now!                  | favorite:color=blue
        My favourite movie is Apocalypse Now.           | favorite:movie=Apocalypse Now
        """)
    void shouldLeaveATrailingNowOutOfAFavouriteWhenTheUserSaysItChanged(final String text, final String expected) {
        assertThat(facts(text)).extracting(m -> m.key() + "=" + m.value()).containsExactly(expected);
    }

    @Test
    void shouldCallAPreferenceAPreferenceAndAFavouriteBookAFavouriteWhenTheUserSaysSo() {
        assertThat(facts("I prefer Trello.")).singleElement().satisfies(m -> {
            assertThat(m.category()).isEqualTo(FactCategory.PREFERENCE);
            assertThat(m.content()).isEqualTo("Prefers Trello");
        });
        assertThat(facts("My favorite book is Middlemarch.")).extracting(ExtractedMemory::content)
            .containsExactly("Favorite book is Middlemarch");
        assertThat(facts("I prefer Kotlin.")).extracting(ExtractedMemory::key).as("a language preferred is the language slot")
            .containsExactly("preferred_language");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I'm allergic to shellfish.                   | allergy:shellfish          | shellfish
        I have a severe peanut allergy.              | allergy:peanut             | peanut
        I'm lactose intolerant.                      | intolerance:lactose        | lactose
        I have type 2 diabetes.                      | condition:type_2_diabetes  | type 2 diabetes
        I'm diabetic.                                | condition:diabetes         | diabetes
        I'm on blood thinners.                       | medication:blood_thinner   | blood thinner
        I don't eat pork.                            | avoids:pork                | pork
        I use a wheelchair.                          | accessibility:wheelchair   | wheelchair
        我对花生过敏。                                | allergy:花生               | 花生
        我坐轮椅。                                    | accessibility:轮椅          | 轮椅
        """)
    void shouldStateASafetyFactAsAnImportantConstraintWhenTheUserNamesAnAllergyConditionMedicationOrNeed(
        final String text, final String key, final String value) {
        assertThat(facts(text)).singleElement().satisfies(m -> {
            assertThat(m.key()).isEqualTo(key);
            assertThat(m.value()).isEqualTo(value);
            assertThat(m.category()).isEqualTo(FactCategory.CONSTRAINT);
            assertThat(m.importance()).as("above every other fact: ignoring it can harm").isGreaterThan(0.9);
            assertThat(m.negated()).isFalse();
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"My son is allergic to peanuts.", "My roommate has a cat named Gizmo.",
        "My wife uses a wheelchair.", "I have a headache today.", "I have a meeting at three.", "I'm not allergic to anything.",
        "My son takes metformin.",
        "I played chess with my nephew yesterday.", "I run a small bakery.", "我妹妹对花生过敏。", "我昨天去爬山了。",
        "Is it safe to eat prawns during pregnancy?", "I've been playing professionally for just under a year now."})
    void shouldStateNoFactOfTheUserWhenTheSentenceIsAboutSomeoneElseOrAPassingState(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"I love the color and texture.", "Thanks, John! I love making him happy.",
        "Connecting with the things I love makes writing even more fun.", "I love trying out new recipes.",
        "Here's a dessert with a gluten-free crust.", "I made a vegan lasagna for my sister's birthday party.",
        "I like to relax by reading."})
    void shouldExtractNoPreferenceWhenTheSentenceIsAReactionOrAClause(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @Test
    void shouldExtractRoleAndEmployerWhenBothAreInOneStatement() {
        assertThat(facts("I'm a senior backend engineer at Ferrovia Labs."))
            .extracting(ExtractedMemory::key, ExtractedMemory::value)
            .containsExactly(tuple("role", "senior backend engineer"), tuple("employer", "Ferrovia Labs"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I prefer short answers.                | concise       | Prefers concise answers
        Please always answer in bullet points. | bullet points | Prefers answers in bullet points
        I like detailed explanations.          | detailed      | Prefers detailed answers
        Keep it brief.                         | concise       | Prefers concise answers
        """)
    void shouldExtractAProceduralResponseStyleWhenTheUserSaysHowToAnswer(final String text, final String value,
                                                                        final String content) {
        assertThat(facts(text)).singleElement().satisfies(m -> {
            assertThat(m.type()).isEqualTo(MemoryType.PROCEDURAL);
            assertThat(m.key()).isEqualTo("response_style");
            assertThat(m.value()).isEqualTo(value);
            assertThat(m.content()).isEqualTo(content);
        });
    }

    // changes

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I no longer use Jira.              | uses:jira  | Jira          | No longer uses Jira
        I don't use Eclipse anymore.       | ide        | Eclipse       | No longer uses Eclipse as IDE
        I'm not vegan anymore.             | diet       | vegan         | No longer follows a vegan diet
        I no longer live in Lyon.          | city       | Lyon          | No longer lives in Lyon
        I no longer work at Initech.       | employer   | Initech       | No longer works at Initech
        I am no longer allergic to peanuts | allergy:peanut | peanut    | Is no longer allergic to peanut
        I'm not allergic to cats anymore.  | allergy:cat | cat          | Is no longer allergic to cat
        I'm no longer on warfarin.         | medication:warfarin | warfarin | No longer takes warfarin
        I don't take metformin anymore.    | medication:metformin | metformin | No longer takes metformin
        """)
    void shouldExtractANegatedFactWithTheRetractedValueWhenTheUserNoLongerDoesIt(final String text, final String key,
                                                                                 final String value,
                                                                                 final String content) {
        assertThat(facts(text)).singleElement().satisfies(m -> {
            assertThat(m.negated()).isTrue();
            assertThat(m.key()).isEqualTo(key);
            assertThat(m.value()).isEqualTo(value);
            assertThat(m.content()).isEqualTo(content);
        });
    }

    @Test
    void shouldKeepOnlyTheNewValueWhenATurnRetractsTheOldOneAndStatesTheNew() {
        assertThat(facts("I'm not vegan anymore. I've started eating fish again."))
            .extracting(ExtractedMemory::key, ExtractedMemory::value, ExtractedMemory::negated)
            .containsExactly(tuple("diet", "pescatarian", false));
    }

    @Test
    void shouldKeepTheLaterValueWhenOneTurnStatesAKeyTwice() {
        assertThat(facts("I lived in Lyon for years. We moved to Nantes in May."))
            .extracting(ExtractedMemory::key, ExtractedMemory::value)
            .containsExactly(tuple("city", "Nantes"));
    }

    /** Issue 26: a change said in one sentence keeps the new value; "!" marks a retraction. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I left IBM and now I work at Accenture.                           | employer=Accenture
        I quit Initech last month, I work for Hooli now.                  | employer=Hooli
        I no longer use Jira, we switched to Linear and it's much faster. | !uses:jira=Jira, uses:linear=Linear
        We switched from Jira to Linear last month.                       | uses:linear=Linear, !uses:jira=Jira
        I've switched to Fastmail for my email.                           | uses:fastmail=Fastmail
        These days I work at Hooli.                                       | employer=Hooli
        Now I work at Accenture.                                          | employer=Accenture
        I've moved to Porto.                                              | city=Porto
        I moved from Vienna to Graz.                                      | city=Graz
        I left Siemens and joined Bosch.                                  | employer=Bosch
        My new employer is Bosch.                                         | employer=Bosch
        My employer is now Bosch.                                         | employer=Bosch
        These days I live in Braga.                                       | city=Braga
        I got a new job at Globex.                                        | employer=Globex
        I've started a new role with Umbrella Labs.                       | employer=Umbrella Labs
        我搬到上海了。                                                      | city=上海
        我搬家到杭州了，离公司很近。                                          | city=杭州
        我跳槽到了字节跳动。                                                 | employer=字节跳动
        我去深圳工作了。                                                    | city=深圳
        我们换成了Linear。                                                  | uses:linear=Linear
        """)
    void shouldKeepTheNewValueWhenTheUserSaysAChangeInOneSentence(final String text, final String expected) {
        assertThat(facts(text)).extracting(m -> (m.negated() ? "!" : "") + m.key() + "=" + m.value())
            .containsExactlyInAnyOrder(expected.split(",\\s*"));
    }

    /** Issue 26: a routine restated in other words is one fact (one slot, one value), so it keeps one id. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I wake up at 6:30 every day.                                      | wake_time=6:30
        My alarm goes off at 6:30, I wake up at 6:30 even on weekends.    | wake_time=6:30
        I always wake up at 6.30 AM.                                      | wake_time=6:30 am
        We usually get up around 7am on Sundays.                          | wake_time=7 am
        I go to bed at 11 pm.                                             | bed_time=11 pm
        """)
    void shouldReadTheTimesOfTheUsersDayAsOneSlotEachWhenTheUserStatesThem(final String text, final String expected) {
        assertThat(facts(text)).extracting(m -> m.key() + "=" + m.value()).containsExactly(expected);
        assertThat(said(text)).as("the routine is the sentence: no episode repeats it").allMatch(ExtractedMemory::isFact);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Tomorrow I get up at 5 for the flight.", "If I wake up at 6 I'll go running.",
        "My son wakes up at 6."})
    void shouldStateNoRoutineWhenTheTimeIsAPlanAConditionOrSomeoneElses(final String text) {
        assertThat(facts(text)).noneMatch(m -> m.key().endsWith("_time"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"We switched to Monday meetings.", "I want to switch to Linear.", "We moved to Porto.",
        "我打算跳槽到腾讯。", "我想去深圳工作。", "我去年夏天去海边玩了。"})
    void shouldStateNoToolOrEmployerChangeWhenItIsADayAPlanOrAMove(final String text) {
        assertThat(facts(text)).noneMatch(m -> m.key().startsWith("uses:") || m.key().equals("employer"));
    }

    @Test
    void shouldExtractTheNewToolAndRetractTheOldWhenTheUserSwitchesBetweenSlots() {
        assertThat(facts("I switched from Eclipse to VS Code."))
            .extracting(ExtractedMemory::key, ExtractedMemory::value, ExtractedMemory::negated)
            .containsExactly(tuple("ide", "VS Code", false));
        assertThat(facts("We migrated from AWS to GCP last year."))
            .extracting(ExtractedMemory::key, ExtractedMemory::value, ExtractedMemory::negated)
            .containsExactly(tuple("cloud_provider", "GCP", false));
    }

    // number normalization

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        I've been at Initech for twelve years.       | Has worked at Initech for 12 years
        I have worked at Initech for 7 years.        | Has worked at Initech for 7 years
        I've been with Initech for a year.           | Has worked at Initech for 1 year
        Twenty years at Initech this spring.         | Has worked at Initech for 20 years
        """)
    void shouldWriteTenureAsDigitsWhenTheUserSpellsTheNumber(final String text, final String content) {
        assertThat(facts(text)).extracting(ExtractedMemory::content).containsExactly(content);
    }

    @Test
    void shouldTurnNumberWordsIntoDigits() {
        assertThat(NumberWords.toDigits("three years and Eleven months, one twenty")).isEqualTo("3 years and 11 months, 1 20");
        assertThat(NumberWords.toDigits("someone is lonely")).isEqualTo("someone is lonely");
    }

    // what is not a fact

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Hey Mel! Good to see you! How have you been?", "Thanks!", "Ok", "Wow, that's cool!",
        "Thanks, Melanie! That's really sweet.", "haha yes", "Talk to you soon!", "I love it!", "Sounds good, thank you"})
    void shouldExtractNothingWhenTheTurnIsSmallTalk(final String text) {
        assertThat(said(text)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"What was my locker code again?", "Can you remind me what I said about Lyon?",
        "Have you ever been to Sweden?"})
    void shouldRememberNothingWhenTheTurnOnlyAsksTheAssistant(final String text) {
        assertThat(said(text)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Do you use IntelliJ?", "If I moved to Paris I'd be happy.", "I'd love to live in Rome.",
        "My sister is vegan.", "I want to work at Google.", "I can't stand it.", "I love my kids so much.",
        "I'm thinking of moving to Oslo."})
    void shouldExtractNoFactWhenTheSentenceAsksWishesOrIsAboutSomeoneElse(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @Test
    void shouldReadOnlyUserMessagesWhenOtherRolesStateThings() {
        assertThat(extractor.extract(conversation("assistant", "I use IntelliJ and live in Oslo.",
            "system", "My name is Bot."), null)).isEmpty();
    }

    @Test
    void shouldExtractNothingWhenTheUserTurnedMemoryOff() {
        final var profile = ProfileProjection.empty("t1", "u1");
        profile.setMemoryEnabled(false);
        assertThat(extractor.extract(conversation("user", "I use IntelliJ for everything."), profile)).isEmpty();
    }

    // episodes

    @Test
    void shouldMakeOneEpisodeOfTheTurnTextWhenTheTurnHasNoFact() {
        final String text = "I went to a LGBTQ support group yesterday and it was so powerful. [image: a photo of a flag]";
        final List<ExtractedMemory> memories = extractor.extract(conversation("assistant", "Hi!", "user", text), null);
        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.type()).isEqualTo(MemoryType.EPISODIC);
            assertThat(m.content()).as("the turn as said, its relative date resolved")
                .isEqualTo(text.replace("yesterday", "yesterday (2 February 2025)"));
            assertThat(m.eventDates()).containsExactly("2025-02-02");
            assertThat(m.language()).isEqualTo("en");
            assertThat(m.key()).isNull();
            assertThat(m.sourceMessageIndexes()).containsExactly(1);
            assertThat(m.eventTime()).isEqualTo(T0.plusSeconds(2));
            assertThat(m.confidence()).isEqualTo(RuleBasedExtractor.EPISODIC_CONFIDENCE);
            assertThat(m.importance()).isGreaterThan(0.6);
        });
    }

    @Test
    void shouldRememberTheAssistantsReplyAsAnExchangeThatSaysWhoSaidWhatAndNeverAsAFact() {
        final List<ExtractedMemory> memories = extractor.extract(conversation(
            "user", "Can you recommend some painters?",
            "assistant", "I use IntelliJ. You could try Monet and Turner, they painted light beautifully."), null);
        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.type()).isEqualTo(MemoryType.EPISODIC);
            assertThat(m.content()).isEqualTo("User: Can you recommend some painters? — Assistant: I use IntelliJ. "
                + "You could try Monet and Turner, they painted light beautifully.");
            assertThat(m.displayName()).isEqualTo("Assistant recommendation");
            assertThat(m.sourceMessageIndexes()).containsExactly(0, 1);
        });
    }

    @Test
    void shouldMakeNoExchangeOfAReplyThatIsOnlySmallTalkOrQuestions() {
        assertThat(extractor.extract(conversation("user", "I moved to Oslo.", "assistant", "Nice! How is it?"), null))
            .extracting(ExtractedMemory::sourceMessageIndexes).containsExactly(List.of(0));
    }

    @Test
    void shouldMakeNoExchangeWhenExchangesAreOff() {
        assertThat(new RuleBasedExtractor(false).extract(conversation("user", "Can you recommend some painters?",
            "assistant", "You could try Monet and Turner."), null)).isEmpty();
    }

    @Test
    void shouldAddTheQuestionATurnAnswersAsContextButNotAsASource() {
        final List<ExtractedMemory> memories = extractor.extract(conversation(
            "assistant", "That's great to hear! What did you do to relax this weekend?",
            "user", "Went hiking with my dog Max along the river."), null);
        assertThat(memories).filteredOn(m -> m.type() == MemoryType.EPISODIC).singleElement().satisfies(m -> {
            assertThat(m.content()).isEqualTo("Went hiking with my dog Max along the river. "
                + "(re: \"What did you do to relax this weekend?\")");
            assertThat(m.sourceMessageIndexes()).containsExactly(1);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"zh:我们全家去了黄山，风景特别美。", "ja:私は大阪に住んでいて、週末はよく登山をします。",
        "ko:저는 부산에 살고 있고 고양이 두 마리를 키워요.", "ar:أعيش في عمّان وأعمل ممرضة في مستشفى الجامعة.",
        "vi:Tôi sống ở Đà Nẵng và thích uống cà phê sữa đá."})
    void shouldKeepATurnInAnyLanguageAboveTheImportanceFloorWithItsLanguage(final String languageAndText) {
        final String language = languageAndText.substring(0, 2);
        final String text = languageAndText.substring(3);
        assertThat(said(text)).singleElement().satisfies(m -> {
            assertThat(m.content()).isEqualTo(text);
            assertThat(m.language()).isEqualTo(language);
            assertThat(m.importance()).isGreaterThanOrEqualTo(0.3);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        我住在北京，在华为工作。                       | city=北京:住在北京, employer=华为:在华为工作
        我在北京工作。                                 | city=北京:住在北京
        我住在杭州，在一家做电动车的公司当工程师。         | city=杭州:住在杭州, role=工程师:职业是工程师
        我们现在住在深圳市。                           | city=深圳市:住在深圳市
        我是一名软件工程师。                           | role=软件工程师:职业是软件工程师
        我很喜欢爬山。                                 | preference:爬山=like:喜欢爬山
        我不喜欢看恐怖片。                             | preference:看恐怖片=dislike:不喜欢看恐怖片
        """)
    void shouldReadChineseStatementsAsFactsInChinese(final String text, final String expected) {
        assertThat(facts(text)).extracting(m -> m.key() + "=" + m.value() + ":" + m.content())
            .containsExactly(expected.split(",\\s*"));
        assertThat(said(text)).allSatisfy(m -> assertThat(m.language()).isEqualTo("zh"));
        assertThat(said(text)).as("every clause is a fact: no episode repeats them").allMatch(ExtractedMemory::isFact);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"他住在上海。", "我朋友住在上海，在腾讯工作。", "我以前住在上海。", "如果我住在上海就好了。",
        "我打算在谷歌工作。", "我喜欢你。", "我在思考将来要不要换一份工作。", "我最喜欢的活动是游泳。",
        "我很喜欢里面的演员和剧情。"})
    void shouldStateNoChineseFactForSomeoneElseAWishThePastOrANegation(final String text) {
        assertThat(facts(text)).isEmpty();
    }

    @Test
    void shouldKeepTheNameInTheEpisodeOfAChineseTurn() {
        final String text = "我叫林晓，住在杭州，在一家做电动车的公司当工程师。";
        assertThat(said(text)).extracting(ExtractedMemory::content).containsExactly("住在杭州", "职业是工程师", text);
    }

    @Test
    void shouldKeepTheEpisodeWhenASentenceSaysMoreThanItsFact() {
        final String zh = "我喜欢看动作片和喜剧片，这些种类的电影总是让我感到兴奋和愉快。";
        assertThat(said(zh)).extracting(ExtractedMemory::content)
            .containsExactly("喜欢看动作片和喜剧片", zh);
        final String en = "Well, I like singing, dancing, working out, traveling, watching movies, and photography.";
        assertThat(said(en)).extracting(ExtractedMemory::content).contains(en);
        assertThat(said(en)).filteredOn(ExtractedMemory::isFact).singleElement()
            .satisfies(f -> assertThat(f.key()).startsWith("preference:"));
        assertThat(said("I love sushi.")).as("a sentence that is all fact has no episode")
            .singleElement().satisfies(m -> assertThat(m.isFact()).isTrue());
    }

    @Test
    void shouldTreatSmallTalkAndQuestionsInOtherLanguagesAsNothingToStore() {
        assertThat(said("谢谢！好的。")).isEmpty();
        assertThat(said("你住在哪里？")).isEmpty();
        assertThat(said("ありがとうございます！")).isEmpty();
        assertThat(said("감사합니다!")).isEmpty();
    }

    @Test
    void shouldNameFamilyPetsPlacesAndPlansAsFactsAndKeepTheSentenceInTheEpisode() {
        final String text = "I went to Paris with my daughter Chloe and my dog Max.";
        final List<ExtractedMemory> memories = said(text);
        assertThat(memories).extracting(ExtractedMemory::key, ExtractedMemory::content).containsExactly(
            tuple("family:daughter:chloe", "Has a daughter named Chloe"), tuple("pet:max", "Has a dog named Max"),
            tuple("visited:paris", "Went to Paris"), tuple(null, text));
        assertThat(facts("My best friend Sarah moved here.")).extracting(ExtractedMemory::key)
            .containsExactly("friend:sarah");
        assertThat(facts("I want to get into jazz.")).extracting(ExtractedMemory::content)
            .containsExactly("Wants to get into jazz");
        assertThat(facts("We're planning to adopt a puppy.")).extracting(ExtractedMemory::key)
            .containsExactly("plan:adopt_puppy");
        assertThat(facts("If I want to go to Rome, I'll save up.")).isEmpty();
    }

    @Test
    void shouldMakeNoEpisodeWhenEverySentenceOfTheTurnMadeAFact() {
        assertThat(said("Thanks! These days I write almost everything in Kotlin."))
            .extracting(ExtractedMemory::type).containsExactly(MemoryType.SEMANTIC);
    }

    @Test
    void shouldMakeAFactAndAnEpisodeWhenTheTurnSaysMoreThanTheFact() {
        final String text = "I live in Lyon. Last weekend my daughter Chloe won her first chess tournament!";
        assertThat(said(text)).extracting(ExtractedMemory::type, ExtractedMemory::content)
            .containsExactly(tuple(MemoryType.SEMANTIC, "Lives in Lyon"),
                tuple(MemoryType.SEMANTIC, "Has a daughter named Chloe"),
                tuple(MemoryType.EPISODIC, text.replace("Last weekend", "Last weekend (1–2 February 2025)")));
    }

    @Test
    void shouldRateEpisodesByFirstPersonEntitiesNumbersAndLength() {
        assertThat(TurnHeuristics.importance(List.of("Is this your own painting?"))).isEqualTo(0.2);
        assertThat(TurnHeuristics.importance(List.of("I painted it."))).isEqualTo(0.35);
        assertThat(TurnHeuristics.importance(List.of(
            "I went to a LGBTQ support group yesterday and it was so powerful."))).isEqualTo(0.75);
        assertThat(TurnHeuristics.importance(List.of("We drove to Lake Tahoe with the kids in August of 2022 and "
            + "spent three days hiking, swimming and roasting marshmallows by the fire every night."))).isEqualTo(0.85);
    }

    @Test
    void shouldCountASentenceWithoutItsSubjectAsTheSpeakerSpeakingOfThemselves() {
        // diary style: the dropped subject is the speaker (case-16's low-importance remark is stored, at 0.35)
        assertThat(TurnHeuristics.importance(List.of("Had a sandwich at the station."))).isEqualTo(0.35);
        assertThat(TurnHeuristics.importance(List.of("Just finished a long walk."))).isEqualTo(0.35);
        assertThat(TurnHeuristics.importance(List.of("Painted the fence blue."))).isEqualTo(0.35);
        // not a verb, or an imperative: no subject was dropped
        assertThat(TurnHeuristics.importance(List.of("Red cars look fast."))).isEqualTo(0.2);
        assertThat(TurnHeuristics.importance(List.of("Feed the cat twice."))).isEqualTo(0.2);
        assertThat(TurnHeuristics.importance(List.of("Justin made pasta."))).isEqualTo(0.2);
    }

    @Test
    void shouldMergeIdenticalStatementsOfOneConversationIntoOneMemory() {
        final List<ExtractedMemory> memories = extractor.extract(conversation(
            "user", "I use IntelliJ for everything.", "assistant", "Nice.", "user", "I use IntelliJ for everything."), null);
        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.sourceMessageIndexes()).containsExactly(0, 2);
            assertThat(m.eventTime()).isEqualTo(T0);
        });
    }

    @Test
    void shouldGiveTheSameMemoriesWhenTheSameConversationIsExtractedTwice() {
        final String[] turns = {"user", "Hey! I'm a nurse at Mercy General and I live in Boston.",
            "assistant", "Cool.", "user", "We went to Maine for two weeks in July; the kids loved the lobster.",
            "user", "I've totally gone off sushi, can't stand it anymore."};
        final List<ExtractedMemory> first = extractor.extract(conversation(turns), null);
        assertThat(new RuleBasedExtractor().extract(conversation(turns), null)).isEqualTo(first);
        assertThat(first).hasSize(6);
    }
}
