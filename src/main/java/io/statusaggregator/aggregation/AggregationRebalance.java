package io.statusaggregator.aggregation;

import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.topics.RebuildingConsumer;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * Rebuild on assignment; forget what is revoked or lost. Told by the {@link RebuildingConsumer} on the aggregation
 * thread: it tells the book ({@link BookEvent.Assigned}, {@link BookEvent.Revoked}) through the
 * {@link ActionExecutor}, commits what is revoked, and lets the feeds settle so that the partitions' next owner reads
 * what was sent.
 */
final class AggregationRebalance implements RebuildingConsumer.Partitions {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);

    private final String topic;
    private final Supplier<Consumer<byte[], ByteBuffer>> consumer;
    private final ActionExecutor executor;
    private final ConsumedPartitions partitions;
    private final FeedPublication feeds;
    private final StatusWriter writer;
    /** Told of each assignment: the aggregator is rebuilding again. */
    private final Runnable onAssigned;
    /** The object-state topic's partitions at the last assignment: what clusters are routed over. */
    private int partitionCount = 1;

    AggregationRebalance(String topic, Supplier<Consumer<byte[], ByteBuffer>> consumer, ActionExecutor executor,
            ConsumedPartitions partitions, FeedPublication feeds, StatusWriter writer, Runnable onAssigned) {
        this.topic = topic;
        this.consumer = consumer;
        this.executor = executor;
        this.partitions = partitions;
        this.feeds = feeds;
        this.writer = writer;
        this.onAssigned = onAssigned;
    }

    @Override
    public void assigned(Map<TopicPartition, Long> ends) {
        Consumer<byte[], ByteBuffer> consumer = this.consumer.get();
        Set<TopicPartition> assigned = ends.keySet();
        // What the status topic holds for these partitions' clusters, read meanwhile; another instance may have owned
        // them. Every status this instance sent is there first.
        feeds.settle();
        Set<Integer> numbers = new HashSet<>();
        assigned.forEach(tp -> numbers.add(tp.partition()));
        partitionCount = consumer.partitionsFor(topic).size();
        executor.handle(new BookEvent.Assigned(numbers, partitionCount));
        partitions.assigned(consumer, assigned, ends);
        onAssigned.run();
        LOG.debugf("assigned %s; rebuilding to %s", assigned, ends);
    }

    @Override
    public void revoked(Collection<TopicPartition> revoked) {
        if (!revoked.isEmpty()) {
            feeds.settle(); // the next owner reads the status topic: what was sent about these clusters is there
        }
        try {
            partitions.commit(consumer.get(), revoked.stream().map(TopicPartition::partition).toList(), true);
        } catch (RuntimeException e) {
            LOG.debugf("committing revoked partitions %s: %s", revoked, e.toString());
        }
        forget(revoked);
    }

    @Override
    public void lost(Collection<TopicPartition> lost) {
        forget(lost);
    }

    private void forget(Collection<TopicPartition> gone) {
        List<Integer> numbers = gone.stream().map(TopicPartition::partition).toList();
        partitions.forget(numbers);
        executor.handle(new BookEvent.Revoked(numbers));
        // Their next owner writes them: a write retried here would land over its newer status when the server answers.
        int routedOver = partitionCount;
        writer.abandon(cluster -> numbers.contains(ObjectStateKey.partitionOf(cluster.name(), routedOver)));
    }
}
