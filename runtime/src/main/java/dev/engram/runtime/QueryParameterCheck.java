package dev.engram.runtime;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * Strict query parameters ({@link AppHttpServer#queryParameters}): each route reads the parameters declared for its
 * operation ({@code METHOD path-template}), and a request naming any other is a 400 problem naming the unknown ones
 * and the ones the route reads, so that a misspelt {@code limit=} for {@code k=} is not answered as if it were absent.
 * HEAD is checked as GET; an operation not declared (health, metrics) reads none; an empty segment ({@code ?k=3&},
 * {@code ?&k=3}) is no parameter and passes, but a value without a name ({@code ?=x}, {@code ?k=3&=5}) is a 400 like an
 * unknown name: it was meant for some parameter, and answering without it would ignore what was asked. Every parameter
 * is read as one value, so one given twice ({@code ?k=3&k=5}) is a 400 too.
 *
 * <p>Runs as a Javalin {@code beforeMatched} handler (the matched route's template is known there). The declarations
 * may be replaced before the server starts; reads are lock-free (a volatile immutable map).
 */
final class QueryParameterCheck {

    /** Query parameters per operation ({@code METHOD template}); an operation not named reads none. */
    private volatile Map<String, Set<String>> byOperation = Map.of();

    /**
     * @param declared {@code METHOD path-template} as registered (e.g. {@code GET /v1/tenants/{tenant}/usage}) →
     *     the parameter names; replaces any earlier declaration (copied)
     */
    void declare(final Map<String, ? extends Collection<String>> declared) {
        final Map<String, Set<String>> copy = new LinkedHashMap<>();
        declared.forEach((operation, names) -> copy.put(operation, Set.copyOf(names)));
        this.byOperation = Map.copyOf(copy);
    }

    /**
     * @param ctx a request whose route has been matched
     * @throws ApiProblem 400 when the query names a parameter the matched route does not read, gives a value without a
     *     name, or names one more than once
     */
    void check(final Context ctx) {
        final String query = ctx.queryString();
        if (query == null || query.isEmpty()) {
            return;
        }
        final String method = ctx.method() == HandlerType.HEAD ? "GET" : ctx.method().name();
        final String operation = method + " " + ctx.endpointHandlerPath();
        final Set<String> reads = byOperation.getOrDefault(operation, Set.of());
        for (final String segment : query.split("&", -1)) {
            if (segment.startsWith("=")) {
                final String shown = segment.length() > 40 ? segment.substring(0, 40) + "…" : segment;
                throw ApiProblem.badRequest("Query parameter without a name ('" + shown + "') on " + operation + "; "
                    + whatItReads(reads));
            }
        }
        final Set<String> unknown = new TreeSet<>();
        ctx.queryParamMap().keySet().stream().filter(name -> !name.isEmpty() && !reads.contains(name))
            .forEach(unknown::add);
        if (unknown.isEmpty()) {
            final Set<String> repeated = new TreeSet<>();
            ctx.queryParamMap().forEach((name, values) -> {
                if (!name.isEmpty() && values.size() > 1) {
                    repeated.add(name);
                }
            });
            if (!repeated.isEmpty()) {
                // every parameter is read as one value: answering with the first of two would ignore the other
                throw ApiProblem.badRequest("Query parameter" + (repeated.size() == 1 ? " " : "s ")
                    + String.join(", ", repeated.stream().map(n -> "'" + n + "'").toList())
                    + " given more than once on " + operation + "; give each once");
            }
            return;
        }
        final String named = String.join(", ", unknown.stream().map(n -> "'" + n + "'").toList());
        throw ApiProblem.badRequest("Unknown query parameter" + (unknown.size() == 1 ? " " : "s ") + named + " on "
            + operation + "; " + whatItReads(reads));
    }

    /** @return "this route reads: a, b" (sorted), or that it reads none */
    private static String whatItReads(final Set<String> reads) {
        return reads.isEmpty() ? "this route reads no query parameters"
            : "this route reads: " + String.join(", ", new TreeSet<>(reads));
    }
}
