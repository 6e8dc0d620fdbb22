package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.AnnounceDeletion;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ObjectKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Two EKS-A Clusters with one name in two namespaces (status-rules.md): the one created first keeps the name's CAPI
 * objects and its status whatever happens to the other; the other shows ClusterNameConflict.
 */
class NameConflictBookTest extends BookTestBase {
    static final ObjectKey OTHER = new ObjectKey("team-b", "test-cluster");
    static final Failure CONFLICT = new Failure("ClusterNameConflict",
            "cluster name test-cluster is already used by default/test-cluster: CAPI objects in eksa-system are matched"
                    + " by name");

    /** The scenario's Cluster, created at {@code created}. */
    ObjectNode holder(String created) {
        ObjectNode cluster = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1");
        ((ObjectNode) cluster.get("metadata")).put("creationTimestamp", created).put("uid", "uid-default");
        return cluster;
    }

    /** The same Cluster in namespace team-b, created at {@code created}, showing no status. */
    ObjectNode other(String created) {
        ObjectNode cluster = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        cluster.remove("status");
        ((ObjectNode) cluster.get("metadata")).put("namespace", OTHER.namespace()).put("creationTimestamp", created)
                .put("uid", "uid-team-b");
        return cluster;
    }

    static List<WriteStatus> writes(List<Action> actions) {
        return actions.stream().filter(WriteStatus.class::isInstance).map(WriteStatus.class::cast).toList();
    }

    static WriteStatus writeOf(List<Action> actions, ObjectKey cluster) {
        return writes(actions).stream().filter(w -> w.cluster().equals(cluster)).findFirst()
                .orElseThrow(() -> new AssertionError("no write for " + cluster + " in " + actions));
    }

    static void assertConflict(ClusterStatus status) {
        assertEquals(Optional.of(CONFLICT), status.failure());
        assertEquals(ConditionStatus.FALSE, status.condition(ConditionType.READY).orElseThrow().status());
        assertEquals(ConditionStatus.FALSE,
                status.condition(ConditionType.CONTROL_PLANE_INITIALIZED).orElseThrow().status(),
                "computed from no CAPI objects");
    }

    static void assertReadyWithoutFailure(ClusterStatus status) {
        assertEquals(Optional.empty(), status.failure());
        assertEquals(ConditionStatus.TRUE, status.condition(ConditionType.READY).orElseThrow().status());
    }

    @Test
    void aSecondClusterOfTheNameShowsTheConflictAndLeavesTheFirstAlone() {
        holder("2023-06-01T00:00:00Z"); // the scenario's own Cluster object, dated
        settledOnReady();
        told.clear();

        put(other("2023-06-02T00:00:00Z"));
        List<Action> actions = due(WINDOW.toMillis());

        assertEquals(List.of(OTHER), writes(actions).stream().map(WriteStatus::cluster).toList(),
                "only the second is written");
        assertConflict(writeOf(actions, OTHER).status());
        assertFalse(told.contains(new Left(CLUSTER)), "the first keeps its series");
    }

    /** A partition rebuilt from {@code readFirst}, then the scenario's objects with its Cluster created first. */
    List<Action> rebuiltReading(ObjectNode readFirst) {
        statusesRead(assigned(List.of(0), 1), Map.of());
        put(readFirst);
        holder("2023-06-01T00:00:00Z");
        objects.forEach(this::put);
        rebuilt(0);
        return due(0);
    }

    @Test
    void theClusterCreatedFirstHoldsTheNameWhicheverIsReadFirst() {
        // The younger first, as a compacted topic may hold them.
        List<Action> actions = rebuiltReading(other("2023-06-02T00:00:00Z"));

        assertReadyWithoutFailure(writeOf(actions, CLUSTER).status());
        assertConflict(writeOf(actions, OTHER).status());
    }

    @Test
    void aClusterWhoseCreationIsUnknownDoesNotTakeTheName() {
        ObjectNode unknown = other("");
        ((ObjectNode) unknown.get("metadata")).remove("creationTimestamp");

        List<Action> actions = rebuiltReading(unknown);

        assertReadyWithoutFailure(writeOf(actions, CLUSTER).status());
        assertConflict(writeOf(actions, OTHER).status());
    }

    @Test
    void deletingTheSecondChangesNothingOfTheFirst() {
        holder("2023-06-01T00:00:00Z"); // the scenario's own Cluster object, dated
        ClusterStatus ready = settledOnReady();
        put(other("2023-06-02T00:00:00Z"));
        ClusterStatus conflict = writeOf(due(WINDOW.toMillis()), OTHER).status();
        written(OTHER, conflict, conflict, now);
        put(showing(other("2023-06-02T00:00:00Z"), conflict));
        due(WINDOW.toMillis());
        told.clear();

        List<Action> deleted = apply(keyOf(other("2023-06-02T00:00:00Z")), null);
        List<Action> after = due(WINDOW.toMillis());

        AnnounceDeletion deletion = assertInstanceOf(AnnounceDeletion.class, deleted.get(0));
        assertEquals(OTHER, deletion.cluster());
        assertEquals(List.of(), writes(after), "the first is not written: " + after);
        assertFalse(told.contains(new Left(CLUSTER)), "the first keeps its series");
        assertTrue(told.contains(new Left(OTHER)));
        assertTrue(book.settled(), book.progress());
        assertReadyWithoutFailure(ready);
    }

    @Test
    void deletingTheFirstGivesTheNameAndItsObjectsToTheSecond() {
        holder("2023-06-01T00:00:00Z"); // the scenario's own Cluster object, dated
        settledOnReady();
        put(other("2023-06-02T00:00:00Z"));
        ClusterStatus conflict = writeOf(due(WINDOW.toMillis()), OTHER).status();
        written(OTHER, conflict, conflict, now);
        put(showing(other("2023-06-02T00:00:00Z"), conflict));
        due(WINDOW.toMillis());

        List<Action> deleted = apply(keyOf(holder("2023-06-01T00:00:00Z")), null);
        List<Action> after = due(WINDOW.toMillis());

        assertEquals(CLUSTER, assertInstanceOf(AnnounceDeletion.class, deleted.get(0)).cluster());
        assertReadyWithoutFailure(writeOf(after, OTHER).status());
    }

    @Test
    void anOlderClusterReadLaterTakesTheNameFromALiveOne() {
        holder("2023-06-01T00:00:00Z");
        settledOnReady();
        told.clear();

        put(other("2023-05-01T00:00:00Z")); // created before default/test-cluster, its record late
        List<Action> actions = due(WINDOW.toMillis());

        assertReadyWithoutFailure(writeOf(actions, OTHER).status());
        Failure conflict = writeOf(actions, CLUSTER).status().failure().orElseThrow();
        assertEquals(new Failure("ClusterNameConflict", "cluster name test-cluster is already used by "
                + "team-b/test-cluster: CAPI objects in eksa-system are matched by name"), conflict);
        assertFalse(told.contains(new Left(CLUSTER)), "still this instance's, under another tracked cluster");
    }
}
