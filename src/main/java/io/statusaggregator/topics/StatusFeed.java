package io.statusaggregator.topics;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.StatusDocument;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * The status topic: the current status of every cluster, compacted, keyed {@code namespace/name}; a tombstone when
 * the Cluster is deleted. The value is the document {@code compute} prints, as JSON.
 */
public final class StatusFeed {
    private static final Logger LOG = Logger.getLogger(StatusFeed.class);

    private final Producer<String, String> producer;
    private final String topic;

    public StatusFeed(Producer<String, String> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    /** @param done told, on the producer's thread, once the broker has the record (null) or could not take it */
    public void publish(EksaCluster cluster, PublishedStatus status, Consumer<Exception> done) {
        send(cluster.key(), StatusDocument.text(cluster, status.json()), done);
    }

    public void tombstone(ObjectKey cluster, Consumer<Exception> done) {
        send(cluster, null, done);
    }

    private void send(ObjectKey cluster, String value, Consumer<Exception> done) {
        try {
            producer.send(new ProducerRecord<>(topic, cluster.toString(), value), (metadata, error) -> {
                if (error != null) {
                    LOG.warnf("could not publish the status of %s: %s", cluster, error.toString());
                }
                done.accept(error);
            });
        } catch (RuntimeException e) {
            LOG.warnf("could not publish the status of %s: %s", cluster, e.toString());
            done.accept(e); // refused at once (no metadata in time, closed, interrupted): the same as failing later
        }
    }

    /**
     * The last status of every cluster on {@code topic} (namespace/name), read to the topic's end; empty if that took
     * longer than {@code timeout}. A value that is not a status document is skipped, with a warning.
     */
    public static Optional<Map<String, ClusterStatus>> latest(
            Map<String, Object> kafka, String topic, Duration timeout) {
        Optional<Map<String, String>> latest = CompactedTopic.latest(kafka, topic, timeout);
        if (latest.isEmpty()) {
            return Optional.empty();
        }
        Map<String, ClusterStatus> published = new HashMap<>();
        ObjectMapper json = new ObjectMapper();
        latest.get().forEach((cluster, document) -> {
            if (document == null) {
                return;
            }
            try {
                Optional<ClusterStatus> streamed =
                        EksaClusterReader.statusOf(document.getBytes(StandardCharsets.UTF_8));
                published.put(
                        cluster,
                        streamed.isPresent() ? streamed.get() : ObjectDecoder.statusOf(json.readTree(document)));
            } catch (Exception e) {
                LOG.warnf("skipped the status of %s on topic %s: %s", cluster, topic, e.getMessage());
            }
        });
        return Optional.of(published);
    }

    /** Waits until the broker has answered every record sent so far; their {@code done} callbacks have run. */
    public void flush() {
        producer.flush();
    }
}
