package io.statusaggregator.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer in a group that rebuilds on assignment, then goes live: each partition assigned is read again from its
 * beginning up to the end offset it had then (a topic that holds every object's latest state, or every event, rebuilds
 * its reader's state so), and its owner is told when it gets there. Used by aggregation and the alert bridge, on one
 * thread: the one that polls.
 *
 * <p>A partition assigned (inside a poll) is sought to its beginning and paused until its end offset is known and its
 * owner has taken it ({@link Partitions#assigned}), both before the next poll: a lookup that fails leaves it paused, to
 * be tried again at the poll after, so that none of its records is read before its owner knows where it ends.
 */
public final class RebuildingConsumer<K, V> {
    private final Consumer<K, V> consumer;
    private final String topic;
    private final Partitions partitions;
    /** Partitions assigned whose end offsets are not looked up (or not taken by the owner) yet: paused meanwhile. */
    private final Set<TopicPartition> toLookUp = new HashSet<>();
    /** Partitions being read again, with the end offset to reach. */
    private final Map<TopicPartition, Long> rebuildUntil = new HashMap<>();
    private boolean subscribed;

    /** What the owner of the partitions is told, on the polling thread. */
    public interface Partitions {
        /**
         * Partitions assigned, each read again from its beginning to its end offset in {@code ends}; the owner's own
         * lookups (its committed offsets, say) may fail: then they are told again before the next poll.
         */
        void assigned(Map<TopicPartition, Long> ends);

        /** Partitions revoked in a rebalance (inside a poll): another member takes them. */
        void revoked(Collection<TopicPartition> revoked);

        /** Partitions lost (inside a poll): this member's session ended. Like revoked, unless said otherwise. */
        default void lost(Collection<TopicPartition> lost) {
            revoked(lost);
        }
    }

    public RebuildingConsumer(Consumer<K, V> consumer, String topic, Partitions partitions) {
        this.consumer = consumer;
        this.topic = topic;
        this.partitions = partitions;
    }

    public Consumer<K, V> consumer() {
        return consumer;
    }

    /** Subscribes at the first call; takes what was assigned since the last poll to its owner; polls. */
    public ConsumerRecords<K, V> poll(Duration timeout) {
        if (!subscribed) {
            consumer.subscribe(List.of(topic), new Rebalance());
            subscribed = true;
        }
        if (!toLookUp.isEmpty()) {
            lookUp();
        }
        return consumer.poll(timeout);
    }

    private void lookUp() {
        Set<TopicPartition> assigned = new HashSet<>(toLookUp);
        Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(assigned));
        assigned.forEach(tp -> ends.putIfAbsent(tp, 0L));
        partitions.assigned(ends);
        rebuildUntil.putAll(ends);
        toLookUp.clear();
        consumer.resume(assigned);
    }

    /**
     * The partitions whose reading has passed the end they had when assigned since the last call: each is told once,
     * and is live from then on. To be asked once the records polled are applied.
     */
    public List<TopicPartition> readToEnd() {
        List<TopicPartition> reached = List.of();
        for (var rebuilding = rebuildUntil.entrySet().iterator(); rebuilding.hasNext(); ) {
            Map.Entry<TopicPartition, Long> partition = rebuilding.next();
            if (consumer.position(partition.getKey()) >= partition.getValue()) {
                rebuilding.remove();
                if (reached.isEmpty()) {
                    reached = new ArrayList<>();
                }
                reached.add(partition.getKey());
            }
        }
        return reached;
    }

    /** Whether a partition assigned has not been read to its end yet (or its end is not known yet). */
    public boolean rebuilding() {
        return !toLookUp.isEmpty() || !rebuildUntil.isEmpty();
    }

    /** Whether partitions were assigned in the last poll whose owner has not taken them yet. */
    public boolean assigning() {
        return !toLookUp.isEmpty();
    }

    /** Called by the consumer inside a poll. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            if (assigned.isEmpty()) {
                return;
            }
            consumer.seekToBeginning(assigned);
            consumer.pause(assigned);
            toLookUp.addAll(assigned);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            forget(revoked);
            partitions.revoked(revoked);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            forget(lost);
            partitions.lost(lost);
        }

        private void forget(Collection<TopicPartition> gone) {
            toLookUp.removeAll(gone);
            gone.forEach(rebuildUntil::remove);
        }
    }
}
