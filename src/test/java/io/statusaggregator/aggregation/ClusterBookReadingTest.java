package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * How long the book gathers a cluster's records (the window growing with the consumer's backlog), and which records
 * it reads when: a member's record when its cluster is computed, and only its object's latest.
 */
class ClusterBookReadingTest extends BookTestBase {
    @Test
    void behindABacklogRecordsAreGatheredLongerAndComputedAtOnceWhenCaughtUp() {
        ClusterStatus ready = settledOnReady();
        long computations = book.computations();
        ObjectNode kcp = object("KubeadmControlPlane");
        int readyReplicas = kcp.path("status").path("readyReplicas").intValue();
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        assertEquals(List.of(), due(WINDOW.toMillis(), 10 * POLL), "ten polls behind: the window is 1 s");
        assertEquals(List.of(), due(300, 5 * POLL), "five polls behind, 400 ms: the window is 500 ms");
        assertEquals(computations, book.computations());
        WriteStatus write = assertInstanceOf(WriteStatus.class, due(100, 5 * POLL).get(0), "500 ms: due");
        assertEquals(computations + 1, book.computations());
        assertNotEquals(ready, write.status());

        written(CLUSTER, write.status(), write.status(), now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), write.status()));
        assertEquals(List.of(), due(WINDOW.toMillis(), 100 * POLL), "far behind, 100 ms: not due");
        assertEquals(List.of(), due(899, 100 * POLL), "999 ms: not due");
        assertEquals(List.of(), due(1, 100 * POLL), "1 s, the longest window: due (the echo: nothing to do)");
        assertEquals(computations + 2, book.computations());

        kcp.with("status").put("readyReplicas", readyReplicas);
        put(kcp);
        assertEquals(List.of(), due(WINDOW.toMillis() / 2, 100 * POLL));
        assertEquals(List.of(), due(WINDOW.toMillis() / 2 - 1, POLL), "caught up, 99 ms: the window is 100 ms again");
        assertEquals(new WriteStatus(CLUSTER, ready, ""), due(1, POLL).get(0), "100 ms: due, and Ready again");
    }

    @Test
    void theObserverIsToldWhetherTheWorkloadApiIsReachedWhereAV1beta2CapiClusterSaysSo() {
        settledOnReady();
        assertEquals(Optional.empty(), lastShown().remoteConnection(), "a v1beta1 CAPI Cluster says nothing of it");
        ObjectNode capi = object("Cluster", "cluster.x-k8s.io/v1beta1").deepCopy();
        capi.put("apiVersion", "cluster.x-k8s.io/v1beta2");
        capi.with("spec").putObject("controlPlaneRef").put("apiGroup", "controlplane.cluster.x-k8s.io")
                .put("kind", "KubeadmControlPlane").put("name", CLUSTER.name());
        ObjectNode status = capi.putObject("status");
        status.putObject("initialization").put("controlPlaneInitialized", true);
        ObjectNode probe = status.putArray("conditions").addObject().put("type", "RemoteConnectionProbe")
                .put("status", "False").put("reason", "ProbeFailed").put("message", "Remote connection probe failed");
        put(capi);
        due(WINDOW.toMillis());
        assertEquals(Optional.of(false), lastShown().remoteConnection(), "the CAPI Cluster's record alone tells it");
        probe.put("status", "True").put("reason", "ProbeSucceeded").remove("message");
        put(capi);
        due(WINDOW.toMillis());
        assertEquals(Optional.of(true), lastShown().remoteConnection());
    }

    private ClusterObserver.Shown lastShown() {
        return assertInstanceOf(ClusterObserver.Shown.class, told.get(told.size() - 1));
    }

    @Test
    void aPartitionBeingRebuiltDoesNotHoldBackTheLiveOnesClusters() {
        ClusterStatus ready = settledOnReady();
        statusesRead(assigned(List.of(1), 1), Map.of()); // taken over: read from its beginning, far from its end
        Map<Integer, Long> waiting = Map.of(0, 0L, 1, 100L * POLL);
        assertEquals(0, book.backlog(waiting), "only the live partitions' records count");
        assertEquals(List.of(), due(WINDOW.toMillis(), book.backlog(waiting)), "quiet for a window");
        ObjectNode kcp = object("KubeadmControlPlane");
        kcp.with("status").put("readyReplicas", 0);
        put(kcp);
        WriteStatus write = assertInstanceOf(WriteStatus.class, due(0, book.backlog(waiting)).get(0),
                "a live cluster's change is computed at once, whatever the rebuild has left to read");
        assertNotEquals(ready, write.status());

        rebuilt(1);
        assertEquals(100L * POLL, book.backlog(waiting), "live now: its records count");
        assertEquals(0, book.backlog(Map.of(2, 5L)), "nor do a partition's not assigned");
    }

    @Test
    void aRebuiltPartitionIsComputedAtOnceHoweverFarBehindTheConsumerIs() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        rebuilt(0);
        assertInstanceOf(WriteStatus.class, due(0, 100 * POLL).get(0));
    }

    @Test
    void aMachinesRecordIsReadWhenItsClusterIsComputedAndOnlyIfItIsItsObjectsLatest() {
        settledOnReady();
        long computations = book.computations();
        ObjectNode machine = object("Machine");
        String good = machine.toString();
        apply(keyOf(machine), "{not json");
        ObjectNode broken = machine.deepCopy();
        broken.with("status").put("phase", 7);
        apply(keyOf(machine), broken.toString());
        assertEquals(List.of(), apply(keyOf(machine), good), "nothing read yet");
        assertEquals(List.of(), due(WINDOW.toMillis()), "only the latest was read, as compaction would leave it: no dead "
                + "letter for the two it replaced, and the cluster is Ready as before");
        assertEquals(computations + 1, book.computations());
        assertTrue(book.settled(), book.progress());
    }

    @Test
    void aRebuildReadsOnlyEachObjectsLatestRecordAndAtMostSoManyWaitUnread() {
        statusesRead(assigned(List.of(0), 1), Map.of());
        ObjectNode machine = object("Machine");
        apply(keyOf(machine), "{not json"); // replaced below before it is read: no dead letter
        objects.forEach(this::put);
        long oldest = book.unreadFrom(0).getAsLong();
        assertTrue(oldest > 0, "the record replaced is not waited for");
        int machines = ClusterBook.UNREAD_WHILE_REBUILDING;
        List<Action> read = List.of();
        for (int i = 0; i < machines; i++) {
            ObjectNode other = machine.deepCopy();
            other.with("metadata").put("name", "m-" + i);
            read = apply(new ObjectStateKey("cluster-" + i / 10, ObjectKind.MACHINE, new ObjectKey("eksa-system", "m-" + i)).encode(),
                    other.toString());
        }
        assertEquals(List.of(), read, "the oldest read: nothing to say about them");
        assertTrue(book.unreadFrom(0).getAsLong() > oldest, "the oldest clusters' records were read");
        assertEquals(1 + machines / 10, book.tracked());
        assertEquals(List.of(), rebuilt(0));
        List<Action> actions = due(0);
        assertEquals(1, actions.size(), "the cluster's status, and no dead letter: " + actions);
        assertInstanceOf(WriteStatus.class, actions.get(0));
        assertTrue(book.unreadFrom(0).isEmpty());
    }

    @Test
    void theCommittedOffsetStopsAtTheOldestRecordNotReadYet() {
        settledOnReady();
        assertTrue(book.unreadFrom(0).isEmpty());
        long first = offset;
        put(object("Machine"));
        put(object("MachineDeployment"));
        put(object("Machine")); // replaces the first: that one will never be read
        assertEquals(first + 1, book.unreadFrom(0).getAsLong());
        tombstone("MachineDeployment");
        assertEquals(first + 2, book.unreadFrom(0).getAsLong(), "a deletion: its object's record will not be read");
        due(WINDOW.toMillis());
        assertTrue(book.unreadFrom(0).isEmpty(), "read when computed");
    }

    @Test
    void aRecordReplacedBetweenOthersLeavesTheOldestWhereItWas() {
        settledOnReady();
        long first = offset;
        put(object("Machine"));
        put(object("MachineDeployment"));
        put(object("KubeadmControlPlane"));
        put(object("MachineDeployment")); // replaces the second, between the two others
        assertEquals(first, book.unreadFrom(0).getAsLong());
        put(object("Machine"));
        assertEquals(first + 2, book.unreadFrom(0).getAsLong(), "the control plane's record is now the oldest");
        tombstone("KubeadmControlPlane");
        assertEquals(first + 3, book.unreadFrom(0).getAsLong());
        revoked(List.of(0));
        assertTrue(book.unreadFrom(0).isEmpty(), "a revoked partition's records are forgotten");
    }

    @Test
    void aDeadLetterCarriesTheRecordItIsAbout() {
        settledOnReady();
        apply(keyOf(object("Machine")), "{not json");
        long at = offset - 1;
        DeadLetter letter = assertInstanceOf(DeadLetter.class, due(WINDOW.toMillis()).get(0));
        assertEquals(at, letter.record().offset(), "the record at its offset");
        assertEquals("{not json", java.nio.charset.StandardCharsets.UTF_8.decode(letter.record().value()).toString(),
                "its bytes, read later from what the consumer kept");
    }

    @Test
    void aClusterWhoseOnlyRecordsAreUnreadableIsForgottenWhenComputed() {
        settledOnReady();
        String key = new ObjectStateKey("other-cluster", ObjectKind.MACHINE, new ObjectKey("eksa-system", "m-1")).encode();
        apply(key, "{not json");
        assertEquals(2, book.tracked(), "its record is not read yet");
        assertEquals(DeadLetterReason.NOT_JSON, letter(due(WINDOW.toMillis())));
        assertEquals(1, book.tracked());
        assertTrue(book.settled(), book.progress());
    }
}
