package dev.engram.retriever;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;

import dev.engram.avro.UserProfile;
import dev.engram.core.UserKey;
import dev.engram.runtime.ApiProblem;
import io.javalin.http.Context;

/**
 * Request parsing shared by the read and write routes: every malformed parameter is a 400
 * (problem+json) naming the parameter and what it accepts, never a 500.
 */
final class ApiRequests {

    /** A time then a space then an offset's digits: the space was a {@code +} the query string's decoding turned. */
    private static final java.util.regex.Pattern SPACED_OFFSET =
        java.util.regex.Pattern.compile("(T[0-9:.,]+) ([0-9]{2}(?::?[0-9]{2}){0,2})$");
    /** A space then a year's digits at the start: the space was the year's {@code +} sign. */
    private static final java.util.regex.Pattern SPACED_YEAR = java.util.regex.Pattern.compile(" [0-9]{5,}-");
    private static final java.util.regex.Pattern WHOLE = java.util.regex.Pattern.compile("[+-]?[0-9]+");

    private ApiRequests() {
    }

    /**
     * @param text any text
     * @return true when the text has a letter or digit: blank, invisible (zero-width space, NBSP) or
     *     undecodable (U+FFFD) text has nothing to search or embed
     */
    static boolean hasWords(final String text) {
        return text.codePoints().anyMatch(c -> Character.isLetterOrDigit(c) && c != 0xFFFD);
    }

    /**
     * @param ctx the request
     * @return the {@code {id}} path parameter
     * @throws ApiProblem 400 when it is blank
     */
    static String memoryId(final Context ctx) {
        final String memoryId = ctx.pathParam("id");
        if (memoryId.isBlank()) {
            throw ApiProblem.badRequest("memory id must not be blank");
        }
        return memoryId;
    }

    /**
     * @param service the stores
     * @param user a user
     * @return the user's profile
     * @throws ApiProblem 404 for a user without a profile (never seen, or erased); 503 with Retry-After while the
     *     instance has not caught up since its start ({@link RetrievalService#unknown})
     */
    static UserProfile requireKnown(final RetrievalService service, final UserKey user) {
        return service.profile(user).orElseThrow(() -> service.unknown(user, "No memories are known for user "
            + user.userId() + " of tenant " + user.tenantId()));
    }

    /** @return the boolean query parameter ({@code true}/{@code false}), the default when absent; else a 400 */
    static boolean booleanParam(final Context ctx, final QueryParam param, final boolean fallback) {
        final String name = param.wireName();
        final String raw = param.raw(ctx);
        if (raw == null) {
            return fallback;
        }
        return switch (raw.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiProblem.badRequest(name + " must be true or false: " + raw);
        };
    }

    /**
     * @return the ISO-8601 instant query parameter ({@code 2025-03-01T00:00:00Z}, or with an offset:
     *     {@code 2025-03-01T02:00:00+02:00}), null when absent; a malformed one is a 400 echoing the value as received.
     *     A {@code +} offset sent unencoded arrives as a space (form decoding of the query string), and a space is never
     *     part of an instant, so a space right before the offset is read as the {@code +} it was: the instant is the
     *     one the client wrote, whether it sent {@code +} or {@code %2B}; so is a space before a year of five digits or
     *     more, the sign such a year takes ({@code +10000-01-01T00:00:00Z})
     */
    static Instant instantParam(final Context ctx, final QueryParam param) {
        final String name = param.wireName();
        final String raw = param.raw(ctx);
        if (raw == null) {
            return null;
        }
        final String text = SPACED_OFFSET.matcher(raw.strip()).replaceFirst("$1+$2");
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            // a year beyond 9999 takes a sign (+10000-01-01T00:00:00Z), which an unencoded + turned into a leading space
            if (SPACED_YEAR.matcher(raw).lookingAt()) {
                try {
                    return Instant.parse("+" + SPACED_OFFSET.matcher(raw.substring(1).strip()).replaceFirst("$1+$2"));
                } catch (DateTimeParseException signed) {
                    // not an instant either way: the 400 below
                }
            }
            throw ApiProblem.badRequest(name + " must be an ISO-8601 instant such as 2025-03-01T00:00:00Z or "
                + "2025-03-01T02:00:00+02:00 (send + as %2B): " + raw);
        }
    }

    /** @return the integer query parameter in [min, max], the default when absent; else a 400 */
    static int intParam(final Context ctx, final QueryParam param, final int fallback, final int min, final int max) {
        return (int) numberParam(ctx, param, fallback, min, max, "an integer", Integer::parseInt);
    }

    /** @return the decimal query parameter in [min, max] (e.g. {@code minScore}), the default when absent; else a 400 */
    static double doubleParam(final Context ctx, final QueryParam param, final double fallback, final double min,
                              final double max) {
        return numberParam(ctx, param, fallback, min, max, "a number", Double::parseDouble);
    }

    private static double numberParam(final Context ctx, final QueryParam param, final double fallback,
                                      final double min, final double max, final String kind,
                                      final java.util.function.ToDoubleFunction<String> parse) {
        final String name = param.wireName();
        final String raw = param.raw(ctx);
        if (raw == null) {
            return fallback;
        }
        final double value;
        try {
            value = parse.applyAsDouble(raw.strip());
        } catch (NumberFormatException e) {
            if (WHOLE.matcher(raw.strip()).matches()) {
                // a whole number too large for an int is out of range, not "not an integer"
                throw ApiProblem.badRequest(name + " must be between " + fmt(min) + " and " + fmt(max) + ", was "
                    + raw.strip());
            }
            throw ApiProblem.badRequest(name + " must be " + kind + " between " + fmt(min) + " and " + fmt(max));
        }
        if (!(value >= min && value <= max)) {
            throw ApiProblem.badRequest(name + " must be between " + fmt(min) + " and " + fmt(max) + ", was " + raw.strip());
        }
        return value;
    }

    private static String fmt(final double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** @return the enum query parameter (case-insensitive), null when absent; an unknown name is a 400 */
    static <E extends Enum<E>> E enumParam(final Context ctx, final QueryParam param, final Class<E> type) {
        final String name = param.wireName();
        final String raw = param.raw(ctx);
        if (raw == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, raw.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiProblem.badRequest(name + " must be one of " + Arrays.toString(type.getEnumConstants()));
        }
    }
}
