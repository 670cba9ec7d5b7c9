package dev.engram.crypto;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record sealed with a data key that no longer exists: its user was erased (the key tombstoned), or
 * it predates an erasure after which the user got a new key. Such records are skipped and counted, never
 * dead-lettered: they are not errors, they are what erasure is meant to do. The message names the user
 * key only (never content).
 */
public final class ErasedDataException extends SerializationException {

    private static final long serialVersionUID = 1L;

    private final String userKey;

    /** @param userKey the record's user key ({@code tenant/user}) */
    public ErasedDataException(final String userKey) {
        super("The data key of " + userKey + " is erased: the record is unreadable by design");
        this.userKey = userKey;
    }

    /** @return the record's user key */
    public String userKey() {
        return userKey;
    }

    /**
     * @param e any throwable
     * @return whether it is, or is caused by, an ErasedDataException
     */
    public static boolean isErased(final Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ErasedDataException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
