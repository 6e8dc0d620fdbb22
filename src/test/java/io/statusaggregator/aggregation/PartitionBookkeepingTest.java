package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.rules.StatusRules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The book's bookkeeping of its partitions on its own: assignments, when a partition goes live, records of partitions
 * not held, and what a revocation and a Cluster deleted while no instance owned its partition come to.
 */
class PartitionBookkeepingTest extends BookTestBase {
    private ComputeSchedule schedule;
    private PartitionBookkeeping partitions;

    @BeforeEach
    void bookkeeping() {
        schedule = new ComputeSchedule(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO);
        PublishedStatuses published = new PublishedStatuses();
        StatusLedger ledger = new StatusLedger(StatusRules::compute, schedule, new PendingWrites<>(ECHO), published);
        partitions = new PartitionBookkeeping("eksa-system", schedule, ledger, published);
    }

    @Test
    void eachAssignmentAsksForTheStatusTopicUnderItsOwnNumber() {
        assertEquals(List.of(new Action.ReadStatuses(1)), partitions.assigned(List.of(0), 2));
        assertEquals(List.of(new Action.ReadStatuses(2)), partitions.assigned(List.of(1), 2));
    }

    @Test
    void aPartitionGoesLiveOnceReadToItsEndAndItsStatusesReadInEitherOrder() {
        partitions.assigned(List.of(0, 1), 2);
        partitions.rebuilt(0);
        assertFalse(partitions.live(0), "its statuses not read yet");
        partitions.statusesRead(1, Map.of());
        assertTrue(partitions.live(0));
        assertFalse(partitions.live(1), "not read to its end yet");
        assertFalse(partitions.allLive());
        partitions.rebuilt(1);
        assertTrue(partitions.allLive());
    }

    @Test
    void aRecordOfAPartitionNotHeldIsDropped() {
        ObjectNode machine = object("Machine");
        assertEquals(List.of(), partitions.apply(record(0, keyOf(machine), machine.toString()), now));
        assertEquals(0, partitions.tracked());
    }

    @Test
    void theClustersOfARevokedPartitionLeave() {
        partitions.assigned(List.of(0), 1);
        for (ObjectNode object : objects) {
            partitions.apply(record(offset++, keyOf(object), object.toString()), now);
        }
        assertEquals(1, partitions.tracked());

        List<Action> actions = partitions.revoked(List.of(0));

        assertEquals(List.of(new Action.Left(CLUSTER)), actions);
        assertEquals(0, partitions.tracked());
        assertTrue(partitions.unreadFrom(0).isEmpty(), "its records not read yet are forgotten");
    }

    @Test
    void aLivePartitionsClustersAreDueAtOnce() {
        partitions.assigned(List.of(0), 1);
        for (ObjectNode object : objects) {
            partitions.apply(record(offset++, keyOf(object), object.toString()), now);
        }
        partitions.statusesRead(1, Map.of());
        assertTrue(schedule.isEmpty(), "nothing computed while rebuilding");
        partitions.rebuilt(0);
        assertEquals(1, schedule.due(now, 0).size());
    }

    @Test
    void aPublishedClusterWithNoClusterLeftIsAnnouncedDeletedWhenItsPartitionGoesLive() {
        ClusterStatus last = settledOnReady(); // a status to find on the status topic
        partitions.assigned(List.of(0), 1);
        partitions.rebuilt(0); // the Cluster deleted while no instance owned the partition: none of its records

        List<Action> actions = partitions.statusesRead(1, Map.of(CLUSTER.toString(), last));

        Action.AnnounceDeletion deletion = assertInstanceOf(Action.AnnounceDeletion.class, actions.get(0));
        assertEquals(CLUSTER, deletion.cluster());
        assertEquals(last, deletion.last());
    }
}
