package dev.engram.privacy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.engram.avro.ConversationCompleted;
import dev.engram.avro.Message;
import dev.engram.port.ExtractedMemory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Finds personal identifiers in memory text before it is stored or embedded, and redacts them or
 * drops the memory ({@code privacy.pii.action}). Kinds:
 * <ul>
 *   <li>{@link Kind#CARD}: 13–19 digits, optionally grouped by spaces or hyphens, that pass the Luhn
 *       check (so order numbers and phone numbers mostly do not match);</li>
 *   <li>{@link Kind#IBAN}: two capital letters, two check digits and 11–30 capitals or digits (compact or
 *       in groups of four, as printed) whose ISO 13616 mod-97 remainder is 1;</li>
 *   <li>{@link Kind#NATIONAL_ID}: US social security numbers {@code ddd-dd-dddd} (area not 000, 666
 *       or 9xx, group not 00, serial not 0000) and UK national insurance numbers
 *       ({@code AB 12 34 56 C}).</li>
 * </ul>
 * A match is replaced by {@code [card]}, {@code [iban]} or {@code [national-id]}. Each detection is
 * counted on {@value #METER} with tags {@code kind} and {@code action}; nothing is ever logged (the
 * matched text would be the leak). Pure and thread-safe apart from the counters.
 *
 * <p>Secrets (credentials) are found by {@link Secrets} in the same pass, replaced by
 * {@code [api-key]}, {@code [aws-access-key]}, {@code [github-token]}, {@code [jwt]},
 * {@code [private-key]}, {@code [password]} or {@code [secret]}, and counted on {@value #SECRETS_METER}
 * by kind: an API key, token or password said in a conversation never reaches an embedding, a memory,
 * a summary, a profile or an export.
 */
public final class PiiFilter {

    /** Counter of identifiers found, tags {@code kind} (card, iban, national_id) and {@code action}. */
    public static final String METER = "engram.pii.detected";

    /** Counter of secrets found (API keys, tokens, passwords), tags {@code kind} and {@code action}. */
    public static final String SECRETS_METER = "engram.secrets.detected";

    /** What to do with a memory that contains an identifier. */
    public enum Action {
        /** replace each identifier by a placeholder and keep the memory */
        REDACT,
        /** do not store the memory at all */
        DROP
    }

    /** The kinds of identifier recognised. */
    public enum Kind {
        /** payment card number (Luhn-checked) */
        CARD("[card]"),
        /** IBAN (mod-97-checked) */
        IBAN("[iban]"),
        /** US SSN or UK national insurance number */
        NATIONAL_ID("[national-id]"),
        /** provider API key: {@code sk-…}, {@code sk_live_…}, {@code xox?-…} (Slack), {@code AIza…} (Google) */
        API_KEY("[api-key]", true),
        /** AWS access key id ({@code AKIA…}, {@code ASIA…}: 4 letters + 16 capitals or digits) */
        AWS_ACCESS_KEY("[aws-access-key]", true),
        /** GitHub token ({@code ghp_…}, {@code gho_…}, {@code ghs_…}, {@code github_pat_…}) */
        GITHUB_TOKEN("[github-token]", true),
        /** JSON Web Token (three base64url parts, the first two starting {@code eyJ}) */
        JWT("[jwt]", true),
        /** a PEM private key block */
        PRIVATE_KEY("[private-key]", true),
        /** the value after "password / passphrase / pin is …" */
        PASSWORD("[password]", true),
        /** the value after "secret / token / api key / access key is …", or a long mixed-case high-entropy token */
        SECRET("[secret]", true);

        private final String placeholder;
        private final boolean secret;

        Kind(final String placeholder) {
            this(placeholder, false);
        }

        Kind(final String placeholder, final boolean secret) {
            this.placeholder = placeholder;
            this.secret = secret;
        }

        /** @return the text that replaces a match */
        public String placeholder() {
            return placeholder;
        }

        /** @return whether this kind is a credential (counted on {@value #SECRETS_METER}) rather than an identifier */
        public boolean secret() {
            return secret;
        }
    }

    /**
     * The result of scanning one text.
     *
     * @param text the text with every identifier replaced by its placeholder
     * @param found the kinds found, empty when clean
     */
    public record Scan(String text, Set<Kind> found) {
        /** @return true when nothing was found */
        public boolean clean() {
            return found.isEmpty();
        }
    }

    private static final Pattern CARD = Pattern.compile("(?<![\\d-])\\d(?:[ -]?\\d){12,18}(?![\\d-])");
    /** Written compact or in groups of four, upper case as IBANs are printed. */
    private static final Pattern IBAN = Pattern.compile(
        "(?<![A-Za-z0-9])[A-Z]{2}\\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)(?![A-Za-z0-9])");
    private static final Pattern SSN = Pattern.compile("(?<![\\d-])(\\d{3})-(\\d{2})-(\\d{4})(?![\\d-])");
    private static final Pattern NINO = Pattern.compile(
        "(?i)(?<![a-z0-9])[a-ceghj-pr-tw-z][a-ceghj-npr-tw-z] ?\\d{2} ?\\d{2} ?\\d{2} ?[a-d](?![a-z0-9])");

    private final Action action;
    private final Map<Kind, Counter> counters = new EnumMap<>(Kind.class);

    /**
     * @param action redact or drop
     * @param registry where {@value #METER} is counted
     */
    public PiiFilter(final Action action, final MeterRegistry registry) {
        this.action = action;
        for (final Kind kind : Kind.values()) {
            counters.put(kind, Counter.builder(kind.secret() ? SECRETS_METER : METER)
                .description(kind.secret() ? "Secrets (keys, tokens, passwords) found before storage, by kind"
                    : "Personal identifiers found before storage, by kind")
                .tag("kind", kind.name().toLowerCase(Locale.ROOT)).tag("action", action.name().toLowerCase(Locale.ROOT))
                .register(registry));
        }
    }

    /**
     * @param value {@code redact} or {@code drop} (any case)
     * @return the action
     * @throws IllegalArgumentException for anything else
     */
    public static Action action(final String value) {
        return Action.valueOf(value.strip().toUpperCase(Locale.ROOT));
    }

    /** @return the configured action */
    public Action action() {
        return action;
    }

    /**
     * Scans one text (not counted).
     *
     * @param text any text, or null
     * @return the redacted text and the kinds found; null text gives a clean scan of null
     */
    public static Scan scan(final String text) {
        if (text == null) {
            return new Scan(null, Set.of());
        }
        final Set<Kind> found = EnumSet.noneOf(Kind.class);
        // Secrets first: a token's digits must not be half-redacted as a card number.
        String out = Secrets.redact(text, found);
        // each of the four needs a digit 0-9 (\d); their placeholders have none, so a text without one stays as is
        if (out.chars().anyMatch(c -> c >= '0' && c <= '9')) {
            out = replace(IBAN, out, Kind.IBAN, found, m -> ibanValid(m.group()));
            out = replace(CARD, out, Kind.CARD, found, m -> luhnValid(m.group()));
            out = replace(SSN, out, Kind.NATIONAL_ID, found, PiiFilter::ssnValid);
            out = replace(NINO, out, Kind.NATIONAL_ID, found, m -> true);
        }
        return new Scan(out, Set.copyOf(found));
    }

    /**
     * Applies the filter to extracted memories: each memory's content, value and display name are
     * scanned; with REDACT the placeholders replace the identifiers, with DROP the memory is left out.
     * Every kind found in a memory is counted once.
     *
     * @param memories extracted memories
     * @return the memories to embed and store, in order
     */
    public List<ExtractedMemory> apply(final List<ExtractedMemory> memories) {
        final List<ExtractedMemory> out = new ArrayList<>(memories.size());
        for (final ExtractedMemory m : memories) {
            final Scan content = scan(m.content());
            final Scan value = scan(m.value());
            final Scan name = scan(m.displayName());
            final Set<Kind> found = EnumSet.noneOf(Kind.class);
            found.addAll(content.found());
            found.addAll(value.found());
            found.addAll(name.found());
            if (found.isEmpty()) {
                out.add(m);
                continue;
            }
            found.forEach(kind -> counters.get(kind).increment());
            if (action == Action.REDACT) {
                out.add(new ExtractedMemory(m.type(), m.category(), m.key(), value.text(), name.text(), content.text(),
                    m.negated(), m.importance(), m.confidence(), m.source(), m.sourceMessageIndexes(), m.eventTime(),
                    m.language(), m.eventDates(), m.customCategory()));
            }
        }
        return out;
    }

    /**
     * Filters one text (a user's correction), counting what it finds.
     *
     * @param text the text
     * @return the redacted text, or null when the action is DROP and the text has an identifier
     */
    public String filterText(final String text) {
        final Scan scan = scan(text);
        scan.found().forEach(kind -> counters.get(kind).increment());
        if (scan.clean()) {
            return text;
        }
        return action == Action.REDACT ? scan.text() : null;
    }

    /**
     * Removes secrets from a conversation's messages before extraction, so neither the extractor (a
     * remote LLM included) nor anything stored downstream sees them; each kind found is counted once.
     * Identifiers (cards, IBANs) stay in the input: they are filtered from the extractor's output.
     *
     * @param conversation a conversation as consumed
     * @return the same instance when no message holds a secret, else a copy with placeholders
     */
    public ConversationCompleted withoutSecrets(final ConversationCompleted conversation) {
        final Set<Kind> found = EnumSet.noneOf(Kind.class);
        final List<Message> messages = new ArrayList<>(conversation.getMessages().size());
        for (final Message message : conversation.getMessages()) {
            final String content = message.getContent();
            final String redacted = content == null ? null : Secrets.redact(content, found);
            messages.add(java.util.Objects.equals(content, redacted) ? message
                : Message.newBuilder(message).setContent(redacted).build());
        }
        if (found.isEmpty()) {
            return conversation;
        }
        found.forEach(kind -> counters.get(kind).increment());
        return ConversationCompleted.newBuilder(conversation).setMessages(messages).build();
    }

    interface Check {
        boolean test(Matcher m);
    }

    static String replace(final Pattern pattern, final String text, final Kind kind, final Set<Kind> found,
                                  final Check check) {
        final Matcher m = pattern.matcher(text);
        final StringBuilder out = new StringBuilder();
        while (m.find()) {
            if (check.test(m)) {
                found.add(kind);
                m.appendReplacement(out, Matcher.quoteReplacement(kind.placeholder()));
            } else {
                m.appendReplacement(out, Matcher.quoteReplacement(m.group()));
            }
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * @param candidate digits with optional spaces or hyphens
     * @return whether the digits pass the Luhn check (13–19 digits)
     */
    static boolean luhnValid(final String candidate) {
        final String digits = candidate.replaceAll("[ -]", "");
        if (digits.length() < 13 || digits.length() > 19) {
            return false;
        }
        int sum = 0;
        boolean twice = false;
        for (int i = digits.length() - 1; i >= 0; i--) {
            int d = digits.charAt(i) - '0';
            if (twice) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            twice = !twice;
        }
        return sum % 10 == 0;
    }

    /**
     * @param candidate an IBAN, optionally with spaces
     * @return whether its ISO 13616 mod-97 remainder is 1 (15–34 characters)
     */
    static boolean ibanValid(final String candidate) {
        final String iban = candidate.replace(" ", "").toUpperCase(Locale.ROOT);
        if (iban.length() < 15 || iban.length() > 34) {
            return false;
        }
        final String rearranged = iban.substring(4) + iban.substring(0, 4);
        final StringBuilder numeric = new StringBuilder();
        for (int i = 0; i < rearranged.length(); i++) {
            final char c = rearranged.charAt(i);
            if (Character.isDigit(c)) {
                numeric.append(c);
            } else if (c >= 'A' && c <= 'Z') {
                numeric.append(c - 'A' + 10);
            } else {
                return false;
            }
        }
        return new BigInteger(numeric.toString()).mod(BigInteger.valueOf(97)).intValue() == 1;
    }

    private static boolean ssnValid(final Matcher m) {
        final int area = Integer.parseInt(m.group(1));
        return area != 0 && area != 666 && area < 900 && !"00".equals(m.group(2)) && !"0000".equals(m.group(3));
    }
}
