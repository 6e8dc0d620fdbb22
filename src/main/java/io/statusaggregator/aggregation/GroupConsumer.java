package io.statusaggregator.aggregation;

import io.statusaggregator.topics.RebuildingConsumer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidSessionTimeoutException;
import org.jboss.logging.Logger;

/**
 * Aggregation's consumer in its group: it rebuilds on assignment, then goes live ({@link RebuildingConsumer}), and is
 * made again with a longer session when the broker refuses the one asked for ({@link GroupSession}). Used on the
 * aggregation thread only.
 */
final class GroupConsumer {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);

    private final Function<Map<String, Object>, Consumer<byte[], ByteBuffer>> consumers;
    private final String topic;
    private final RebuildingConsumer.Partitions partitions;
    /** Replaced, on the aggregation thread, only when the broker refuses its group session. */
    private RebuildingConsumer<byte[], ByteBuffer> consumer;
    private Map<String, Object> settings;

    /**
     * @param consumers makes the consumer from its settings: once, and again with a longer session when the broker
     *                  refuses the one asked for
     */
    GroupConsumer(Map<String, Object> settings, Function<Map<String, Object>, Consumer<byte[], ByteBuffer>> consumers,
            String topic, RebuildingConsumer.Partitions partitions) {
        this.settings = Map.copyOf(settings);
        this.consumers = consumers;
        this.topic = topic;
        this.partitions = partitions;
        this.consumer = new RebuildingConsumer<>(consumers.apply(this.settings), topic, partitions);
    }

    /** The consumer as it is now: the rebalance listener and the loop use it between polls. */
    Consumer<byte[], ByteBuffer> consumer() {
        return consumer.consumer();
    }

    /** The partitions read to their end since the last call ({@link RebuildingConsumer#readToEnd}). */
    List<TopicPartition> readToEnd() {
        return consumer.readToEnd();
    }

    /** Whether partitions were assigned in the last poll that are not taken yet: the book does not know them. */
    boolean assigning() {
        return consumer.assigning();
    }

    /** Subscribes if it has not yet, and polls; nothing when the broker refused the session (joined again). */
    ConsumerRecords<byte[], ByteBuffer> poll(Duration timeout) {
        try {
            return consumer.poll(timeout);
        } catch (InvalidSessionTimeoutException refused) {
            joinWithLongerSession(refused);
            return ConsumerRecords.empty();
        }
    }

    /** The broker's group.min.session.timeout.ms is above the session asked for: a new consumer with a longer one. */
    private void joinWithLongerSession(InvalidSessionTimeoutException refused) {
        GroupSession refusedSession = GroupSession.of(settings);
        GroupSession longer = refusedSession.longer().orElseThrow(() -> refused);
        LOG.warnf(
                "the broker refuses a consumer group session of %d ms (its group.min.session.timeout.ms is higher):"
                    + " joining with %d ms; a replica that dies keeps its partitions that long. Let the broker take %d"
                    + " ms to fail over sooner",
                refusedSession.timeout().toMillis(),
                longer.timeout().toMillis(),
                refusedSession.timeout().toMillis());
        try {
            consumer.consumer().close(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.debug("closing the refused consumer", e);
        }
        settings = longer.applyTo(settings);
        consumer = new RebuildingConsumer<>(consumers.apply(settings), topic, partitions);
    }
}
