package dev.engram.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.text.CaselessPattern;

/**
 * Someone else's words in a user's turn, which state nothing about the user ({@link FactRules#extract}): direct speech
 * after a speaker who is not the user ("My friend told me: I live in Rome", "Tom said \"I use Emacs\""), quotations
 * over several sentences whose speaker is named before or after them, and present-tense indirect speech before a
 * first-person clause ("she says I live in Rome"), except from a clinician ("my doctor says I'm allergic to penicillin"
 * stays the user's, a safety fact), "X said (that) I …" of anyone but the user or a clinician ("My boss said I live in
 * Ottawa"), and a Chinese quotation after 说 with a colon or quotation mark (我朋友说：我住在上海). The user's own quotes
 * ("I told him: I'm vegan"), reported speech ("I told him I live in Rome") and a clinician's ("the doctor said I'm
 * allergic to penicillin") stay the user's.
 */
final class ReportedSpeech {

    /**
     * Someone else quoted: a speaker who is not the user ("My friend told me:", "she says,", "Tom said \"") before a colon
     * or a quotation mark, or anywhere in a sentence with a quotation ("\"I live in Rome,\" my friend said"). Group 1 is
     * the speaker; a speaker of {@link #SELF} quotes the user's own words.
     */
    private static final CaselessPattern SPEAKER = CaselessPattern.compile(
        "\\b([\\p{L}']+)\\s+(?:(?:always|just|once|then|now|also|even|often|keeps?|kept)\\s+)?"
            + "(?:told|tells|tell|said|says|say|wrote|writes|texted|texts|replied|replies|asked|asks|put\\s+it)"
            + "(?:\\s+(?:me|us|him|her|them))?\\s*(:|,?\\s*\")?");

    /**
     * Words before a speech verb whose quoted words are the user's: the user, a "we" that includes them, "let me tell
     * you:" and "to tell you the truth:".
     */
    private static final List<String> SELF = List.of("i", "we", "me", "to");

    /**
     * Someone else's words without a colon or a quotation mark: a speech verb in the present tense right before a
     * first-person clause ("she says I live in Rome", "Tom tells me I'm moving to Oslo"): the present tense quotes
     * the speaker's own "I" as it is typed in chat. Past-tense reported speech ("the doctor said I'm allergic to
     * penicillin", "my boss told me I'm getting promoted") is about the user, and stays the user's. Group 1 is the
     * speaker.
     */
    private static final CaselessPattern INDIRECT = CaselessPattern.compile(
        "\\b([\\p{L}']+)\\s+(?:(?:always|just|now|also|even|often|still)\\s+)?"
            + "(?:says|writes|texts|tells\\s+(?:me|us|him|her|them|everyone|people))\\s+(?=i(?:'m|'ve|'ll|'d)?\\b)");

    /**
     * Someone else's past words about "I" said with "said": "My boss said I live in Ottawa now, lol he is confused",
     * "she said that I'm vegan". What another person said the user is, is theirs to say: the user's facts are the user's
     * own words (a clinician's, {@link #CLINICIANS}, stay the user's: "the doctor said I'm allergic to penicillin"; and
     * "I told him I live in Rome" is the user's). Group 1 is the speaker.
     */
    private static final CaselessPattern SAID = CaselessPattern.compile(
        "\\b([\\p{L}']+)\\s+(?:(?:always|just|once|also|even|then)\\s+)?said\\s+(?:that\\s+)?(?=i(?:'m|'ve|'ll|'d)?\\b)");

    /**
     * A Chinese quotation: a speaker, a speech verb and a full-width or ASCII colon or an opening quotation mark
     * (我朋友说：我住在上海。, 他告诉我「我是素食者」, 老板说"…"; curly quotes are straight ones here). Group 1 is the speaker,
     * the words of the clause before the verb; the user when it starts with 我 as {@link ChineseRules#USER_FIRST} reads it.
     */
    private static final Pattern CHINESE_QUOTE = Pattern.compile(
        "([^，,。；;！!？?\\s：:「\"]{1,8}?)(?:说过?|告诉过?我|讲|写道|问我)\\s*[：:「\"]");

    /** Speakers whose present-tense words about "I" are still about the user: who examines or treats them. */
    private static final List<String> CLINICIANS = List.of("doctor", "dr", "gp", "nurse", "dentist", "allergist",
        "physician", "pharmacist", "specialist", "cardiologist", "dermatologist", "therapist", "surgeon", "test",
        "results", "doc");

    /** After a closing quotation mark, its speaker: "," she said", "" my friend says", "" said Tom" (no sentence end between). */
    private static final CaselessPattern SPEAKER_AFTER = CaselessPattern.compile(
        "^\\s*,?\\s*(?:(?:my|our|his|her|the|a)\\s+)?([\\p{L}']+)\\s+(?:told|tells|said|says|wrote|writes|texted"
            + "|texts|replied|replies|asked|asks|added|adds)\\b|^\\s*,?\\s*(?:said|says|wrote|asked|replied)\\s+([\\p{L}']+)");

    private ReportedSpeech() {
    }

    /**
     * Where a sentence quotes someone else ({@link #SPEAKER}, the speaker not the user): from a colon or opening quotation
     * mark right after the speech verb to the closing quotation mark (or the sentence's end), and every quotation in
     * such a sentence. "My friend told me: I live in Rome" states the friend's city, not the user's; "I told him: I'm
     * vegan" and an indirect "the doctor said I'm allergic to penicillin" (the user is the "I") stay the user's.
     *
     * @param text a sentence, quotes normalized
     * @return [start, end) spans of someone else's words, possibly none
     */
    static List<int[]> spans(final String text, final boolean ascii) {
        final List<int[]> spans = new ArrayList<>();
        final Matcher indirect = INDIRECT.matcher(text, ascii);
        while (indirect.find()) {
            final String speaker = indirect.group(1).toLowerCase(Locale.ROOT);
            if (!SELF.contains(speaker) && !CLINICIANS.contains(speaker)) {
                spans.add(new int[] {indirect.end(), text.length()});
            }
        }
        spans.addAll(othersSaid(text, ascii));
        spans.addAll(chineseQuotations(text));
        if (text.indexOf(':') < 0 && text.indexOf('"') < 0) {
            return spans; // no direct speech without a colon or a quotation mark
        }
        boolean other = false;
        final Matcher m = SPEAKER.matcher(text, ascii);
        while (m.find()) {
            if (SELF.contains(m.group(1).toLowerCase(Locale.ROOT))) {
                continue;
            }
            other = true;
            if (m.group(2) != null) {
                final int close = m.group(2).endsWith("\"") ? text.indexOf('"', m.end()) : -1;
                spans.add(new int[] {m.end(), close < 0 ? text.length() : close});
            }
        }
        for (int open = text.indexOf('"'); other && open >= 0; ) {
            final int close = text.indexOf('"', open + 1);
            spans.add(new int[] {open, close < 0 ? text.length() : close});
            open = close < 0 ? -1 : text.indexOf('"', close + 1);
        }
        return spans;
    }

    /** @return from each "X said (that) I" of a speaker not the user nor a clinician ({@link #SAID}) to the sentence's end */
    private static List<int[]> othersSaid(final String text, final boolean ascii) {
        final List<int[]> spans = new ArrayList<>();
        final Matcher said = SAID.matcher(text, ascii);
        while (said.find()) {
            final String speaker = said.group(1).toLowerCase(Locale.ROOT);
            if (!SELF.contains(speaker) && !CLINICIANS.contains(speaker)) {
                spans.add(new int[] {said.end(), text.length()});
            }
        }
        return spans;
    }

    /** @return the words of each Chinese quotation ({@link #CHINESE_QUOTE}) whose speaker is not the user */
    private static List<int[]> chineseQuotations(final String text) {
        final List<int[]> spans = new ArrayList<>();
        final Matcher m = CHINESE_QUOTE.matcher(text);
        while (m.find()) {
            if (!ChineseRules.USER_FIRST.matcher(m.group(1)).lookingAt()) {
                final char open = text.charAt(m.end() - 1);
                final int close = open == '「' ? text.indexOf('」', m.end()) : open == '"' ? text.indexOf('"', m.end()) : -1;
                spans.add(new int[] {m.end(), close < 0 ? text.length() : close});
            }
        }
        return spans;
    }

    /**
     * Someone else's quotations in a whole turn, for quotations over several sentences (the sentences are read one by
     * one, so a quotation opened in one sentence and closed in a later one left the later ones the user's: She said:
     * "I live in Rome. I love my job."). A quotation (a pair of quotation marks, in order) is someone else's when its
     * speaker is not the user ({@link #SELF}): named right before it ({@link #SPEAKER}: "She said: \"", "Tom said
     * \"") or right after it ({@link #SPEAKER_AFTER}: "…," she said"). "I told him: \"I live in Rome. I love my
     * job.\"" quotes the user.
     *
     * @param turn a user's turn, quotes normalized ({@link FactRules#normalizeQuotes}: same length, so spans are the turn's)
     * @return [start, end) spans of the turn inside someone else's quotations, possibly none
     */
    static List<int[]> othersQuotations(final String turn) {
        final List<int[]> out = new ArrayList<>();
        final String text = FactRules.normalizeQuotes(turn);
        for (int open = text.indexOf('"'); open >= 0; ) {
            final int close = text.indexOf('"', open + 1);
            final int end = close < 0 ? text.length() : close;
            if (!speakerIsUser(text, open, end)) {
                out.add(new int[] {open, end});
            }
            open = close < 0 ? -1 : text.indexOf('"', close + 1);
        }
        return out;
    }

    /** @return whether the quotation [open, close) has no speaker, or the user as its speaker */
    private static boolean speakerIsUser(final String text, final int open, final int close) {
        final int from = Math.max(0, open - 80);
        final String before = text.substring(from, open + 1);
        String speaker = null;
        final Matcher m = SPEAKER.matcher(before);
        while (m.find()) {
            final String between = before.substring(m.end()).strip();
            if (m.group(2) != null && (between.isEmpty() || between.equals("\""))) {
                speaker = m.group(1);
            }
        }
        if (speaker == null && close < text.length()) {
            final Matcher after = SPEAKER_AFTER.matcher(text.substring(close + 1));
            if (after.find()) {
                speaker = after.group(1) != null ? after.group(1) : after.group(2);
            }
        }
        return speaker == null || SELF.contains(speaker.toLowerCase(Locale.ROOT));
    }
}
