package dev.engram.topics;

/**
 * The {@code application.id} of each app, {@code engram-<app>}: it names the app's consumer group, the prefix of
 * its changelog topics and its dead-letter topic ({@link Topic#deadLetters}), and tags its metrics.
 */
public final class AppIds {

    /** The extractor: conversations to memory candidates. */
    public static final String EXTRACTOR = "engram-extractor";
    /** The consolidator: candidates, commands and access to memory state. */
    public static final String CONSOLIDATOR = "engram-consolidator";
    /** The retriever: the read model and the HTTP API. */
    public static final String RETRIEVER = "engram-retriever";

    private AppIds() {
    }
}
