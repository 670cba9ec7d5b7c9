package dev.engram.topology;

/** Thrown inside the extraction processor when a conversation is rejected: its dead-letter stage, error class and reason. */
final class RejectedConversation extends Exception {
    private static final long serialVersionUID = 1L;
    /** The dead-letter stage, e.g. {@code validation}. */
    final String stage;
    /** The error class named in the dead letter's headers. */
    final String errorClass;

    /**
     * @param stage the dead-letter stage
     * @param errorClass the error class
     * @param reason the reason, the exception's message
     */
    RejectedConversation(final String stage, final String errorClass, final String reason) {
        super(reason, null, false, false);
        this.stage = stage;
        this.errorClass = errorClass;
    }
}
