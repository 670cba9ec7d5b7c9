package dev.engram.retriever;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import dev.engram.avro.ProfileFact;
import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;

/**
 * Removes the user's own name from a retrieval query. Among one user's memories their own name
 * does not tell one memory from another, yet it matches exactly the turns where someone else
 * addressed them ("Glad you agree, Caroline") and lexical scoring ranks those first for every
 * question about them ("What did Caroline research?"). The names are the {@code name} fact of the
 * profile and the last segment of the user id after {@code :} or {@code /} when it is a word
 * (LoCoMo's {@code conv-26:Caroline}).
 */
public final class OwnNames {

    private static final Pattern WORD = Pattern.compile("\\p{L}{2,}");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    /** Compiled name patterns (a few per user), so a request does not compile its user's again; bounded. */
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();
    private static final int MAX_PATTERNS = 10_000;

    private OwnNames() {
    }

    /**
     * @param query the query as asked
     * @param user the user it is asked for
     * @param profile the user's profile, or null
     * @return the query without the user's names (and their possessive {@code 's}); the query
     *     unchanged when nothing else would remain
     */
    public static String strip(final String query, final UserKey user, final UserProfile profile) {
        String out = query;
        for (final String name : names(user, profile)) {
            out = pattern(name).matcher(out).replaceAll(" ");
        }
        out = SPACES.matcher(out).replaceAll(" ").strip();
        return out.codePoints().anyMatch(Character::isLetterOrDigit) ? out : query;
    }

    private static Pattern pattern(final String name) {
        final Pattern cached = PATTERNS.get(name);
        if (cached != null) {
            return cached;
        }
        if (PATTERNS.size() >= MAX_PATTERNS) {
            PATTERNS.clear();
        }
        // Chinese and Japanese have no spaces: a name there has no word boundary around it (林晓住在哪里)
        final String edge = name.codePoints().anyMatch(OwnNames::unspaced) ? "" : "\\b";
        final Pattern compiled = Pattern.compile("(?iu)" + edge + Pattern.quote(name) + "(?:['’]s)?" + edge);
        PATTERNS.put(name, compiled);
        return compiled;
    }

    private static boolean unspaced(final int codePoint) {
        final Character.UnicodeScript script = Character.UnicodeScript.of(codePoint);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
            || script == Character.UnicodeScript.KATAKANA || script == Character.UnicodeScript.THAI;
    }

    private static Set<String> names(final UserKey user, final UserProfile profile) {
        final Set<String> names = new LinkedHashSet<>();
        final String id = user.userId();
        final String last = id.substring(Math.max(id.lastIndexOf(':'), id.lastIndexOf('/')) + 1);
        if (WORD.matcher(last).matches()) {
            names.add(last.toLowerCase(Locale.ROOT));
        }
        if (profile != null) {
            final ProfileFact name = profile.getFacts().get("name");
            if (name != null && name.getValue() != null) {
                for (final String part : name.getValue().split("\\s+")) {
                    if (WORD.matcher(part).matches()) {
                        names.add(part.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return names;
    }
}
