package dev.engram.serde;

/**
 * How a failed HTTP call is named to a user: the JDK's HTTP client throws a {@link java.net.ConnectException} without a
 * message (its cause says "Connection refused"), so its bare {@code getMessage()} printed "failed: null".
 */
public final class ConnectionFailures {

    private ConnectionFailures() {
    }

    /**
     * @param error what a call threw
     * @return the first message in the cause chain with the type that carried it, e.g.
     *     {@code ConnectException (Connection refused)}; the type alone when no error in the chain has a message
     */
    public static String describe(final Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getClass().getSimpleName() + " (" + t.getMessage() + ")";
            }
        }
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.ConnectException) {
                // the JDK's HTTP client says nothing more; a timeout is HttpConnectTimeoutException, with a message
                return t.getClass().getSimpleName() + " (connection refused: nothing listens there)";
            }
        }
        return error.getClass().getSimpleName();
    }
}
