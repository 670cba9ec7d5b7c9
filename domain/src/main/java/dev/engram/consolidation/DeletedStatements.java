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
 *       of it: another value of the key said before the deletion is another statement (it would have superseded the
 *       deleted one had it come in time, and a replay in time order keeps it the same way);</li>
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
     * @return the digests of what it states: one per value of a fact (current, then former ones), else its content's
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
