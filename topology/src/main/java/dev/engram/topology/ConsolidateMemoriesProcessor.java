package dev.engram.topology;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.engram.avro.ContradictionDetected;
import dev.engram.avro.Memory;
import dev.engram.avro.MemoryArchived;
import dev.engram.avro.MemoryCandidate;
import dev.engram.avro.UpdateOperation;
import dev.engram.avro.UserProfile;
import dev.engram.consolidation.Consolidator;
import dev.engram.core.UserKey;
import dev.engram.port.VectorIndex;
import dev.engram.port.VectorIndexFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code consolidate-memories} processor: validates each candidate, reads the user's memories
 * (prefix scan of {@link Stores#MEMORIES}), asks the {@link Consolidator}, then writes the changed
 * memories and the folded profile ({@link Stores#PROFILES}) and forwards the events to the sinks of
 * {@link ConsolidationTopology}. Invalid candidates are forwarded to the dead-letter sink with the
 * reason in {@code __streams.errors.*} headers.
 *
 * <p>Input: key = user key ({@code tenant/user}), value = MemoryCandidate. Output records are keyed
 * by the user key and stamped with the candidate's event time.
 */
final class ConsolidateMemoriesProcessor implements Processor<String, MemoryCandidate, String, Object> {

    /** Header names of Kafka Streams' dead-letter records (KIP-1034), reused for validation failures. */
    static final String HEADER_EXCEPTION = "__streams.errors.exception";
    static final String HEADER_MESSAGE = "__streams.errors.message";
    static final String HEADER_TOPIC = "__streams.errors.topic";
    static final String HEADER_PARTITION = "__streams.errors.partition";
    static final String HEADER_OFFSET = "__streams.errors.offset";
    /** Value of {@link #HEADER_EXCEPTION} for a candidate that failed validation. */
    static final String INVALID_CANDIDATE = "dev.engram.InvalidMemoryCandidate";

    private static final Logger LOG = LoggerFactory.getLogger(ConsolidateMemoriesProcessor.class);
    private static final StringSerializer PREFIX_SERIALIZER = new StringSerializer();

    private final Consolidator consolidator;
    private final VectorIndexFactory indexFactory;
    private final Counters counters;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Memory> memories;
    private KeyValueStore<String, UserProfile> profiles;
    private VectorIndex index;

    ConsolidateMemoriesProcessor(final Consolidator consolidator, final VectorIndexFactory indexFactory,
                                 final Counters counters) {
        this.consolidator = consolidator;
        this.indexFactory = indexFactory;
        this.counters = counters;
    }

    @Override
    public void init(final ProcessorContext<String, Object> context) {
        this.context = context;
        this.memories = context.getStateStore(Stores.MEMORIES);
        this.profiles = context.getStateStore(Stores.PROFILES);
        this.index = indexFactory.open(memories);
    }

    @Override
    public void process(final Record<String, MemoryCandidate> record) {
        final MemoryCandidate candidate = record.value();
        final Optional<String> invalid = consolidator.validate(record.key(), candidate);
        if (invalid.isPresent()) {
            deadLetter(record, invalid.get());
            return;
        }
        final UserKey user = UserKey.parse(record.key());
        final Consolidator.Decision decision = consolidator.decide(candidate, userMemories(user), index);
        final long timestamp = candidate.getEventTime().toEpochMilli();
        UserProfile profile = profiles.get(user.wire());
        for (final Consolidator.Change change : decision.changes()) {
            final Memory after = change.after();
            memories.put(user.storeKey(after.getMemoryId()), after);
            index.upsert(after);
            profile = ProfileProjection.apply(profile, change.before(), change.event());
            context.forward(new Record<String, Object>(user.wire(), change.event(), timestamp), ConsolidationTopology.UPDATED_SINK);
            counters.count(change.event().getOperation());
        }
        if (!decision.changes().isEmpty()) {
            profiles.put(user.wire(), profile);
            context.forward(new Record<String, Object>(user.wire(), profile, timestamp), ConsolidationTopology.PROFILES_SINK);
        }
        for (final ContradictionDetected contradiction : decision.contradictions()) {
            context.forward(new Record<String, Object>(user.wire(), contradiction, timestamp),
                ConsolidationTopology.CONTRADICTIONS_SINK);
            counters.contradictions.increment();
        }
        for (final MemoryArchived archived : decision.archived()) {
            context.forward(new Record<String, Object>(user.wire(), archived, timestamp), ConsolidationTopology.ARCHIVED_SINK);
        }
        if (decision.changes().isEmpty()) {
            counters.skipped(decision.outcome());
        }
        LOG.debug("candidate {} of {}: {}", candidate.getCandidateId(), user, decision.outcome());
    }

    /** Every memory of the user, every status, in store-key (memory id) order. */
    private List<Memory> userMemories(final UserKey user) {
        final List<Memory> out = new ArrayList<>();
        try (KeyValueIterator<String, Memory> it = memories.prefixScan(user.storePrefix(), PREFIX_SERIALIZER)) {
            while (it.hasNext()) {
                final Memory memory = it.next().value;
                if (memory != null) {
                    out.add(memory);
                }
            }
        }
        return out;
    }

    private void deadLetter(final Record<String, MemoryCandidate> record, final String reason) {
        final Headers headers = new RecordHeaders(record.headers().toArray());
        headers.add(HEADER_EXCEPTION, INVALID_CANDIDATE.getBytes(StandardCharsets.UTF_8));
        headers.add(HEADER_MESSAGE, reason.getBytes(StandardCharsets.UTF_8));
        final Optional<RecordMetadata> metadata = context.recordMetadata();
        metadata.ifPresent(m -> {
            headers.add(HEADER_TOPIC, m.topic().getBytes(StandardCharsets.UTF_8));
            headers.add(HEADER_PARTITION, Integer.toString(m.partition()).getBytes(StandardCharsets.UTF_8));
            headers.add(HEADER_OFFSET, Long.toString(m.offset()).getBytes(StandardCharsets.UTF_8));
        });
        LOG.warn("invalid memory candidate at {}: {}", metadata.map(Object::toString).orElse("?"), reason);
        counters.invalid.increment();
        context.forward(new Record<String, Object>(record.key(), record.value(), record.timestamp(), headers),
            ConsolidationTopology.DEAD_LETTER_SINK);
    }

    /** The consolidator's Micrometer counters, tagged with the application id. */
    static final class Counters {
        private final Counter created;
        private final Counter reinforced;
        private final Counter superseded;
        private final Counter contradictions;
        private final Counter invalid;
        private final MeterRegistry registry;
        private final String application;

        Counters(final MeterRegistry registry, final String application) {
            this.registry = registry;
            this.application = application;
            this.created = counter("engram.memories.created", "Memories created ACTIVE from a candidate");
            this.reinforced = counter("engram.memories.reinforced", "Memories reinforced by a restatement");
            this.superseded = counter("engram.memories.superseded", "Memories archived as superseded by a newer statement");
            this.contradictions = counter("engram.contradictions", "Contradictions detected (same key, judge or negation)");
            this.invalid = counter("engram.candidates.invalid", "Candidates sent to the dead-letter topic");
        }

        private Counter counter(final String name, final String description) {
            return Counter.builder(name).description(description).tag("application", application).register(registry);
        }

        void count(final UpdateOperation operation) {
            switch (operation) {
                case CREATED -> created.increment();
                case REINFORCED -> reinforced.increment();
                case SUPERSEDED -> superseded.increment();
                default -> { }
            }
        }

        void skipped(final Consolidator.Outcome outcome) {
            Counter.builder("engram.candidates.skipped").description("Candidates that changed nothing, by reason")
                .tag("application", application).tag("reason", outcome.name().toLowerCase(java.util.Locale.ROOT))
                .register(registry).increment();
        }
    }
}
