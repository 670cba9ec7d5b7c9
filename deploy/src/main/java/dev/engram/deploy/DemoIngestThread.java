package dev.engram.deploy;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.engram.stack.ConversationSources;
import dev.engram.stack.Ingest;

/** Publishes the demo's input on its own thread, so the demo prints progress while it ingests. */
final class DemoIngestThread extends Thread {
    private final Ingest ingest;
    private final Path file;
    private final java.util.function.UnaryOperator<dev.engram.avro.ConversationCompleted> change;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicReference<ConversationSources.Report> report = new AtomicReference<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * @param ingest the producer
     * @param file the input
     * @param change applied to every record before it is sent ({@link SampleDates#shift})
     */
    DemoIngestThread(final Ingest ingest, final Path file,
                     final java.util.function.UnaryOperator<dev.engram.avro.ConversationCompleted> change) {
        super("engram-demo-ingest");
        setDaemon(true);
        this.ingest = ingest;
        this.file = file;
        this.change = change;
    }

    @Override
    public void run() {
        try {
            report.set(ingest.publish(file, change, sent::set));
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    long sent() {
        return sent.get();
    }

    boolean done() {
        return report.get() != null;
    }

    ConversationSources.Report report() {
        return report.get();
    }

    void rethrow() {
        final Throwable e = failure.get();
        if (e != null) {
            throw new IllegalStateException("Ingest failed: " + e.getMessage(), e);
        }
        if (ingest.failed() > 0) {
            throw new IllegalStateException("Ingest could not send " + ingest.failed() + " records: " + ingest.errors());
        }
    }
}
