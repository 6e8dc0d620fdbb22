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
 * What the Kafka shell ({@link Aggregator}) knows of a partition it was assigned: where its rebuild ends, how far the
 * group had handled it, what this instance committed. The book keeps its own side ({@link AssignedPartition}).
 */
final class ConsumedPartition {
    /** The partition's end offset when assigned: read to it, the partition is rebuilt. */
    final long rebuildUntil;
    /** The group's committed offset when assigned: records before it were handled by an earlier owner. */
    final long handledBefore;
    /** The offset this instance committed last (or found committed). */
    long committed;
    /** Read to {@link #rebuildUntil} and told to the book, once: it waits for the status topic no longer each poll. */
    boolean readToEnd;

    ConsumedPartition(long rebuildUntil, long handledBefore) {
        this.rebuildUntil = rebuildUntil;
        this.handledBefore = handledBefore;
        this.committed = handledBefore;
    }

    /**
     * The partitions {@code assigned} to {@code consumer}, by number: each rebuilt until its end in {@code ends},
     * handled before the group's committed offset.
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
            partitions.put(
                    tp.partition(),
                    new ConsumedPartition(ends.getOrDefault(tp, 0L), handled == null ? 0 : handled.offset()));
        }
        return partitions;
    }
}
