package dev.engram.bench;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.core.UserKey;
import dev.engram.stack.ConversationSources;

/**
 * The requests {@link RetrievalBenchmark} sends: {@code GET …/memories?k=5&query=…}, one per scored LoCoMo question
 * as the user it names, or the distinct questions spread over synthetic users (the sweep). Each request has a 30-s
 * timeout.
 */
final class RetrievalRequests {

    private RetrievalRequests() {
    }

    /** @return the first request of each user (each path), in order */
    static List<HttpRequest> onePerUser(final List<HttpRequest> requests) {
        final Map<String, HttpRequest> byUser = new LinkedHashMap<>();
        requests.forEach(r -> byUser.putIfAbsent(r.uri().getRawPath(), r));
        return List.copyOf(byUser.values());
    }

    /** @return the same requests with {@code recordAccess=false}: answered alike, their hits not reported */
    static List<HttpRequest> withoutAccess(final List<HttpRequest> requests) {
        return requests.stream().map(r -> HttpRequest.newBuilder(URI.create(r.uri() + "&recordAccess=false"))
            .timeout(Duration.ofSeconds(30)).GET().build()).toList();
    }

    /** @return the benchmark's questions, each once, in order */
    static List<String> distinctQueries(final List<LoCoMoQa.Sample> samples) {
        final Set<String> out = new LinkedHashSet<>();
        samples.forEach(s -> s.questions().forEach(q -> out.add(q.question())));
        return new ArrayList<>(out);
    }

    /** One query request per scored question, asked as the user it names (the first speaker when none). */
    static List<HttpRequest> requests(final String baseUrl, final List<LoCoMoQa.Sample> samples) {
        final List<HttpRequest> out = new ArrayList<>();
        for (final LoCoMoQa.Sample s : samples) {
            for (final LoCoMoQa.Question q : s.questions()) {
                final String user = URLEncoder.encode(s.userId(q.speakers().get(0)), StandardCharsets.UTF_8);
                out.add(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/tenants/" + ConversationSources.LOCOMO_TENANT
                    + "/users/" + user + "/memories?k=5&query=" + URLEncoder.encode(q.question(), StandardCharsets.UTF_8)))
                    .timeout(Duration.ofSeconds(30)).GET().build());
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("The input has no category 1-4 questions to ask");
        }
        return out;
    }

    /**
     * @param baseUrl the retriever's base URL
     * @param users the synthetic users, asked in turn
     * @param queries the questions, each asked once
     * @return request i asks question i as user {@code i mod users.size()}, hits not reported ({@code recordAccess=false})
     */
    static List<HttpRequest> roundRobin(final String baseUrl, final List<UserKey> users, final List<String> queries) {
        final List<HttpRequest> requests = new ArrayList<>();
        for (int i = 0; i < queries.size(); i++) {
            final UserKey user = users.get(i % users.size());
            requests.add(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/tenants/" + user.tenantId() + "/users/"
                    + user.userId() + "/memories?k=5&recordAccess=false&query="
                    + URLEncoder.encode(queries.get(i), StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30)).GET().build());
        }
        return requests;
    }
}
