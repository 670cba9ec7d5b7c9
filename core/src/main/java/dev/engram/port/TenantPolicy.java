package dev.engram.port;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import dev.engram.avro.CustomCategory;
import dev.engram.avro.FactCategory;
import dev.engram.avro.TenantSettings;

/**
 * The tenant settings in force for one event (one version of {@code tenant-settings}, chosen by the event's time),
 * as the extractors use them: the tenant's own fact categories, its extraction instructions, the built-in categories
 * it turned off, its retention and its daily LLM token budget. {@link #none} is a tenant without settings: every
 * built-in category, no instructions, the deployment's lifecycle rules, no budget.
 *
 * <p>Limits ({@link #problems}): at most {@value #MAX_CATEGORIES} categories, names snake_case of at most 40
 * characters and never a built-in category's name, a description of at most {@value #MAX_TEXT} characters, at most
 * {@value #MAX_KEYWORDS} keywords of at most 60 characters each, instructions of at most {@value #MAX_INSTRUCTIONS}
 * characters, TTL and retention 0..{@value #MAX_DAYS} days, a budget of 0..{@value #MAX_DAILY_TOKEN_BUDGET} tokens.
 *
 * @param tenantId the tenant
 * @param version when this version came into force (event time), null for {@link #none}
 * @param categories the tenant's own categories, in the order given
 * @param instructions extra extraction instructions, or null
 * @param disabled built-in categories whose facts are not remembered
 * @param retentionDays days a memory lives after its last statement unless its category says otherwise; null: the
 *     deployment's rules; 0: permanent
 * @param dailyTokenBudget LLM tokens (prompt + completion) per UTC day, or null for no limit
 */
public record TenantPolicy(String tenantId, Instant version, List<Category> categories, String instructions,
                           Set<FactCategory> disabled, Integer retentionDays, Long dailyTokenBudget) {

    /** Most custom categories per tenant. */
    public static final int MAX_CATEGORIES = 20;
    /** Most keywords per category. */
    public static final int MAX_KEYWORDS = 50;
    /** Longest description, in characters. */
    public static final int MAX_TEXT = 500;
    /** Longest instructions, in characters. */
    public static final int MAX_INSTRUCTIONS = 2000;
    /** Longest TTL or retention, in days (100 years); 0 is permanent. */
    public static final int MAX_DAYS = 36_500;
    /**
     * Largest daily token budget: 10^12 tokens per UTC day, far above any real tenant's spend and far below where the
     * ledger's per-day sums (longs) could overflow; a larger number is a typo, not a budget.
     */
    public static final long MAX_DAILY_TOKEN_BUDGET = 1_000_000_000_000L;
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,39}");

    /**
     * A category of the tenant's own.
     *
     * @param name snake_case, e.g. {@code medications}
     * @param description what belongs in it (told to the LLM)
     * @param keywords lower-cased words or phrases that make a statement one of its facts for the offline extractor
     * @param ttlDays days a fact of it lives after its last statement, null for the tenant's retention, 0 permanent
     */
    public record Category(String name, String description, List<String> keywords, Integer ttlDays) {
        /** Copies the keywords, lower-cased and stripped. */
        public Category {
            keywords = keywords.stream().map(k -> k.strip().toLowerCase(Locale.ROOT)).filter(k -> !k.isEmpty())
                .distinct().toList();
        }
    }

    /** Copies the collections. */
    public TenantPolicy {
        categories = List.copyOf(categories);
        disabled = disabled.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(disabled));
    }

    /**
     * @param tenantId the tenant
     * @return the policy of a tenant without settings: nothing changes what the deployment does
     */
    public static TenantPolicy none(final String tenantId) {
        return new TenantPolicy(tenantId, null, List.of(), null, Set.of(), null, null);
    }

    /**
     * @param settings one version of the tenant's settings (valid: {@link #problems} empty)
     * @return its policy; a disabled name that is not a built-in category is ignored
     */
    public static TenantPolicy of(final TenantSettings settings) {
        final List<Category> categories = new ArrayList<>();
        for (final CustomCategory c : settings.getCategories()) {
            categories.add(new Category(c.getName(), c.getDescription(), c.getKeywords(), c.getTtlDays()));
        }
        final Set<FactCategory> disabled = EnumSet.noneOf(FactCategory.class);
        for (final String name : settings.getDisabledCategories()) {
            builtIn(name).ifPresent(disabled::add);
        }
        final String instructions = settings.getInstructions() == null || settings.getInstructions().isBlank()
            ? null : settings.getInstructions().strip();
        return new TenantPolicy(settings.getTenantId(), settings.getVersion(), categories, instructions, disabled,
            settings.getRetentionDays(), settings.getDailyTokenBudget());
    }

    /**
     * What is wrong with a settings version, for a 400 answer or a skipped record.
     *
     * @param settings a settings version
     * @return one sentence per problem, empty when the settings are valid
     */
    public static List<String> problems(final TenantSettings settings) {
        final List<String> out = new ArrayList<>();
        if (settings.getCategories().size() > MAX_CATEGORIES) {
            out.add("at most " + MAX_CATEGORIES + " categories");
        }
        final Set<String> names = new HashSet<>();
        for (final CustomCategory c : settings.getCategories()) {
            final String name = c.getName() == null ? "" : c.getName();
            if (!NAME.matcher(name).matches()) {
                out.add("category name \"" + name + "\" must be snake_case (a-z, 0-9, _), 1 to 40 characters");
            } else if (builtIn(name).isPresent()) {
                out.add("category name \"" + name + "\" is a built-in category");
            } else if (!names.add(name)) {
                out.add("category name \"" + name + "\" is given twice");
            }
            if (c.getDescription() == null || c.getDescription().isBlank() || c.getDescription().length() > MAX_TEXT) {
                out.add("category \"" + name + "\" needs a description of 1 to " + MAX_TEXT + " characters");
            }
            if (c.getKeywords().size() > MAX_KEYWORDS
                || c.getKeywords().stream().anyMatch(k -> k == null || k.isBlank() || k.length() > 60)) {
                out.add("category \"" + name + "\" may have at most " + MAX_KEYWORDS
                    + " keywords, each 1 to 60 characters");
            }
            days(out, "category \"" + name + "\" ttlDays", c.getTtlDays());
        }
        if (settings.getInstructions() != null && settings.getInstructions().length() > MAX_INSTRUCTIONS) {
            out.add("instructions must have at most " + MAX_INSTRUCTIONS + " characters");
        }
        for (final String name : settings.getDisabledCategories()) {
            if (builtIn(name).isEmpty()) {
                out.add("disabledCategories: \"" + name + "\" is not a built-in category (" + List.of(FactCategory.values())
                    + ")");
            }
        }
        days(out, "retentionDays", settings.getRetentionDays());
        if (settings.getDailyTokenBudget() != null && settings.getDailyTokenBudget() < 0) {
            out.add("dailyTokenBudget must be at least 0");
        } else if (settings.getDailyTokenBudget() != null && settings.getDailyTokenBudget() > MAX_DAILY_TOKEN_BUDGET) {
            out.add("dailyTokenBudget must be at most " + MAX_DAILY_TOKEN_BUDGET + " (tokens per UTC day)");
        }
        return out;
    }

    private static void days(final List<String> out, final String field, final Integer days) {
        if (days != null && (days < 0 || days > MAX_DAYS)) {
            out.add(field + " must be within 0.." + MAX_DAYS);
        }
    }

    /**
     * @param name a category name in any case, e.g. {@code personal}
     * @return the built-in category of that name
     */
    public static Optional<FactCategory> builtIn(final String name) {
        for (final FactCategory c : FactCategory.values()) {
            if (c.name().equalsIgnoreCase(name == null ? "" : name.strip())) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** @return true for a tenant without settings (or with settings that change nothing) */
    public boolean isDefault() {
        return categories.isEmpty() && instructions == null && disabled.isEmpty() && retentionDays == null;
    }

    /**
     * @param name a category name
     * @return the tenant's category of that name
     */
    public Optional<Category> category(final String name) {
        return categories.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /**
     * @param memory an extracted memory
     * @return false when it is a fact of a built-in category the tenant turned off
     */
    public boolean keeps(final ExtractedMemory memory) {
        return memory.customCategory() != null || memory.category() == null || !disabled.contains(memory.category());
    }

    /**
     * @param memory an extracted memory
     * @return the days it lives after its last statement: its custom category's TTL, else the tenant's retention;
     *     null when the deployment's lifecycle rules apply
     */
    public Integer ttlDays(final ExtractedMemory memory) {
        if (memory.customCategory() != null) {
            final Integer ttl = category(memory.customCategory()).map(Category::ttlDays).orElse(null);
            if (ttl != null) {
                return ttl;
            }
        }
        return retentionDays;
    }
}
