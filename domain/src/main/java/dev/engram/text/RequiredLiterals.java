package dev.engram.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The literal words a regular expression cannot match without: each clause a set of strings of which every match
 * holds at least one, in ASCII lower case ("\\bi\\s+(?:live|reside)\\s+in\\b" gives {live, reside} and {in};
 * a single letter such as "i" is too common to be worth a test).
 * {@link CaselessPattern} tests them with {@code String#indexOf} before it runs the expression, so a sentence without
 * "live" or "reside" never starts a search.
 *
 * <p>Derived conservatively from the expression's text: a run of literal characters matched exactly once in a row of
 * the expression is required; an optional part ({@code ?}, {@code *}, {@code {0,n}}), a class, an escape that is not a
 * plain punctuation character, a back reference and a look-around require nothing; an alternation requires one of its
 * branches' best clause (nothing when one branch requires nothing). Any construct not read here ({@code \c},
 * {@code \x}, {@code \}{@code u}, {@code \0}, {@code \N}, the inline flags {@code x}, {@code u} and {@code U}, a
 * class opening with {@code ]}) gives no clause at all: the expression is then always searched.
 *
 * <p>Why a match holds each literal: the characters of one run are matched one after the other, so a match holds them
 * as one substring, each compared without regard to case; {@code (?-i:…)} only narrows what a character matches, so
 * the ASCII lower case of the text still holds the lower-cased run.
 */
final class RequiredLiterals {

    /** At most this many clauses are kept, the most selective first. */
    static final int MAX_CLAUSES = 3;

    /** Inline flags read: case (narrows or widens ASCII case only), dot-all, multi-line, Unix lines, and "-". */
    private static final String INLINE_FLAGS = "ismd-";

    private final String regex;
    private int at;

    private RequiredLiterals(final String regex) {
        this.regex = regex;
    }

    /**
     * @param regex a regular expression (valid for {@link java.util.regex.Pattern})
     * @return up to {@value #MAX_CLAUSES} clauses, each a non-empty array of ASCII-lower-case strings of which every
     *     match contains one: the most selective (longest shortest string), those with the fewest strings first;
     *     clauses whose shortest string is a single ASCII character are left out; empty when nothing is known
     */
    static String[][] of(final String regex) {
        final RequiredLiterals parser = new RequiredLiterals(regex);
        final List<Set<String>> clauses;
        try {
            clauses = parser.alternation();
        } catch (final Unreadable e) {
            return new String[0][];
        }
        if (parser.at != regex.length()) {
            return new String[0][];
        }
        // the most selective clauses, then the cheapest first: a list of 150 job titles is tested only when the
        // sentence holds the rule's few other words
        return clauses.stream().map(RequiredLiterals::minimal).filter(c -> score(c) > 1)
            .sorted(Comparator.comparingInt(RequiredLiterals::score).reversed().thenComparingInt(Set::size))
            .limit(MAX_CLAUSES).sorted(Comparator.comparingInt(Set::size))
            .map(c -> c.toArray(String[]::new)).toArray(String[][]::new);
    }

    /** A construct this reading does not know: no clause. */
    private static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable() {
            super(null, null, false, false);
        }
    }

    private List<Set<String>> alternation() throws Unreadable {
        final List<List<Set<String>>> branches = new ArrayList<>();
        branches.add(concatenation());
        while (at < regex.length() && regex.charAt(at) == '|') {
            at++;
            branches.add(concatenation());
        }
        if (branches.size() == 1) {
            return branches.get(0);
        }
        final Set<String> any = new LinkedHashSet<>();
        for (final List<Set<String>> branch : branches) {
            final Set<String> best = branch.stream().max(Comparator.comparingInt(RequiredLiterals::score)
                .thenComparing(Comparator.comparingInt(Set<String>::size).reversed())).orElse(null);
            if (best == null) {
                return List.of();
            }
            any.addAll(best);
        }
        return List.of(any);
    }

    private List<Set<String>> concatenation() throws Unreadable {
        final List<Set<String>> clauses = new ArrayList<>();
        final StringBuilder run = new StringBuilder();
        while (at < regex.length() && regex.charAt(at) != '|' && regex.charAt(at) != ')') {
            final Atom atom = atom();
            final int min = quantifierMin();
            if (atom.literal != null) {
                final int last = atom.literal.length() - 1;
                if (min == ONCE) {
                    run.append(atom.literal);
                } else if (min >= 1) {
                    // "go+d": "go" and "od" are each matched in a row, the repeated "o" between them
                    run.append(atom.literal);
                    flush(run, clauses);
                    run.append(atom.literal.charAt(last));
                } else {
                    // "days?": the characters before the quantified last one are still matched once
                    run.append(atom.literal, 0, last);
                    flush(run, clauses);
                }
                continue;
            }
            flush(run, clauses);
            if (min == ONCE || min >= 1) {
                clauses.addAll(atom.clauses);
            }
        }
        flush(run, clauses);
        return clauses;
    }

    private static void flush(final StringBuilder run, final List<Set<String>> clauses) {
        if (run.length() > 0) {
            clauses.add(Set.of(asciiLowerCase(run)));
            run.setLength(0);
        }
    }

    /** One atom: literal characters, or what a group requires, or nothing (a class, a boundary). */
    private record Atom(String literal, List<Set<String>> clauses) {
        static final Atom NOTHING = new Atom(null, List.of());
    }

    /** {@link #quantifierMin()} of an atom without a quantifier. */
    private static final int ONCE = -1;

    private Atom atom() throws Unreadable {
        final char c = regex.charAt(at++);
        switch (c) {
            case '(':
                return group();
            case '[':
                skipClass();
                return Atom.NOTHING;
            case '\\':
                return escape();
            case '.', '^', '$':
                return Atom.NOTHING;
            case '*', '+', '?', '{':
                throw new Unreadable();
            default:
                return new Atom(String.valueOf(c), List.of());
        }
    }

    private Atom group() throws Unreadable {
        boolean lookaround = false;
        if (regex.startsWith("?", at)) {
            at++;
            if (regex.startsWith(":", at) || regex.startsWith(">", at)) {
                at++;
            } else if (regex.startsWith("=", at) || regex.startsWith("!", at)) {
                at++;
                lookaround = true;
            } else if (regex.startsWith("<=", at) || regex.startsWith("<!", at)) {
                at += 2;
                lookaround = true;
            } else if (regex.startsWith("<", at)) {
                final int close = regex.indexOf('>', at);
                if (close < 0) {
                    throw new Unreadable();
                }
                at = close + 1;
            } else {
                while (at < regex.length() && INLINE_FLAGS.indexOf(regex.charAt(at)) >= 0) {
                    at++;
                }
                if (regex.startsWith(")", at)) {
                    at++;
                    return Atom.NOTHING; // (?i): a flag for what follows, which only narrows or widens case
                }
                if (!regex.startsWith(":", at)) {
                    throw new Unreadable();
                }
                at++;
            }
        }
        final List<Set<String>> inside = alternation();
        if (!regex.startsWith(")", at)) {
            throw new Unreadable();
        }
        at++;
        return lookaround ? Atom.NOTHING : new Atom(null, inside);
    }

    private void skipClass() throws Unreadable {
        if (regex.startsWith("^", at)) {
            at++;
        }
        if (regex.startsWith("]", at)) {
            throw new Unreadable();
        }
        int depth = 1;
        while (at < regex.length()) {
            final char c = regex.charAt(at++);
            if (c == '\\') {
                if (regex.startsWith("Q", at)) {
                    throw new Unreadable();
                }
                at++;
            } else if (c == '[') {
                depth++;
            } else if (c == ']' && --depth == 0) {
                return;
            }
        }
        throw new Unreadable();
    }

    private Atom escape() throws Unreadable {
        if (at >= regex.length()) {
            throw new Unreadable();
        }
        final char c = regex.charAt(at++);
        if (!Character.isLetterOrDigit(c)) {
            return new Atom(String.valueOf(c), List.of());
        }
        switch (c) {
            case 'Q': {
                final int end = regex.indexOf("\\E", at);
                final String quoted = regex.substring(at, end < 0 ? regex.length() : end);
                at = end < 0 ? regex.length() : end + 2;
                return quoted.isEmpty() ? Atom.NOTHING : new Atom(quoted, List.of());
            }
            case 'p', 'P':
                if (regex.startsWith("{", at)) {
                    skipPast('}');
                } else {
                    at++;
                }
                return Atom.NOTHING;
            case 'k':
                skipPast('>');
                return Atom.NOTHING;
            case 'b':
                if (regex.startsWith("{", at)) {
                    skipPast('}');
                }
                return Atom.NOTHING;
            case 'c', 'x', 'u', '0', 'N':
                throw new Unreadable();
            default:
                while (Character.isDigit(c) && at < regex.length() && Character.isDigit(regex.charAt(at))) {
                    at++; // a back reference: requires nothing of its own
                }
                return Atom.NOTHING; // \s \w \d \t \n … : a class or a boundary, not a literal here
        }
    }

    private void skipPast(final char close) throws Unreadable {
        final int end = regex.indexOf(close, at);
        if (end < 0) {
            throw new Unreadable();
        }
        at = end + 1;
    }

    /** @return the least repetition of the quantifier read here, or {@link #ONCE} when there is none */
    private int quantifierMin() throws Unreadable {
        if (at >= regex.length()) {
            return ONCE;
        }
        final int min;
        switch (regex.charAt(at)) {
            case '?', '*' -> {
                at++;
                min = 0;
            }
            case '+' -> {
                at++;
                min = 1;
            }
            case '{' -> {
                final int end = regex.indexOf('}', at);
                if (end < 0) {
                    throw new Unreadable();
                }
                final String bounds = regex.substring(at + 1, end);
                final String least = bounds.contains(",") ? bounds.substring(0, bounds.indexOf(',')) : bounds;
                if (least.isEmpty() || !least.chars().allMatch(Character::isDigit) || least.length() > 6) {
                    throw new Unreadable();
                }
                min = Integer.parseInt(least);
                at = end + 1;
            }
            default -> {
                return ONCE;
            }
        }
        if (at < regex.length() && (regex.charAt(at) == '?' || regex.charAt(at) == '+')) {
            at++; // reluctant or possessive: the same least count
        }
        return min;
    }

    /** @return the clause without strings that contain another of its strings (the shorter one is there whenever they are) */
    private static Set<String> minimal(final Set<String> clause) {
        final Set<String> out = new LinkedHashSet<>();
        for (final String s : clause) {
            if (clause.stream().noneMatch(t -> !t.equals(s) && s.contains(t))) {
                out.add(s);
            }
        }
        return out;
    }

    /** @return how selective a clause is: its shortest string's length (a string outside ASCII counts as long) */
    private static int score(final Set<String> clause) {
        return clause.stream().mapToInt(s -> CaselessPattern.isAscii(s) ? s.length() : 8).min().orElse(0);
    }

    /** @return the text with A–Z as a–z, every other character as is (same length) */
    static String asciiLowerCase(final CharSequence text) {
        final char[] out = new char[text.length()];
        for (int i = 0; i < out.length; i++) {
            final char c = text.charAt(i);
            out[i] = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
        }
        return new String(out);
    }
}
