package dev.engram.consolidation;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.engram.avro.FormerValue;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.UpdateOperation;
import dev.engram.core.MemoryIds;
import dev.engram.core.ValueAliases;

/**
 * What a deleted memory keeps, and the rule that reads it: a statement the user deleted does not come back from older
 * data (a backfill, a replay, a late platform upload), while the same statement said after the deletion is new and is
 * stored (the user said it again).
 *
 * <p>A DELETE replaces the memory by a {@link #marker}: status DELETED, no content, key, value, sources or embedding,
 * its id (so a redelivered candidate with that id stays a duplicate), the deletion time as {@code validTo}, and
 * {@code deletedDigests}: one-way digests of what it stated, so a candidate with another id saying the same is
 * recognised. What a digest covers ({@link #digests(Memory)}, {@link #digest(MemoryCandidate)}):
 * <ul>
 *   <li>a fact (a memory with a key): the key and the value ({@link ValueAliases#fold}: "NYC" and "New York" are one
 *       value), one digest per value it held (its current value and each {@code formerValues} entry). The value is part
 *       of it: another value of the key said before the deletion is another statement. Then one digest of the key
 *       alone, which with the marker's {@code validFrom} tells when another value of the key is older than the deleted
 *       fact ({@link #laterDeletedFact}): the deleted fact superseded it in time order, so it is history, not
 *       current;</li>
 *   <li>anything else (an episode, a preference without a key): the normalized content ({@link MemoryIds#normalize}:
 *       NFKC, lower case, whitespace and trailing punctuation folded).</li>
 * </ul>
 * A digest is HMAC-SHA256 under a salt of the user ({@link #salt}: SHA-256 of a fixed label and the user key),
 * truncated to 128 bits, hex: the same statement of two users gives unrelated digests, and a digest is kept for as long
 * as the marker, which lives in the consolidator's memories store only (sealed per user with {@code crypto.enabled})
 * until the user's ERASE deletes it. It is deterministic so a replay and a rebuild recompute the same markers. It is no
 * secret against someone who holds the store, the user key and a guess of the statement ("preference:steak"): that is
 * why it is kept nowhere else and nothing is kept beside it.
 */
public final class DeletedStatements {

    /** The label of the salt; a new scheme takes a new label. */
    private static final String SCHEME = "engram-deleted-statement-v1";
    private static final int DIGEST_BYTES = 16;

    private DeletedStatements() {
    }

    /**
     * The content-free marker that replaces a deleted memory in the consolidator's store. Everything that depends on
     * the memory's evidence (sources, counts, confidence, last statement) is dropped, so the marker is the same whether a
     * restatement before the deletion was applied first (a replay, in time order) or skipped after it (live).
     *
     * @param before the memory deleted (any status but DELETED)
     * @param deletedAt when it was deleted: the command's {@code issuedAt}
     * @return the marker: id, tenant, user, type, {@code createdAt} and {@code validFrom}, status DELETED, {@code updatedAt},
     *     {@code lastAccessedAt}, {@code lastConfirmedAt} and {@code validTo} = {@code deletedAt}, and the digests
     */
    public static Memory marker(final Memory before, final Instant deletedAt) {
        return Memory.newBuilder().setMemoryId(before.getMemoryId()).setTenantId(before.getTenantId())
            .setUserId(before.getUserId()).setType(before.getType()).setContent("").setImportance(0).setConfidence(0)
            .setSource(before.getSource()).setStatus(MemoryStatus.DELETED).setCreatedAt(before.getCreatedAt())
            .setUpdatedAt(deletedAt).setLastAccessedAt(deletedAt).setLastConfirmedAt(deletedAt)
            .setValidFrom(before.getValidFrom()).setValidTo(deletedAt).setSources(List.of()).setEmbedding(List.of())
            .setEmbeddingModel("").setDeletedDigests(digests(before)).build();
    }

    /**
     * @param memory a memory (not a marker)
     * @return the digests of what it states: one per value of a fact (current, then former ones) and one of its key,
     *     else its content's
     */
    public static List<String> digests(final Memory memory) {
        final List<String> digests = new ArrayList<>();
        if (memory.getKey() == null) {
            digests.add(digest(memory.getTenantId(), memory.getUserId(), content(memory.getContent())));
            return digests;
        }
        digests.add(digest(memory.getTenantId(), memory.getUserId(), fact(memory.getKey(), memory.getValue())));
        for (final FormerValue former : memory.getFormerValues()) {
            final String d = digest(memory.getTenantId(), memory.getUserId(), fact(memory.getKey(), former.getValue()));
            if (!digests.contains(d)) {
                digests.add(d);
            }
        }
        digests.add(digest(memory.getTenantId(), memory.getUserId(), key(memory.getKey())));
        return digests;
    }

    /**
     * @param candidate a valid candidate
     * @return the digest of what it states, as {@link #digests(Memory)} computes a memory's
     */
    public static String digest(final MemoryCandidate candidate) {
        return digest(candidate.getTenantId(), candidate.getUserId(), candidate.getKey() == null
            ? content(candidate.getContent()) : fact(candidate.getKey(), candidate.getValue()));
    }

    /**
     * @param candidate a valid candidate
     * @param userMemories every memory of the candidate's user, every status
     * @return the DELETED marker of a memory that stated what the candidate states, deleted at or after the candidate's
     *     {@code eventTime} (so the candidate is older data of a deleted statement, not stored), or null
     */
    public static Memory deletedAfter(final MemoryCandidate candidate, final List<Memory> userMemories) {
        String digest = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.DELETED || memory.getDeletedDigests().isEmpty()
                || memory.getValidTo() == null || candidate.getEventTime().isAfter(memory.getValidTo())) {
                continue;
            }
            digest = digest == null ? digest(candidate) : digest;
            if (memory.getDeletedDigests().contains(digest)) {
                return memory;
            }
        }
        return null;
    }

    /**
     * The deleted fact of the candidate's key that the candidate, in time order, would have been superseded by: a marker
     * whose key digest is the candidate's key's and whose {@code validFrom} (when the deleted fact was first said) is
     * after the candidate's {@code eventTime}; of several, the one that began first (ties: the greater id, as
     * supersession breaks them). A replay applies the candidate before that fact, which supersedes it (same key, another
     * value: the consolidator's rule 5), then the deletion removes the fact and leaves the candidate ARCHIVED; so live,
     * after the deletion, it is stored ARCHIVED the same way ({@link MemoryWrites#supersededByDeleted}), not as the
     * current value. A candidate of the key dated after the deleted fact began is not concerned: in time order it
     * supersedes the fact and stays current, as it is stored live.
     *
     * @param candidate a valid candidate with a key
     * @param userMemories every memory of the candidate's user, every status
     * @return that marker, or null (none; or markers written before the key digest, which do not tell their key)
     */
    public static Memory laterDeletedFact(final MemoryCandidate candidate, final List<Memory> userMemories) {
        Memory first = null;
        String digest = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.DELETED || memory.getDeletedDigests().isEmpty()
                || !memory.getValidFrom().isAfter(candidate.getEventTime())) {
                continue;
            }
            digest = digest == null ? digest(candidate.getTenantId(), candidate.getUserId(), key(candidate.getKey())) : digest;
            if (memory.getDeletedDigests().contains(digest) && (first == null
                || memory.getValidFrom().isBefore(first.getValidFrom()) || memory.getValidFrom().equals(first.getValidFrom())
                && memory.getMemoryId().compareTo(first.getMemoryId()) > 0)) {
                first = memory;
            }
        }
        return first;
    }

    /**
     * A fact created while no fact of its key is ACTIVE, said after a deleted fact of its key began and at or before
     * its deletion, supersedes that fact in time order (a replay applies it before the deletion): the new memory lists
     * the deleted fact's id in {@code supersedes}, as the supersession writes it. The memories the deletion marked
     * outdated keep the deletion's mark (its time, no {@code supersededBy}), where a replay marks them at the new
     * value's time, by it: the marker keeps no value to find them by.
     *
     * @param candidate the candidate decided
     * @param decision its decision
     * @param userMemories every memory of the candidate's user, every status, before the decision
     * @return the decision, its new fact listing the deleted fact it supersedes when there is one
     */
    static Consolidator.Decision withDeletedSuperseded(final MemoryCandidate candidate, final Consolidator.Decision decision,
                                                       final List<Memory> userMemories) {
        if (candidate.getKey() == null || decision.outcome() != Consolidator.Outcome.CREATED) {
            return decision;
        }
        Memory current = null;
        String digest = null;
        for (final Memory memory : userMemories) {
            if (memory.getStatus() != MemoryStatus.DELETED || memory.getDeletedDigests().isEmpty()
                || !memory.getValidFrom().isBefore(candidate.getEventTime())
                || memory.getValidTo() == null || candidate.getEventTime().isAfter(memory.getValidTo())) {
                continue;
            }
            digest = digest == null ? digest(candidate.getTenantId(), candidate.getUserId(), key(candidate.getKey())) : digest;
            if (memory.getDeletedDigests().contains(digest) && (current == null
                || memory.getValidFrom().isAfter(current.getValidFrom()))) {
                current = memory;
            }
        }
        if (current == null) {
            return decision;
        }
        final List<Consolidator.Change> changes = new ArrayList<>(decision.changes());
        for (int i = 0; i < changes.size(); i++) {
            final Memory created = changes.get(i).after();
            if (changes.get(i).before() == null && created.getMemoryId().equals(candidate.getCandidateId())
                && created.getSupersedes().isEmpty()) {
                changes.set(i, MemoryWrites.change(null, Memory.newBuilder(created)
                    .setSupersedes(List.of(current.getMemoryId())).build(), UpdateOperation.CREATED, candidate));
            }
        }
        return new Consolidator.Decision(decision.outcome(), changes, decision.contradictions(), decision.archived());
    }

    /** A fact's key alone, so a marker tells another value of its key (never equal to a statement's digest). */
    private static String key(final String key) {
        return "key\0" + key;
    }

    private static String fact(final String key, final String value) {
        return "fact\0" + key + "\0" + ValueAliases.fold(value);
    }

    private static String content(final String content) {
        return "content\0" + MemoryIds.normalize(content);
    }

    /**
     * @return the first {@value #DIGEST_BYTES} bytes of HMAC-SHA256({@link #salt}, statement), hex
     */
    private static String digest(final String tenantId, final String userId, final String statement) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(salt(tenantId, userId), "HmacSHA256"));
            final byte[] full = mac.doFinal(statement.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(full, 0, DIGEST_BYTES);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /** @return SHA-256 of the scheme label, the tenant and the user, NUL-separated: the user's salt */
    static byte[] salt(final String tenantId, final String userId) {
        try {
            return MessageDigest.getInstance("SHA-256")
                .digest((SCHEME + "\0" + tenantId + "\0" + userId).getBytes(StandardCharsets.UTF_8));
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
