package dev.engram.rules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The technical terms the rule-based extractor knows, each with its fact slot and canonical
 * spelling: programming languages ({@code preferred_language}), IDEs and editors ({@code ide}) and
 * cloud providers ({@code cloud_provider}). Any other capitalized tool name becomes
 * {@code uses:<tool>} (see {@link #resolve(String)}).
 */
final class TechVocabulary {

    /** Fact slot of a known term. */
    enum Slot {
        /** programming language */
        LANGUAGE("preferred_language"),
        /** IDE or editor */
        IDE("ide"),
        /** cloud provider */
        CLOUD("cloud_provider"),
        /** any other named tool */
        TOOL("uses");

        final String key;

        Slot(final String key) {
            this.key = key;
        }
    }

    /**
     * A resolved term.
     *
     * @param slot the slot
     * @param key the fact key ({@code uses:<tool>} for {@link Slot#TOOL})
     * @param value canonical spelling
     */
    record Term(Slot slot, String key, String value) {
    }

    /** lower-case alias → term; aliases of the same term map to one canonical value. */
    private static final Map<String, Term> ALIASES = new LinkedHashMap<>();

    static {
        for (final String lang : List.of("Kotlin", "Java", "JavaScript", "TypeScript", "Python", "Go", "Rust",
            "C++", "C#", "Ruby", "PHP", "Scala", "Swift", "Haskell", "Elixir", "Clojure", "Julia", "Dart", "Lua",
            "Perl", "Erlang", "OCaml", "F#", "Zig", "Groovy", "Objective-C")) {
            add(Slot.LANGUAGE, lang, lang);
        }
        add(Slot.LANGUAGE, "Go", "Golang");
        add(Slot.IDE, "IntelliJ", "IntelliJ", "IntelliJ IDEA", "IDEA");
        add(Slot.IDE, "VS Code", "VS Code", "VSCode", "Visual Studio Code");
        add(Slot.IDE, "Neovim", "Neovim", "nvim");
        for (final String ide : List.of("Visual Studio", "Eclipse", "Vim", "Emacs", "PyCharm", "WebStorm",
            "GoLand", "CLion", "Rider", "Xcode", "Android Studio", "Sublime Text", "NetBeans", "Cursor", "Zed")) {
            add(Slot.IDE, ide, ide);
        }
        add(Slot.CLOUD, "AWS", "AWS", "Amazon Web Services");
        add(Slot.CLOUD, "GCP", "GCP", "Google Cloud", "Google Cloud Platform");
        add(Slot.CLOUD, "Azure", "Azure", "Microsoft Azure");
        for (final String cloud : List.of("DigitalOcean", "Hetzner", "Oracle Cloud", "IBM Cloud", "Heroku",
            "Alibaba Cloud")) {
            add(Slot.CLOUD, cloud, cloud);
        }
    }

    /**
     * Widely used work tools by their product names (trackers, chat, notes, code hosting, CI, design, office): a name
     * here is software, never a place, so "we moved from Jira to Linear" is a tool switch, not a move
     * ({@link #isKnownTool}). They stay {@code uses:<tool>} facts like any other capitalized tool name and are not
     * part of {@link #ANY}: "on teams" or "in linear order" in lower case is no tool.
     */
    private static final java.util.Set<String> KNOWN_TOOLS = java.util.Set.of("jira", "linear", "asana", "trello",
        "clickup", "basecamp", "youtrack", "notion", "obsidian", "evernote", "onenote", "confluence", "slack", "teams",
        "microsoft teams", "discord", "zoom", "skype", "webex", "google meet", "github", "gitlab", "bitbucket", "jenkins",
        "circleci", "github actions", "travis ci", "docker", "kubernetes", "terraform", "figma", "photoshop", "excel",
        "google sheets", "google docs", "airtable", "salesforce", "hubspot", "zendesk", "dropbox", "google drive",
        "onedrive", "sharepoint", "outlook", "gmail", "postgres", "postgresql", "mysql", "mongodb", "datadog", "grafana",
        "sentry", "splunk", "vercel", "netlify", "miro", "loom", "todoist", "monday.com", "smartsheet", "wrike");

    /**
     * A regex alternation of {@link #KNOWN_TOOLS}, longest first, for a switch typed in lower case ("switched from notion
     * to obsidian"), where no capital marks a name.
     */
    static final String KNOWN = known();

    /** A regex alternation of every alias, longest first, case-insensitive, bounded by non-word characters. */
    static final String ANY = alternation(null);
    /** A regex alternation of the programming languages only. */
    static final String LANGUAGES = alternation(Slot.LANGUAGE);

    private TechVocabulary() {
    }

    private static void add(final Slot slot, final String canonical, final String... aliases) {
        for (final String alias : aliases) {
            ALIASES.put(alias.toLowerCase(Locale.ROOT), new Term(slot, slot.key, canonical));
        }
    }

    private static String known() {
        final List<String> names = new ArrayList<>(KNOWN_TOOLS);
        names.sort(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
        return "(?<![\\w])(?:" + String.join("|", names.stream().map(n -> Pattern.quote(n).replace(" ", "\\E\\s+\\Q"))
            .toList()) + ")(?![\\w+#])";
    }

    private static String alternation(final Slot only) {
        final List<String> names = new ArrayList<>();
        ALIASES.forEach((alias, term) -> {
            if (only == null || term.slot() == only) {
                names.add(alias);
            }
        });
        names.sort(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
        final StringBuilder out = new StringBuilder("(?<![\\w])(?:");
        for (int i = 0; i < names.size(); i++) {
            out.append(i == 0 ? "" : "|").append(Pattern.quote(names.get(i)).replace(" ", "\\E\\s+\\Q"));
        }
        return out.append(")(?![\\w+#])").toString();
    }

    /**
     * @param raw a name as written
     * @return true for a capitalized name of {@link #KNOWN_TOOLS} ("Jira", "Microsoft Teams") or any term of the
     *     vocabulary (a language, IDE or cloud): software, not a place
     */
    static boolean isKnownTool(final String raw) {
        final String cleaned = FactRules.trimValue(raw);
        if (cleaned.isEmpty() || !Character.isUpperCase(cleaned.charAt(0))) {
            return false;
        }
        final String lower = cleaned.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        return KNOWN_TOOLS.contains(lower) || ALIASES.containsKey(lower);
    }

    /**
     * @param raw a term as written, e.g. "intellij", "Google Cloud" or "Docker"
     * @return its slot and canonical value; a capitalized unknown name becomes {@code uses:<lower_snake>};
     *     empty for anything else (and for a lower-case "go", which is a verb)
     */
    static Optional<Term> resolve(final String raw) {
        final String cleaned = FactRules.trimValue(raw);
        if (cleaned.isEmpty()) {
            return Optional.empty();
        }
        final Term known = ALIASES.get(cleaned.toLowerCase(Locale.ROOT).replaceAll("\\s+", " "));
        if (known != null) {
            if (cleaned.length() <= 2 && Character.isLowerCase(cleaned.charAt(0))) {
                return Optional.empty();
            }
            return Optional.of(known);
        }
        if (!Character.isUpperCase(cleaned.charAt(0)) || cleaned.equals("I")) {
            return Optional.empty();
        }
        return Optional.of(new Term(Slot.TOOL, "uses:" + FactRules.slug(cleaned), cleaned));
    }
}
