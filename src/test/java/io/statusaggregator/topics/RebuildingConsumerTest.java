package io.statusaggregator.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rebuild-then-live loop of aggregation and the alert bridge, on Kafka's MockConsumer: a partition assigned is
 * read from its beginning, none of its records before its owner knows where it ends, and its owner is told once when
 * it is read to that end.
 */
class RebuildingConsumerTest {
    private static final String TOPIC = "transitions";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private final MockConsumer<String, String> kafka = new MockConsumer<>("earliest");
    private final List<Map<TopicPartition, Long>> assigned = new ArrayList<>();
    private final List<Collection<TopicPartition>> revoked = new ArrayList<>();
    /** While set, the owner's own lookup at assignment fails (its committed offsets, say). */
    private boolean ownerFails;
    private RebuildingConsumer<String, String> consumer;

    @BeforeEach
    void consumer() {
        consumer = new RebuildingConsumer<>(kafka, TOPIC, new RebuildingConsumer.Partitions() {
            @Override
            public void assigned(Map<TopicPartition, Long> ends) {
                if (ownerFails) {
                    throw new IllegalStateException("the committed offsets could not be read");
                }
                assigned.add(Map.copyOf(ends));
            }

            @Override
            public void revoked(Collection<TopicPartition> partitions) {
                revoked.add(List.copyOf(partitions));
            }
        });
        kafka.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.poll(Duration.ZERO); // subscribes
        assertEquals(Set.of(TOPIC), kafka.subscription());
    }

    @Test
    void aPartitionAssignedIsReadFromItsBeginningToItsEndThenIsLive() {
        kafka.updateEndOffsets(Map.of(P0, 2L));
        kafka.rebalance(List.of(P0));
        kafka.addRecord(record(P0, 0));
        kafka.addRecord(record(P0, 1));
        assertTrue(consumer.rebuilding());
        assertEquals(Set.of(P0), kafka.paused(), "not read before its end is known");
        assertEquals(List.of(), assigned, "told before the next poll, not inside this one");

        ConsumerRecords<String, String> records = consumer.poll(Duration.ZERO);

        assertEquals(List.of(Map.of(P0, 2L)), assigned);
        assertEquals(Set.of(), kafka.paused());
        assertEquals(2, records.count(), "from its beginning");
        assertEquals(List.of(P0), consumer.readToEnd());
        assertFalse(consumer.rebuilding());
        assertEquals(List.of(), consumer.readToEnd(), "told once");
    }

    @Test
    void aPartitionIsNotLiveBeforeItIsReadToTheEndItHadWhenAssigned() {
        kafka.updateEndOffsets(Map.of(P0, 3L));
        kafka.rebalance(List.of(P0));
        kafka.addRecord(record(P0, 0));

        consumer.poll(Duration.ZERO);

        assertEquals(List.of(), consumer.readToEnd(), "one record of three read");
        assertTrue(consumer.rebuilding());
    }

    @Test
    void anEmptyPartitionIsLiveOnceTaken() {
        kafka.updateEndOffsets(Map.of(P0, 0L));
        kafka.rebalance(List.of(P0));
        consumer.poll(Duration.ZERO);
        assertEquals(List.of(P0), consumer.readToEnd());
    }

    @Test
    void whenTheOwnerCannotTakeAnAssignmentItStaysPausedAndIsToldAgainBeforeTheNextPoll() {
        kafka.updateEndOffsets(Map.of(P0, 1L));
        kafka.rebalance(List.of(P0));
        kafka.addRecord(record(P0, 0));
        ownerFails = true;

        assertThrows(IllegalStateException.class, () -> consumer.poll(Duration.ZERO));
        assertEquals(Set.of(P0), kafka.paused(), "none of its records read meanwhile");
        assertTrue(consumer.rebuilding());

        ownerFails = false;
        assertEquals(1, consumer.poll(Duration.ZERO).count());
        assertEquals(List.of(Map.of(P0, 1L)), assigned);
        assertEquals(List.of(P0), consumer.readToEnd());
    }

    @Test
    void aPartitionRevokedWhileRebuildingIsForgottenAndItsOwnerTold() {
        kafka.updateEndOffsets(Map.of(P0, 5L, P1, 0L));
        kafka.rebalance(List.of(P0, P1));
        consumer.poll(Duration.ZERO);
        assertEquals(List.of(P1), consumer.readToEnd());

        kafka.rebalance(List.of(P1));

        assertTrue(revoked.stream().anyMatch(r -> r.contains(P0)), "told: " + revoked);
        assertFalse(consumer.rebuilding(), "nothing left to read again");
        assertEquals(List.of(), consumer.readToEnd());
    }

    private static ConsumerRecord<String, String> record(TopicPartition partition, long offset) {
        return new ConsumerRecord<>(TOPIC, partition.partition(), offset, "cluster-" + offset, "event " + offset);
    }
}
