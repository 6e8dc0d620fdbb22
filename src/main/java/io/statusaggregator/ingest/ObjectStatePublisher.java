package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * Writes object states onto the object-state topic: the reduced object under its {@link ObjectStateKey}, a
 * tombstone when it is deleted. A send that fails after the producer's own retries is handed to {@code onFailure},
 * which re-sends the object's current state later (never a stale copy).
 */
public final class ObjectStatePublisher {
    private static final Logger LOG = Logger.getLogger(ObjectStatePublisher.class);

    /** Told which object could not be sent, so that its current state is sent again. */
    public interface FailedSend {
        void failed(ObjectStateKey key);
    }

    /** Object states and tombstones sent, by every publisher of this process (ingest restarts with each lease). */
    private static final LongAdder SENT = new LongAdder();

    public static long sent() {
        return SENT.sum();
    }

    private final Producer<String, String> producer;
    private final String topic;
    private final FailedSend onFailure;

    public ObjectStatePublisher(Producer<String, String> producer, String topic, FailedSend onFailure) {
        this.producer = producer;
        this.topic = topic;
        this.onFailure = onFailure;
    }

    /** Sends the object's state; an object whose cluster cannot be told is logged and skipped: it cannot be routed. */
    public void publish(ObjectKind kind, JsonNode object) {
        keyOf(kind, object).ifPresent(key -> send(key, ObjectReduction.reduce(kind, object).toString()));
    }

    /** Sends the tombstone of a deleted object, given its last known state. */
    public void delete(ObjectKind kind, JsonNode lastKnown) {
        keyOf(kind, lastKnown).ifPresent(this::tombstone);
    }

    public void tombstone(ObjectStateKey key) {
        send(key, null);
    }

    /**
     * A tombstone for {@code key} on {@code partition}, whatever partition its cluster is routed to: for a record that
     * something but ingest wrote on another partition, where compaction removes it only so.
     */
    void tombstone(ObjectStateKey key, int partition) {
        // Not to onFailure: its re-send would go where the cluster's records go, not to this partition.
        send(new ProducerRecord<>(topic, partition, key.encode(), null), () -> "a tombstone for %s %s to partition %d".formatted(
                key.kind().kind(), key.key(), partition), "the next check sends it again", () -> { });
    }

    private Optional<ObjectStateKey> keyOf(ObjectKind kind, JsonNode object) {
        JsonNode metadata = object.path("metadata");
        ObjectKey key = new ObjectKey(metadata.path("namespace").asText(ObjectDecoder.DEFAULT_NAMESPACE), metadata.path("name").asText());
        try {
            Optional<String> cluster = ObjectDecoder.clusterNameOf(kind, object);
            if (cluster.isEmpty()) {
                LOG.warnf("%s %s names no cluster (spec.clusterName or label %s): skipped", kind.kind(), key,
                        ObjectDecoder.CLUSTER_NAME_LABEL);
            }
            return cluster.map(c -> new ObjectStateKey(c, kind, key));
        } catch (MalformedObjectException e) {
            LOG.warnf("%s %s cannot be routed to its cluster: %s", kind.kind(), key, e.getMessage());
            return Optional.empty();
        }
    }

    private void send(ObjectStateKey key, String value) {
        send(new ProducerRecord<>(topic, key.encode(), value), () -> "the state of %s %s".formatted(key.kind().kind(), key.key()),
                "it will be sent again", () -> onFailure.failed(key));
    }

    /**
     * A send that fails is logged, saying {@code what} and {@code then}, and handed to {@code failed}: after the
     * producer's retries, or before the record is queued (no metadata within max.block.ms, or the sending thread
     * interrupted as its informer stops).
     */
    private void send(ProducerRecord<String, String> record, Supplier<String> what, String then, Runnable failed) {
        SENT.increment();
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    LOG.warnf("could not send %s (%s); %s", what.get(), error.toString(), then);
                    failed.run();
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf("could not send %s (%s); %s", what.get(), e.toString(), then);
            failed.run();
        }
    }
}
