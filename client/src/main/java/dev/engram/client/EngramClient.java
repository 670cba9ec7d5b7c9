package dev.engram.client;

import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A typed client of Engram's retrieval API, for a chat backend: the context block for the next message, search,
 * the memory list, the profile, corrections, deletes, erasure and export, for one tenant and user at a time.
 *
 * <pre>{@code
 * EngramClient engram = EngramClient.builder("http://localhost:8080").apiKey(System.getenv("ENGRAM_KEY")).build();
 * EngramClient.User mira = engram.user("t1", "u-mira");
 * String prompt = mira.context("What should I use for the new service?").context();
 * }</pre>
 *
 * <p>Calls are synchronous over {@link HttpClient} (HTTP/1.1), with the API key sent as
 * {@code Authorization: Bearer KEY}. Errors: an answer with a problem body becomes an {@link EngramApiException}
 * (its subclass names the status); no answer (connection refused, timeout) is an {@link UncheckedIOException}.
 * Immutable and thread-safe.
 */
public final class EngramClient {

    private final ClientTransport transport;

    private EngramClient(final Builder builder) {
        this.transport = new ClientTransport(builder.baseUrl.replaceAll("/+$", ""), builder.apiKey, builder.timeout,
            builder.http != null ? builder.http
                : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(builder.timeout).build());
    }

    /**
     * @param baseUrl the retriever, e.g. {@code http://localhost:8080}
     * @return a builder
     */
    public static Builder builder(final String baseUrl) {
        return new Builder(baseUrl);
    }

    /**
     * @param tenantId the tenant
     * @param userId the user within the tenant
     * @return the calls on that user's memory
     * @throws IllegalArgumentException if either is blank
     */
    public User user(final String tenantId, final String userId) {
        return new User(ClientTransport.requireId("tenantId", tenantId), ClientTransport.requireId("userId", userId));
    }

    /**
     * @param tenantId the tenant
     * @return the tenant admin calls (settings, usage; an ADMIN key of the tenant)
     * @throws IllegalArgumentException if it is blank
     */
    public Tenant tenant(final String tenantId) {
        return new Tenant(ClientTransport.requireId("tenantId", tenantId));
    }

    /** The calls on one tenant's settings and cost ledger, for an ADMIN key of the tenant. */
    public final class Tenant {
        private final String path;

        private Tenant(final String tenantId) {
            this.path = "/v1/tenants/" + ClientTransport.segment(tenantId);
        }

        /** @return the newest version of the settings ({@code GET /v1/tenants/{tenant}/settings}) */
        public Views.TenantSettings settings() {
            return transport.get(path + "/settings", Views.TenantSettings.class);
        }

        /**
         * @param asOf an event time
         * @return the version in force then ({@code ?asOf=})
         */
        public Views.TenantSettings settings(final Instant asOf) {
            return transport.get(path + "/settings" + ClientTransport.query("asOf", Objects.requireNonNull(asOf, "asOf").toString()),
                Views.TenantSettings.class);
        }

        /**
         * {@code PUT /v1/tenants/{tenant}/settings}: a new version, the whole of the settings.
         *
         * @param settings the version (null fields are empty)
         * @return the version written, once the retriever has read it back
         */
        public Views.TenantSettings putSettings(final Views.TenantSettingsInput settings) {
            return transport.send("PUT", path + "/settings", Objects.requireNonNull(settings, "settings"), Views.TenantSettings.class);
        }

        /**
         * @param days how many UTC days back, today included (1..366)
         * @return the LLM spend per day and in total ({@code GET /v1/tenants/{tenant}/usage?days=})
         */
        public Views.Usage usage(final int days) {
            return transport.get(path + "/usage" + ClientTransport.query("days", days), Views.Usage.class);
        }
    }

    /** Options of the client. */
    public static final class Builder {
        private final String baseUrl;
        private String apiKey;
        private Duration timeout = Duration.ofSeconds(10);
        private HttpClient http;

        private Builder(final String baseUrl) {
            this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl").strip();
        }

        /**
         * @param key an API key ({@code retriever.auth.keys}); null or blank sends none (a demo with auth off)
         * @return this
         */
        public Builder apiKey(final String key) {
            this.apiKey = key == null || key.isBlank() ? null : key.strip();
            return this;
        }

        /**
         * @param requestTimeout connect and request timeout (default 10 s)
         * @return this
         */
        public Builder timeout(final Duration requestTimeout) {
            this.timeout = Objects.requireNonNull(requestTimeout, "timeout");
            return this;
        }

        /**
         * @param client the HTTP client to use (its own timeouts and executor)
         * @return this
         */
        public Builder httpClient(final HttpClient client) {
            this.http = client;
            return this;
        }

        /** @return the client */
        public EngramClient build() {
            return new EngramClient(this);
        }
    }

    /** The calls on one user's memory; every path names the tenant and the user. */
    public final class User {
        private final String tenantId;
        private final String userId;
        private final String path;

        private User(final String tenantId, final String userId) {
            this.tenantId = tenantId;
            this.userId = userId;
            this.path = "/v1/tenants/" + ClientTransport.segment(tenantId) + "/users/" + ClientTransport.segment(userId);
        }

        /** @return the tenant */
        public String tenantId() {
            return tenantId;
        }

        /** @return the user */
        public String userId() {
            return userId;
        }

        /**
         * {@code GET .../context?message=}: the memories that matter for the next message, as a prompt block
         * within the retriever's default token budget.
         *
         * @param message the user's next message
         * @return the block and the memories in it
         */
        public Views.Context context(final String message) {
            return transport.get(path + "/context" + ClientTransport.query("message", message), Views.Context.class);
        }

        /**
         * @param message the user's next message
         * @param budgetTokens the token budget of the block (1..100000)
         * @return the block and the memories in it
         */
        public Views.Context context(final String message, final int budgetTokens) {
            return transport.get(path + "/context" + ClientTransport.query("message", message, "budgetTokens", budgetTokens), Views.Context.class);
        }

        /**
         * {@code GET .../memories?query=&k=}: the top-k active memories for a query, with their scores.
         *
         * @param query the query
         * @param k how many at most (1..{@code retrieval.max.k})
         * @return the hits, best first
         */
        public Views.SearchResult search(final String query, final int k) {
            return transport.get(path + "/memories" + ClientTransport.query("query", query, "k", k), Views.SearchResult.class);
        }

        /**
         * {@code GET .../memories?query=&k=} with the read options: {@code recordAccess=false} (a look that is not a
         * use), {@code minScore}, {@code asOf}.
         *
         * @param query the query
         * @param k how many at most (1..{@code retrieval.max.k}, 100 by default)
         * @param options what else to send
         * @return the hits, best first
         */
        public Views.SearchResult search(final String query, final int k, final ReadOptions options) {
            return transport.get(path + "/memories" + ClientTransport.query("query", query, "k", k) + options.query(true), Views.SearchResult.class);
        }

        /**
         * {@code GET .../context?message=&budgetTokens=} with {@code recordAccess=false} when the options say so.
         *
         * @param message the user's next message
         * @param budgetTokens the token budget of the block (1..100000)
         * @param options {@link ReadOptions#withoutRecordingAccess()} and {@link ReadOptions#withAgentId} ({@code minScore}
         *     and {@code asOf} are the search's)
         * @return the block and the memories in it
         * @throws IllegalArgumentException if the options set {@code minScore} or {@code asOf}
         */
        public Views.Context context(final String message, final int budgetTokens, final ReadOptions options) {
            return transport.get(path + "/context" + ClientTransport.query("message", message, "budgetTokens", budgetTokens) + options.query(false),
                Views.Context.class);
        }

        /** @return every memory of the user, newest change first ({@code GET .../memories}) */
        public Views.MemoryList list() {
            return transport.get(path + "/memories", Views.MemoryList.class);
        }

        /**
         * @param type EPISODIC, SEMANTIC or PROCEDURAL; null for every type
         * @param status ACTIVE, ARCHIVED or DELETED; null for every status
         * @return the user's memories of that type and status, newest change first
         */
        public Views.MemoryList list(final String type, final String status) {
            final StringJoiner filters = new StringJoiner("&", "?", "").setEmptyValue("");
            if (type != null) {
                filters.add("type=" + ClientTransport.segment(type));
            }
            if (status != null) {
                filters.add("status=" + ClientTransport.segment(status));
            }
            return transport.get(path + "/memories" + filters, Views.MemoryList.class);
        }

        /**
         * @param memoryId a memory of the user
         * @return every version of it, oldest first ({@code GET .../memories/{id}/history})
         */
        public Views.History history(final String memoryId) {
            final JsonNode node = transport.get(path + "/memories/" + ClientTransport.segment(ClientTransport.requireId("memoryId", memoryId)) + "/history",
                JsonNode.class);
            final java.util.List<Views.Version> versions = new java.util.ArrayList<>();
            for (final JsonNode version : node.path("versions")) {
                // a version is the change's fields and the memory's, side by side
                versions.add(new Views.Version(version.path("operation").asText(), version.path("cause").asText(null),
                    ClientTransport.convert(version.get("eventTime"), Instant.class), version.path("previousValue").asText(null),
                    ClientTransport.convert(version, Views.MemoryView.class)));
            }
            return new Views.History(node.path("tenantId").asText(), node.path("userId").asText(),
                node.path("memoryId").asText(), versions);
        }

        /**
         * {@code PUT .../settings}: turns the user's memory on or off (while off nothing new is stored and reads
         * return no memories).
         *
         * @param enabled true to remember, false to stop
         * @return the accepted command
         */
        public Views.Accepted setMemoryEnabled(final boolean enabled) {
            return transport.send("PUT", path + "/settings", Map.of("memoryEnabled", enabled), Views.Accepted.class);
        }

        /**
         * {@code POST .../conversations}: publishes a completed conversation over HTTP, for a platform that does not
         * run a Kafka producer ({@link ConversationPublisher} writes the same record to Kafka). Posting the same
         * conversation again changes no memory.
         *
         * @param conversationId the conversation's id
         * @param turns the messages, oldest first
         * @return the accepted conversation, once the broker has it
         */
        public Views.ConversationAccepted postConversation(final String conversationId,
                                                           final java.util.List<ConversationPublisher.Turn> turns) {
            return postConversation(conversationId, turns, null);
        }

        /**
         * As {@link #postConversation(String, java.util.List)}, for one agent of the user.
         *
         * @param conversationId the conversation's id
         * @param turns the messages, oldest first
         * @param agentId the agent the conversation was with (mem0's agent_id), null for none
         * @return the accepted conversation, once the broker has it
         */
        public Views.ConversationAccepted postConversation(final String conversationId,
                                                           final java.util.List<ConversationPublisher.Turn> turns,
                                                           final String agentId) {
            final java.util.List<Map<String, Object>> messages = new java.util.ArrayList<>();
            for (final ConversationPublisher.Turn turn : turns) {
                final Map<String, Object> message = new LinkedHashMap<>();
                message.put("role", turn.role());
                message.put("content", turn.content());
                message.put("timestamp", turn.at().toString());
                messages.add(message);
            }
            final Map<String, Object> body = new LinkedHashMap<>();
            body.put("conversationId", ClientTransport.requireId("conversationId", conversationId));
            body.put("messages", messages);
            if (agentId != null) {
                body.put("agentId", ClientTransport.requireId("agentId", agentId));
            }
            return transport.send("POST", path + "/conversations", body, Views.ConversationAccepted.class);
        }

        /** @return what the retriever still holds of the user ({@code GET .../erasure}, admin keys only) */
        public Views.Erasure erasure() {
            return transport.get(path + "/erasure", Views.Erasure.class);
        }

        /** @return the live profile ({@code GET .../profile}) */
        public Views.Profile profile() {
            return transport.get(path + "/profile", Views.Profile.class);
        }

        /**
         * {@code PUT .../memories/{id}}: corrects a memory (source CORRECTED, confidence 1.0).
         *
         * @param memoryId the memory
         * @param content the corrected sentence, or null to keep it
         * @param value the corrected fact value, or null to keep it
         * @return the accepted command
         */
        public Views.Accepted correct(final String memoryId, final String content, final String value) {
            final Map<String, String> body = new LinkedHashMap<>();
            if (content != null) {
                body.put("content", content);
            }
            if (value != null) {
                body.put("value", value);
            }
            return transport.send("PUT", path + "/memories/" + ClientTransport.segment(ClientTransport.requireId("memoryId", memoryId)), body, Views.Accepted.class);
        }

        /**
         * @param memoryId the memory to delete ({@code DELETE .../memories/{id}})
         * @return the accepted command
         */
        public Views.Accepted delete(final String memoryId) {
            return transport.send("DELETE", path + "/memories/" + ClientTransport.segment(ClientTransport.requireId("memoryId", memoryId)), null, Views.Accepted.class);
        }

        /** @return the accepted command erasing everything about the user ({@code DELETE /v1/tenants/{t}/users/{u}}) */
        public Views.Accepted erase() {
            return transport.send("DELETE", path, null, Views.Accepted.class);
        }

        /** @return everything held about the user ({@code GET .../export}) */
        public Views.Export export() {
            return transport.get(path + "/export", Views.Export.class);
        }
    }
}
