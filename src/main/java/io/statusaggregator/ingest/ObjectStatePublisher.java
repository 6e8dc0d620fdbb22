package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * Writes object states onto the object-state topic: the reduced object under its {@link ObjectStateKey}, a
 * tombstone when it is deleted; for an object whose record would still be too large for the producer, a stand-in
 * that says so ({@link RecordSizeLimit}). A send that fails after the producer's own retries is handed to
 * {@code onFailure}, which re-sends the object's current state later (never a stale copy); {@link StuckSends} says
 * when to warn of it, and whether ingest is stuck.
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
    private final RecordSizeLimit limit;
    private final StuckSends stuck;
    /** The objects sent as a stand-in last, warned about once until they fit again. */
    private final Set<ObjectStateKey> oversized = ConcurrentHashMap.newKeySet();

    /** With Kafka's default limit of a record, and a send stuck after a minute. */
    public ObjectStatePublisher(Producer<String, String> producer, String topic, FailedSend onFailure) {
        this(producer, topic, new RecordSizeLimit(RecordSizeLimit.KAFKA_DEFAULT),
                ObjectIngest.Settings.STUCK_SEND_AFTER, onFailure);
    }

    /**
     * @param kafka      the producer's Kafka client settings: its {@code max.request.size} is the largest record sent
     * @param stuckAfter how long an object's state may be refused before ingest is stuck ({@link #stuck})
     */
    public ObjectStatePublisher(Producer<String, String> producer, String topic, Map<String, Object> kafka,
            Duration stuckAfter, FailedSend onFailure) {
        this(producer, topic, RecordSizeLimit.of(kafka), stuckAfter, onFailure);
    }

    private ObjectStatePublisher(Producer<String, String> producer, String topic, RecordSizeLimit limit,
            Duration stuckAfter, FailedSend onFailure) {
        this.producer = producer;
        this.topic = topic;
        this.onFailure = onFailure;
        this.limit = limit;
        this.stuck = new StuckSends(stuckAfter);
    }

    /**
     * Sends the object's state; an object whose cluster cannot be told is logged and skipped: it cannot be routed. An
     * object too large to send is sent as a stand-in that says so.
     */
    public void publish(ObjectKind kind, JsonNode object) {
        keyOf(kind, object).ifPresent(key -> {
            ObjectNode reduced = ObjectReduction.reduce(kind, object);
            String value = reduced.toString();
            String encoded = key.encode();
            Optional<RecordSizeLimit.Oversized> tooLarge = limit.check(kind, encoded, reduced, value);
            if (tooLarge.isEmpty()) {
                if (!oversized.isEmpty() && oversized.remove(key)) {
                    LOG.infof("%s %s fits in a record again: sent whole", kind.kind(), key.key());
                }
                send(key, value);
                return;
            }
            if (oversized.add(key)) {
                LOG.warnf("%s %s is too large to send: %,d bytes with only the fields the rules read, over the %,d "
                        + "of %s; sent as a stand-in that its cluster's status reports, and dead-lettered", kind.kind(),
                        key.key(), tooLarge.get().object().bytes(), limit.limit(), RecordSizeLimit.SETTING);
            }
            send(key, tooLarge.get().standIn());
        });
    }

    /**
     * Why this publisher is stuck: an object's state the broker or the producer has refused for longer than the bound
     * (see {@link StuckSends}); empty when none is.
     */
    public Optional<String> stuck() {
        return stuck.stuck(System.nanoTime());
    }

    /** This replica stands by: what failed is no longer its to send. */
    void standBy() {
        stuck.clear();
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
        send(
                new ProducerRecord<>(topic, partition, key.encode(), null),
                () -> "a tombstone for %s %s to partition %d"
                        .formatted(key.kind().kind(), key.key(), partition),
                "the next check sends it again",
                () -> {});
    }

    /** Waits until every record sent so far has been answered by the broker. */
    void flush() {
        producer.flush();
    }

    /** The key of an object's records; empty, and a warning, when its cluster cannot be told. */
    private Optional<ObjectStateKey> keyOf(ObjectKind kind, JsonNode object) {
        try {
            Optional<ObjectStateKey> key = quietKeyOf(kind, object);
            if (key.isEmpty()) {
                LOG.warnf("%s %s names no cluster (spec.clusterName or label %s): skipped", kind.kind(),
                        objectKey(object), ObjectDecoder.CLUSTER_NAME_LABEL);
            }
            return key;
        } catch (MalformedObjectException e) {
            LOG.warnf("%s %s cannot be routed to its cluster: %s", kind.kind(), objectKey(object), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The key of an object's records; empty when its cluster cannot be told. Without a warning: for a check of what
     * was sent, whose sends warned already.
     */
    Optional<ObjectStateKey> routedKeyOf(ObjectKind kind, JsonNode object) {
        try {
            return quietKeyOf(kind, object);
        } catch (MalformedObjectException e) {
            return Optional.empty();
        }
    }

    private static Optional<ObjectStateKey> quietKeyOf(ObjectKind kind, JsonNode object)
            throws MalformedObjectException {
        ObjectKey key = objectKey(object);
        return ObjectDecoder.clusterNameOf(kind, object).map(c -> new ObjectStateKey(c, kind, key));
    }

    private static ObjectKey objectKey(JsonNode object) {
        JsonNode metadata = object.path("metadata");
        return new ObjectKey(metadata.path("namespace").asText(ObjectDecoder.DEFAULT_NAMESPACE),
                metadata.path("name").asText());
    }

    /** A state or tombstone of {@code key}: a failure is warned about as {@link StuckSends} says. */
    private void send(ObjectStateKey key, String value) {
        SENT.increment();
        try {
            producer.send(new ProducerRecord<>(topic, key.encode(), value), (metadata, error) -> {
                if (error == null) {
                    stuck.sent(key, System.nanoTime()).ifPresent(LOG::info);
                } else {
                    failed(key, error);
                }
            });
        } catch (RuntimeException e) {
            failed(key, e);
        }
    }

    private void failed(ObjectStateKey key, Throwable error) {
        stuck.failed(key, error, System.nanoTime()).ifPresent(LOG::warn);
        onFailure.failed(key);
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
