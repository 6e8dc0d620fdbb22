package io.statusaggregator.aggregation;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * What the Kafka shell ({@link Aggregator}) knows of a partition it was assigned: how far the group had handled it,
 * what this instance committed. Where its rebuild ends the consumer keeps ({@code RebuildingConsumer}); the book keeps
 * its own side ({@link AssignedPartition}).
 */
final class ConsumedPartition {
    /** The group's committed offset when assigned: records before it were handled by an earlier owner. */
    final long handledBefore;
    /** The offset this instance committed last (or found committed). */
    long committed;

    ConsumedPartition(long handledBefore) {
        this.handledBefore = handledBefore;
        this.committed = handledBefore;
    }

    /**
     * The partitions {@code assigned} to {@code consumer}, by number: each handled before the group's committed offset
     * (or, when that cannot be read, before its end in {@code ends}).
     */
    static Map<Integer, ConsumedPartition> assigned(
            Consumer<?, ?> consumer, Collection<TopicPartition> assigned, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = consumer.committed(new HashSet<>(assigned));
        } catch (RuntimeException e) {
            // Unknown how far the group got: take everything there as handled rather than dead-letter it twice.
            Logger.getLogger(Aggregator.class)
                    .warnf(
                            "could not read the committed offsets of %s (%s): the records there now are "
                                    + "not dead-lettered again",
                            assigned, e.toString());
            committed = new HashMap<>();
            for (TopicPartition tp : assigned) {
                committed.put(tp, new OffsetAndMetadata(ends.getOrDefault(tp, 0L)));
            }
        }
        Map<Integer, ConsumedPartition> partitions = new HashMap<>();
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata handled = committed.get(tp);
            partitions.put(tp.partition(), new ConsumedPartition(handled == null ? 0 : handled.offset()));
        }
        return partitions;
    }
}
