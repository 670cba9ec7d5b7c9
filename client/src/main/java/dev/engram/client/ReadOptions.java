package dev.engram.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Options of a read ({@link EngramClient.User#search(String, int, ReadOptions)},
 * {@link EngramClient.User#context(String, int, ReadOptions)}); immutable, each {@code with…} returns a copy.
 *
 * <p><b>Reads count as use.</b> By default a search or context request reports its hits on {@code memory-access}:
 * each hit raises the memory's access count and moves its last access to the request's time, which keeps memories a
 * user's conversations keep needing from going stale (the lifecycle archives what nobody used for 90 days). That is
 * what a chat backend wants before it answers; an evaluation, an admin tool or a look around the demo does not, and
 * sends {@code recordAccess=false} ({@link #withoutRecordingAccess()}).
 */
public final class ReadOptions {

    private static final ReadOptions DEFAULTS = new ReadOptions(true, null, null, null);

    private final boolean recordAccess;
    private final Double minScore;
    private final Instant asOf;
    private final String agentId;

    private ReadOptions(final boolean recordAccess, final Double minScore, final Instant asOf, final String agentId) {
        this.recordAccess = recordAccess;
        this.minScore = minScore;
        this.asOf = asOf;
        this.agentId = agentId;
    }

    /** @return the API's defaults: the hits are recorded as use, no score floor, the current memories */
    public static ReadOptions defaults() {
        return DEFAULTS;
    }

    /** @return these options with {@code recordAccess=false}: the read is not reported as a use of its hits */
    public ReadOptions withoutRecordingAccess() {
        return new ReadOptions(false, minScore, asOf, agentId);
    }

    /**
     * @param score the smallest score of a hit, 0..1 (the scale of {@link Views.Hit#score()})
     * @return these options with {@code minScore}
     * @throws IllegalArgumentException outside 0..1
     */
    public ReadOptions withMinScore(final double score) {
        if (!(score >= 0 && score <= 1)) {
            throw new IllegalArgumentException("minScore must be between 0 and 1, was " + score);
        }
        return new ReadOptions(recordAccess, score, asOf, agentId);
    }

    /**
     * @param time an event time
     * @return these options with {@code asOf}: the memories valid at that time, whatever their status now (such a
     *     read is never reported as use)
     */
    public ReadOptions withAsOf(final Instant time) {
        return new ReadOptions(recordAccess, minScore, java.util.Objects.requireNonNull(time, "asOf"), agentId);
    }

    /**
     * @param agent the agent asking (mem0's agent_id)
     * @return these options with {@code agentId}: the agent's own memories and the user's shared ones only
     * @throws IllegalArgumentException if it is blank
     */
    public ReadOptions withAgentId(final String agent) {
        if (agent == null || agent.isBlank()) {
            throw new IllegalArgumentException("agentId must not be blank");
        }
        return new ReadOptions(recordAccess, minScore, asOf, agent.strip());
    }

    /** @return whether the hits are reported as use */
    public boolean recordAccess() {
        return recordAccess;
    }

    /**
     * @param search whether the read is a search (which takes every option) rather than a context request
     * @return the options as query parameters ({@code &name=value}…), empty for the defaults
     * @throws IllegalArgumentException if a context request is given {@code minScore} or {@code asOf} ({@code agentId}
     *     and {@code recordAccess} apply to both)
     */
    String query(final boolean search) {
        if (!search && (minScore != null || asOf != null)) {
            throw new IllegalArgumentException("a context request takes recordAccess only (minScore and asOf are the search's)");
        }
        final StringBuilder query = new StringBuilder();
        if (!recordAccess) {
            query.append("&recordAccess=false");
        }
        if (minScore != null) {
            query.append("&minScore=").append(minScore);
        }
        if (asOf != null) {
            query.append("&asOf=").append(URLEncoder.encode(asOf.toString(), StandardCharsets.UTF_8));
        }
        if (agentId != null) {
            query.append("&agentId=").append(URLEncoder.encode(agentId, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return query.toString();
    }
}
