package dev.engram.retriever;

import static dev.engram.retriever.ApiRequests.memoryId;
import static dev.engram.retriever.ApiRequests.requireKnown;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import dev.engram.avro.CommandKind;
import dev.engram.avro.MemoryCommand;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import dev.engram.runtime.JsonBodies;
import dev.engram.scoring.Vectors;
import io.javalin.http.Context;

/**
 * The write routes of {@link RetrieverApi}: correct, delete, erase and settings. None writes a store:
 * each publishes one {@link MemoryCommand} to {@code memory-commands} and answers 202 with the command id
 * once the broker has it; the consolidator applies it in order with the user's other events. Correct and
 * delete are forwarded to the owning instance first (it checks that the memory is the user's: 404
 * otherwise); erase and settings are accepted anywhere, for unknown users too (their events may still
 * be in flight). Bodies are parsed strictly ({@link JsonBodies}: UTF-8, one object, no duplicate or unknown
 * field).
 */
final class WriteRoutes {

    /** Response header with the count of characters replaced by U+FFFD in the request's text, when any. */
    static final String REPLACED_HEADER = "X-Engram-Replaced-Characters";
    /** Longest accepted corrected content or value, in characters. */
    static final int MAX_CORRECTION_CHARS = 2000;
    /** The fields of a correction's body. */
    static final java.util.Set<String> CORRECTION_FIELDS = java.util.Set.of("content", "value");
    /** The field of a settings body. */
    static final java.util.Set<String> SETTINGS_FIELDS = java.util.Set.of("memoryEnabled");

    private final RetrievalService service;
    private final ApiAccess auth;
    private final OwnerForwarder owner;
    private final RetrieverApi.Privacy privacy;

    /**
     * @param service store access (the memory must exist for correct and delete)
     * @param auth resolves and authorizes the user of a request
     * @param owner forwards requests for users owned by another instance
     * @param privacy the command publisher, the PII filter and embedder for corrections, the clock
     */
    WriteRoutes(final RetrievalService service, final ApiAccess auth, final OwnerForwarder owner,
                final RetrieverApi.Privacy privacy) {
        this.service = service;
        this.auth = auth;
        this.owner = owner;
        this.privacy = privacy;
    }

    /**
     * {@code PUT .../memories/{id}}: CORRECT, with personal identifiers redacted (422 when dropped); an ARCHIVED
     * memory (superseded, merged, stale, expired or negated: history, no longer what Engram answers with) is a 409
     * naming its status, reason and the memory that replaced it, since a correction there would change nothing the
     * user is told (DELETE still removes it); new
     * {@code content} for a keyed fact without a new {@code value} is a 400 naming {@code value}; a new {@code value}
     * alone rewrites the content, or is a 400 naming {@code content} ({@link Corrections}).
     */
    void correct(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        final String memoryId = memoryId(ctx);
        final int[] replaced = {0};
        final JsonNode body = JsonBodies.object(ctx.bodyAsBytes(), CORRECTION_FIELDS);
        final String content = clean(optionalText(body, "content"), replaced);
        final String value = clean(optionalText(body, "value"), replaced);
        if (replaced[0] > 0) {
            // a lone surrogate (a JSON escape: the bytes are valid UTF-8) becomes U+FFFD, as in ingest; the count is told
            ctx.header(REPLACED_HEADER, Integer.toString(replaced[0]));
        }
        // an empty correction is refused once the memory is read (Corrections#resolve), with an example fitting its key
        if (owner.forwarded(ctx, user)) {
            return;
        }
        final dev.engram.avro.Memory memory = requireMemory(user, memoryId);
        if (memory.getStatus() == dev.engram.avro.MemoryStatus.ARCHIVED) {
            throw new ApiProblem(409, archived(memory));
        }
        final Corrections.Correction correction = Corrections.resolve(memory, content, value);
        final String correctedContent = correction.content();
        final String correctedValue = correction.value();
        final String cleanContent = correctedContent == null ? null : privacy.pii().filterText(correctedContent);
        final String cleanValue = correctedValue == null ? null : privacy.pii().filterText(correctedValue);
        if (correctedContent != null && cleanContent == null || correctedValue != null && cleanValue == null) {
            throw new ApiProblem(422, "The correction contains a card number, IBAN or national id and is not stored.");
        }
        final MemoryCommand.Builder command = newCommand(ctx, user, CommandKind.CORRECT).setMemoryId(memoryId)
            .setContent(cleanContent).setValue(cleanValue);
        if (cleanContent != null) {
            command.setEmbedding(Vectors.toList(privacy.embedder().embed(cleanContent)))
                .setEmbeddingModel(privacy.embedder().modelFor(cleanContent));
        }
        accept(ctx, command.build());
    }

    /** {@code DELETE .../memories/{id}}: DELETE. */
    void deleteMemory(final Context ctx) throws Exception {
        final UserKey user = auth.user(ctx);
        final String memoryId = memoryId(ctx);
        if (owner.forwarded(ctx, user)) {
            return;
        }
        requireMemory(user, memoryId);
        accept(ctx, newCommand(ctx, user, CommandKind.DELETE).setMemoryId(memoryId).build());
    }

    /** {@code DELETE /v1/tenants/{tenant}/users/{user}}: ERASE everything about the user. */
    void erase(final Context ctx) {
        final UserKey user = auth.user(ctx);
        accept(ctx, newCommand(ctx, user, CommandKind.ERASE).build());
    }

    /** {@code PUT .../settings}: SET_MEMORY_ENABLED. */
    void settings(final Context ctx) {
        final UserKey user = auth.user(ctx);
        final JsonNode enabled = JsonBodies.object(ctx.bodyAsBytes(), SETTINGS_FIELDS).get("memoryEnabled");
        if (enabled == null || enabled.isNull()) {
            throw ApiProblem.badRequest("memoryEnabled (true or false) is required");
        }
        if (!enabled.isBoolean()) {
            throw ApiProblem.badRequest("memoryEnabled must be true or false (a JSON boolean), not "
                + JsonBodies.describe(enabled));
        }
        accept(ctx, newCommand(ctx, user, CommandKind.SET_MEMORY_ENABLED).setMemoryEnabled(enabled.booleanValue()).build());
    }

    private MemoryCommand.Builder newCommand(final Context ctx, final UserKey user, final CommandKind kind) {
        return MemoryCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setTenantId(user.tenantId())
            .setUserId(user.userId()).setKind(kind).setMemoryId(null).setContent(null).setValue(null)
            .setMemoryEnabled(null).setActor(ApiAccess.actor(ctx))
            .setIssuedAt(privacy.clock().instant());
    }

    private void accept(final Context ctx, final MemoryCommand command) {
        privacy.commands().publish(command);
        ctx.attribute(ApiAccess.COMMAND_ID, command.getCommandId());
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("commandId", command.getCommandId());
        body.put("kind", command.getKind().name());
        body.put("status", "ACCEPTED");
        ctx.status(202).json(body);
    }

    /**
     * @param memory an ARCHIVED memory
     * @return the 409 detail: its status, archive reason and successor, and what to do instead
     */
    static String archived(final dev.engram.avro.Memory memory) {
        final StringBuilder detail = new StringBuilder("memory ").append(memory.getMemoryId()).append(" is ARCHIVED");
        final String successor = memory.getSupersededBy();
        if (memory.getArchiveReason() != null || successor != null) {
            detail.append(" (");
            if (memory.getArchiveReason() != null) {
                detail.append(memory.getArchiveReason().name()).append(successor != null ? " " : "");
            }
            if (successor != null) {
                detail.append(memory.getArchiveReason() == null ? "superseded " : "").append("by ").append(successor);
            }
            detail.append(')');
        }
        detail.append(" and is not corrected: it is history, no longer what Engram answers with; ");
        return detail.append(successor != null ? "correct the current memory " + successor + " instead"
            : "correct the current memory instead").append(", or DELETE this one").toString();
    }

    private dev.engram.avro.Memory requireMemory(final UserKey user, final String memoryId) {
        requireKnown(service, user);
        return service.memory(user, memoryId)
            .orElseThrow(() -> service.unknown(user, "No memory " + memoryId + " for this user"));
    }

    /**
     * Replaces lone surrogates (from JSON escapes) and control characters other than tab and line ends by U+FFFD,
     * adding their count to {@code replaced[0]} ({@link BodyText#text}); null stays null.
     */
    private static String clean(final String text, final int[] replaced) {
        return text == null ? null : BodyText.text(text, replaced);
    }

    /**
     * The body of a write route without a fixed field list of its own ({@code POST .../conversations} names its
     * unknown fields itself), parsed strictly ({@link JsonBodies#object(byte[])}).
     *
     * @param ctx the request
     * @param replaced unchanged: invalid UTF-8 is refused, not replaced (lone surrogates in JSON escapes are counted
     *     where the text is read)
     * @return the body, a JSON object
     * @throws ApiProblem 400 when the body is missing, not UTF-8, not one JSON object, or has a duplicate field
     */
    static JsonNode body(final Context ctx, final int[] replaced) {
        return JsonBodies.object(ctx.bodyAsBytes());
    }

    private static String optionalText(final JsonNode body, final String field) {
        final JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            // the type named, as the other routes do ("value must be a non-blank string" for 123 said nothing of it)
            throw ApiProblem.badRequest(field + " must be a non-blank string, not " + JsonBodies.describe(node));
        }
        if (node.asText().length() > MAX_CORRECTION_CHARS) {
            throw ApiProblem.badRequest(field + " must have at most " + MAX_CORRECTION_CHARS + " characters");
        }
        return node.asText().strip();
    }
}
