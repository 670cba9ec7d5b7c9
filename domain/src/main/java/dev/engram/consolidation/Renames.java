package dev.engram.consolidation;

import java.util.List;
import java.util.Locale;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.core.MemoryIds;

/**
 * A renaming statement about a person or pet (the {@link Consolidator}'s rule 4): "my cat's name is Mia, not Luna",
 * "we renamed our dog, he is called Max now". The extractor keys its fact of the new name by what it replaces, within
 * the same entity slot ({@link Facts#entitySlot}): the old name's key ({@code pet:luna} = Mia) or, when no old name is
 * said, the kind's ({@code pet:dog} = Max, displayed "Pet dog"). Such a candidate is a rename when its key does not
 * name its value ({@link #nameKey}). It renames
 * <ul>
 *   <li>the ACTIVE fact holding its key (the old name said, {@code pet:luna}; or the pet of that kind stated without
 *       a name, {@code pet:dog} = dog), else</li>
 *   <li>for a kind's key, the one ACTIVE fact of the slot with the candidate's display name ("Pet dog"): the user's
 *       only dog (two dogs: which one is unsaid, nothing is renamed).</li>
 * </ul>
 * The renamed fact is superseded by the candidate keyed by its new name ({@code pet:mia}), so the old name, said
 * again, is not read as the current one. An old name that names no ACTIVE fact of the slot renames nothing ("my cat's
 * name is Mia, not Luna" with no Luna known is the fact {@code pet:mia}): a name is never merged into another
 * entity's fact on the statement's word alone. Stateless.
 */
final class Renames {

    private Renames() {
    }

    /**
     * A rename candidate's resolution.
     *
     * @param candidate the candidate keyed by its new name
     * @param renamed the ACTIVE fact it renames, or null when it names none (the candidate is then a plain fact)
     */
    record Rename(MemoryCandidate candidate, Memory renamed) {
    }

    /**
     * @param candidate a keyed, non-negated candidate
     * @param userMemories the user's memories
     * @return the rename it states, or null when it is not a rename (its key names its value, or is not an entity key)
     */
    static Rename of(final MemoryCandidate candidate, final List<Memory> userMemories) {
        final String key = candidate.getKey();
        final String slot = Facts.entitySlot(key);
        if (slot == null || candidate.getNegated() || candidate.getValue() == null) {
            return null;
        }
        final String own = nameKey(slot, candidate.getValue());
        if (own == null || own.equals(key)) {
            return null;
        }
        final MemoryCandidate rekeyed = MemoryCandidate.newBuilder(candidate).setKey(own).build();
        Memory renamed = UserFacts.currentFact(userMemories, key);
        if (renamed == null && kindKey(key, slot, candidate.getDisplayName())) {
            renamed = onlyOfKind(userMemories, slot, candidate.getDisplayName());
        }
        return new Rename(rekeyed, renamed != null && !own.equals(renamed.getKey()) ? renamed : null);
    }

    /**
     * The key naming an entity of a slot by its name, as the extractors build it: the name lower-cased, every run of
     * other characters than letters, digits, {@code +} and {@code #} one underscore, none at either end.
     *
     * @param slot the slot ({@code pet:}, {@code family:son:})
     * @param name the name
     * @return {@code slot + name}, or null when the name has no letter or digit
     */
    static String nameKey(final String slot, final String name) {
        final String slug = name.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}+#]+", "_")
            .replaceAll("^_|_$", "");
        return slug.isEmpty() ? null : slot + slug;
    }

    /** Whether the key names the kind the display name says ({@code pet:guinea_pig}, "Pet guinea pig"). */
    private static boolean kindKey(final String key, final String slot, final String displayName) {
        return displayName != null && key.equals(nameKey(slot, displayName.replaceFirst("(?i)^pet\\s+", "")));
    }

    /** The one ACTIVE fact of the slot with that display name, or null when there is none or more than one. */
    private static Memory onlyOfKind(final List<Memory> userMemories, final String slot, final String displayName) {
        Memory only = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() == MemoryStatus.ACTIVE && slot.equals(Facts.entitySlot(memory.getKey()))
                && MemoryIds.fold(displayName).equals(MemoryIds.fold(memory.getDisplayName()))) {
                if (only != null) {
                    return null;
                }
                only = memory;
            }
        }
        return only;
    }
}
