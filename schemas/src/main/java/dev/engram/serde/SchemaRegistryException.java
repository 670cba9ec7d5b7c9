package dev.engram.serde;

/**
 * A schema registry call failed: the registry answered with an error (HTTP status and the Confluent
 * {@code error_code}, e.g. 409 for an incompatible schema, 40403 for an unknown schema id), or could not
 * be reached (status -1).
 */
public final class SchemaRegistryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final int errorCode;

    /**
     * @param message what was asked and what the registry said
     * @param status the HTTP status, -1 when there was no answer
     * @param errorCode the {@code error_code} of the error body, -1 when absent
     * @param cause the I/O error, or null
     */
    public SchemaRegistryException(final String message, final int status, final int errorCode, final Throwable cause) {
        super(message, cause);
        this.status = status;
        this.errorCode = errorCode;
    }

    /** @return the HTTP status, -1 when the registry did not answer */
    public int status() {
        return status;
    }

    /** @return the Confluent {@code error_code} (40401 subject not found, 40403 schema not found, 409 incompatible, 42201 invalid schema), -1 if none */
    public int errorCode() {
        return errorCode;
    }
}
