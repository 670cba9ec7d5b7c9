package dev.engram.privacy;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.privacy.PiiFilter.Kind;
import dev.engram.text.CaselessText;
import dev.engram.text.LiteralGate;

/**
 * Recognises credentials in free text, for {@link PiiFilter}. Most specific first, so a GitHub token
 * is reported as one and not as a generic secret:
 * <ol>
 *   <li>{@link Kind#PRIVATE_KEY}: a PEM block from {@code -----BEGIN … PRIVATE KEY-----} to its END line
 *       (or the end of the text when cut off);</li>
 *   <li>{@link Kind#JWT}: {@code eyJ…}.{@code eyJ…}.signature (base64url JSON header and payload);</li>
 *   <li>{@link Kind#GITHUB_TOKEN}: {@code ghp_|gho_|ghu_|ghs_|ghr_} + 30 or more alphanumerics, or
 *       {@code github_pat_…} (GitHub's documented token prefixes);</li>
 *   <li>{@link Kind#AWS_ACCESS_KEY}: {@code AKIA|ASIA|ABIA|ACCA} + 16 capitals or digits (AWS access key id format);</li>
 *   <li>{@link Kind#API_KEY}: {@code sk-…}/{@code sk_…}/{@code rk_…} (OpenAI, Anthropic, Stripe secret and
 *       restricted keys) with 16 or more further characters, Slack {@code xox?-…}, Google {@code AIza} + 35;</li>
 *   <li>{@link Kind#PASSWORD}: the word after "password / passwd / passphrase / passcode / pwd / pin"
 *       followed by "is", "was", ":" or "=" (filler words such as "the" or "same" are not taken for one);</li>
 *   <li>{@link Kind#SECRET}: the value after "secret / secret key / token / api key / access key / client
 *       secret" + "is / : / =" when it has 8+ characters and a digit, and any standalone token of 32+
 *       characters of {@code [A-Za-z0-9+/=_-]} that mixes upper case, lower case and digits with a Shannon
 *       entropy of at least 3.5 bits per character (an AWS secret access key, a random API token; hex
 *       digests and UUIDs are lower case only and are not matched).</li>
 * </ol>
 * Only the secret itself is replaced, so "the DB password is hunter2" keeps its sense as
 * "the DB password is [password]". Pure and thread-safe.
 */
final class Secrets {

    private static final Pattern PRIVATE_KEY = Pattern.compile(
        "-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\\z)");
    private static final Pattern JWT = Pattern.compile(
        "(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{8,}");
    private static final Pattern GITHUB = Pattern.compile(
        "(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})");
    private static final Pattern AWS = Pattern.compile("(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])");
    private static final Pattern API_KEY = Pattern.compile(
        "(?<![A-Za-z0-9_-])(?:(?:sk|rk)[-_][A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})");
    private static final String ASSIGN = "(?:(?:\\s+(?:is|was|=|:))+\\s*|\\s*[:=]\\s*)";
    private static final Pattern PASSWORD = Pattern.compile(
        "(?i)\\b(?:password|passwd|passphrase|passcode|pwd|pin)\\b" + ASSIGN + "[\"'`]?([^\\s\"'`,;]+?)[\"'`]?(?=[.,;!?]*(?:\\s|$))");
    private static final Pattern SECRET_PHRASE = Pattern.compile(
        "(?i)\\b(?:client[ _-]?secret|secret(?:[ _-]?(?:access[ _-]?)?key)?|api[ _-]?key|access[ _-]?key|auth[ _-]?token|token)\\b"
            + ASSIGN + "[\"'`]?([^\\s\"'`,;\\[]{8,}?)[\"'`]?(?=[.,;!?]*(?:\\s|$))");
    /** Characters of a standalone token for {@link #HIGH_ENTROPY}. */
    private static final int TOKEN_RUN = 32;
    private static final Pattern HIGH_ENTROPY = Pattern.compile("(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{" + TOKEN_RUN
        + ",}(?![A-Za-z0-9+/=_-])");
    private static final Set<String> FILLERS = Set.of("the", "a", "an", "my", "your", "same", "still", "not", "too",
        "also", "now", "changed", "different", "new", "old", "easy", "hard", "secret", "long", "short", "required",
        "set", "reset", "expired", "wrong", "correct", "stored", "saved");
    private static final double MIN_ENTROPY_BITS = 3.5;

    private Secrets() {
    }

    /**
     * @param text any text
     * @param found collects the kinds found
     * @return the text with every secret replaced by its kind's placeholder
     */
    static String redact(final String text, final Set<Kind> found) {
        String out = text;
        CaselessText words = CaselessText.of(text);
        for (final Step step : STEPS) {
            if (step.possible().test(words)) {
                final String next = step.replacer().apply(out, found);
                if (!next.equals(out)) {
                    out = next;
                    words = CaselessText.of(out); // a placeholder ("[api-key]") may hold a later pattern's word
                }
            }
        }
        return out;
    }

    /**
     * One pattern of {@link #redact}, in order.
     *
     * @param possible false only for a text the pattern cannot match in: the words it cannot match without
     *     ({@link LiteralGate})
     * @param replacer the replacement of its matches
     */
    private record Step(Predicate<CaselessText> possible, BiFunction<String, Set<Kind>, String> replacer) {
        Step(final Pattern pattern, final BiFunction<String, Set<Kind>, String> replacer) {
            this(LiteralGate.of(pattern)::mayMatch, replacer);
        }
    }

    private static final List<Step> STEPS = List.of(
        new Step(PRIVATE_KEY, (t, found) -> PiiFilter.replace(PRIVATE_KEY, t, Kind.PRIVATE_KEY, found, m -> true)),
        new Step(JWT, (t, found) -> PiiFilter.replace(JWT, t, Kind.JWT, found, m -> true)),
        new Step(GITHUB, (t, found) -> PiiFilter.replace(GITHUB, t, Kind.GITHUB_TOKEN, found, m -> true)),
        new Step(AWS, (t, found) -> PiiFilter.replace(AWS, t, Kind.AWS_ACCESS_KEY, found, m -> true)),
        new Step(API_KEY, (t, found) -> PiiFilter.replace(API_KEY, t, Kind.API_KEY, found, m -> true)),
        new Step(PASSWORD, (t, found) -> replaceValue(PASSWORD, t, Kind.PASSWORD, found, false)),
        new Step(SECRET_PHRASE, (t, found) -> replaceValue(SECRET_PHRASE, t, Kind.SECRET, found, true)),
        new Step(words -> hasTokenRun(words.text()), (t, found) -> PiiFilter.replace(HIGH_ENTROPY, t, Kind.SECRET, found,
            m -> random(m.group()))));

    /**
     * @return whether the text has a run of {@value #TOKEN_RUN} characters of {@link #HIGH_ENTROPY}'s class, which
     *     every match of it is (the pattern has no literal word to test)
     */
    static boolean hasTokenRun(final String text) {
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            final boolean token = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+'
                || c == '/' || c == '=' || c == '_' || c == '-';
            run = token ? run + 1 : 0;
            if (run >= TOKEN_RUN) {
                return true;
            }
        }
        return false;
    }

    /** Replaces group 1 of each match (the value after "password is"), keeping the words before it. */
    private static String replaceValue(final Pattern pattern, final String text, final Kind kind, final Set<Kind> found,
                                       final boolean needsDigit) {
        final Matcher m = pattern.matcher(text);
        final StringBuilder out = new StringBuilder();
        int last = 0;
        while (m.find()) {
            final String value = m.group(1);
            if (value.startsWith("[") || FILLERS.contains(value.toLowerCase(Locale.ROOT))
                || (needsDigit && value.chars().noneMatch(Character::isDigit))) {
                continue;
            }
            found.add(kind);
            out.append(text, last, m.start(1)).append(kind.placeholder());
            last = m.end(1);
        }
        out.append(text, last, text.length());
        return out.toString();
    }

    /**
     * @param token a candidate token
     * @return whether it mixes upper case, lower case and digits with at least {@value #MIN_ENTROPY_BITS}
     *     bits of Shannon entropy per character, H = -Σ p(c) log2 p(c) over its characters
     */
    static boolean random(final String token) {
        if (token.chars().noneMatch(Character::isUpperCase) || token.chars().noneMatch(Character::isLowerCase)
            || token.chars().noneMatch(Character::isDigit)) {
            return false;
        }
        final int[] counts = new int[128];
        for (int i = 0; i < token.length(); i++) {
            counts[token.charAt(i) & 127]++;
        }
        double bits = 0;
        for (final int count : counts) {
            if (count > 0) {
                final double p = (double) count / token.length();
                bits -= p * (Math.log(p) / Math.log(2));
            }
        }
        return bits >= MIN_ENTROPY_BITS;
    }
}
