package dev.engram.topics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.engram.config.EngramConfig;
import dev.engram.serde.RecordSerdes;
import dev.engram.serde.SerdeFormat;
import dev.engram.streams.PipelineConfig;

/**
 * The value Serdes of Engram's topics as configured: {@code serde.format} ({@code single-object}, the default, or
 * {@code registry}) with {@code schema.registry.url} and {@code schema.registry.basic.auth.user.info}. Every
 * producer, consumer, source and sink of a topic in the table of topics takes its value Serde from here; state
 * stores (and so their changelogs) keep {@link dev.engram.serde.AvroSerdes} single-object encoding, which needs no
 * registry round trip. One registry client per registry URL and user is shared by the JVM, so a schema is
 * registered and fetched once however many apps run in it (the demo).
 */
public final class TopicSerdes {

    private static final Map<String, RecordSerdes> REGISTRY_CLIENTS = new ConcurrentHashMap<>();

    private TopicSerdes() {
    }

    /**
     * @param config the apps' config
     * @return the Serdes of the configured format
     * @throws IllegalArgumentException if {@code serde.format=registry} is set without {@code schema.registry.url}
     */
    public static RecordSerdes of(final EngramConfig config) {
        final SerdeFormat format = SerdeFormat.parse(config.getString(PipelineConfig.SERDE_FORMAT));
        if (format == SerdeFormat.SINGLE_OBJECT) {
            return RecordSerdes.singleObject();
        }
        final String url = config.getString(PipelineConfig.SCHEMA_REGISTRY_URL);
        final String userInfo = config.getPassword(PipelineConfig.SCHEMA_REGISTRY_USER_INFO).value();
        return REGISTRY_CLIENTS.computeIfAbsent(url + '\0' + userInfo, key -> RecordSerdes.of(format, url, userInfo));
    }
}
