package io.statusaggregator.aggregation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The partitions the Kafka shell ({@link Aggregator}) holds, by number, and what it commits of them to the group: for
 * each, how far it has been handled. That is its read position, but not past a record not read yet (see
 * {@link UnreadRecords}) nor one whose dead letter is still on its way, and never back (a rebuild reads again what was
 * committed before). Used on the aggregation thread only.
 */
final class ConsumedPartitions {
    private static final Logger LOG = Logger.getLogger(ConsumedPartitions.class);
    /** How often read positions are committed at most. */
    private static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);

    private final String topic;
    private final DeadLetters deadLetters;
    private final ClusterBook book;
    private final Map<Integer, ConsumedPartition> partitions = new HashMap<>();
    private long committedAt = System.nanoTime();

    ConsumedPartitions(String topic, DeadLetters deadLetters, ClusterBook book) {
        this.topic = topic;
        this.deadLetters = deadLetters;
        this.book = book;
    }

    /** Takes the partitions {@code assigned} to {@code consumer}, each rebuilt until its end in {@code ends}. */
    void assigned(Consumer<?, ?> consumer, Collection<TopicPartition> assigned, Map<TopicPartition, Long> ends) {
        partitions.putAll(ConsumedPartition.assigned(consumer, assigned, ends));
    }

    void forget(Collection<Integer> numbers) {
        numbers.forEach(partitions::remove);
    }

    /** The partition {@code number}, or null when it is not held here. */
    ConsumedPartition get(int number) {
        return partitions.get(number);
    }

    /** Sends {@code letter}'s record to the dead-letter topic, unless it was handled before this assignment. */
    void deadLetter(Action.DeadLetter letter) {
        SourceRecord record = letter.record();
        ConsumedPartition partition = partitions.get(record.partition());
        if (partition != null && record.offset() >= partition.handledBefore) {
            deadLetters.send(record, letter.reason(), letter.error(), letter.oversized());
        } else {
            LOG.debugf("%s (%s: %s) was handled before this instance was assigned the partition", record.where(),
                    letter.reason().code(), letter.error());
        }
    }

    /** Commits every partition, without waiting, if the last commit is {@link #COMMIT_INTERVAL} old. */
    void commitIfDue(Consumer<?, ?> consumer) {
        if (System.nanoTime() - committedAt >= COMMIT_INTERVAL.toNanos()) {
            commit(consumer, partitions.keySet(), false);
        }
    }

    /** Commits every partition held, and waits for the broker's answer: before the consumer leaves the group. */
    void commitAll(Consumer<?, ?> consumer) {
        commit(consumer, List.copyOf(partitions.keySet()), true);
    }

    /**
     * Commits, for each of {@code which} held here, how far it has been handled; {@code sync}: waits for the answer.
     */
    void commit(Consumer<?, ?> consumer, Collection<Integer> which, boolean sync) {
        committedAt = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Integer number : which) {
            ConsumedPartition partition = partitions.get(number);
            if (partition == null) {
                continue;
            }
            TopicPartition tp = new TopicPartition(topic, number);
            long handled = consumer.position(tp);
            for (OptionalLong before : List.of(deadLetters.oldestInFlight(tp), book.unreadFrom(number))) {
                if (before.isPresent()) {
                    handled = Math.min(handled, before.getAsLong());
                }
            }
            if (handled > partition.committed) {
                offsets.put(tp, new OffsetAndMetadata(handled));
                partition.committed = handled;
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (sync) {
            consumer.commitSync(offsets);
        } else {
            consumer.commitAsync(offsets, (committed, error) -> {
                if (error != null) {
                    LOG.debugf("could not commit %s: %s", committed, error.toString());
                }
            });
        }
    }
}
