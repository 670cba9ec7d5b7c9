package dev.engram.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.MemoryCandidate;
import dev.engram.config.EngramConfig;
import dev.engram.stack.TopicScan;
import dev.engram.topics.Topic;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What a run of the extractor wrote to {@code memory-candidates}, in figures that tell two builds apart: a digest of
 * every committed candidate (each one's whole record, its vector included, as Avro's JSON form; sorted, so the
 * interleaving of partitions and tasks does not matter) and how many distinct texts the candidates hold against how
 * many texts the run embedded (equal: nothing was embedded twice or for nothing).
 */
final class CandidateDigest {

    private CandidateDigest() {
    }

    /**
     * Reads {@code memory-candidates} to its end ({@code read_committed}, decoded as the consolidator decodes it).
     *
     * @param config the run's config (crypto: the data keys are read from the same cluster)
     * @param bootstrapServers the cluster
     * @param textsEmbedded texts the extractor embedded in the whole run ({@code EmbeddingCpu#texts()} difference)
     * @return {@code candidatesWritten}, {@code candidateTextsDistinct} (distinct contents per tenant, user and
     *     conversation: what the extractor embeds once each), {@code textsEmbedded}, {@code candidatesSha256}
     * @throws IllegalStateException when the topic cannot be read to its end within a minute
     */
    static Map<String, Object> of(final EngramConfig config, final String bootstrapServers, final long textsEmbedded) {
        final Deserializer<MemoryCandidate> decoder = Topic.MEMORY_CANDIDATES.valueDeserializer(config);
        final List<String> lines = new ArrayList<>();
        final Set<List<String>> texts = new HashSet<>();
        final boolean read = TopicScan.toEnd(TopicScan.client(bootstrapServers), Topic.MEMORY_CANDIDATES.name(), null,
            Duration.ofMinutes(1), record -> {
                final MemoryCandidate c = decoder.deserialize(record.topic(), record.headers(), record.value());
                lines.add(c.toString());
                texts.add(List.of(c.getTenantId(), c.getUserId(), c.getConversationId(), c.getContent()));
            });
        if (!read) {
            throw new IllegalStateException("memory-candidates not read to its end within a minute");
        }
        lines.sort(null);
        final MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (final String line : lines) {
            sha.update(line.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("candidatesWritten", lines.size());
        out.put("candidateTextsDistinct", texts.size());
        out.put("textsEmbedded", textsEmbedded);
        out.put("candidatesSha256", HexFormat.of().formatHex(sha.digest()));
        return out;
    }
}
