package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The version history is durable (versions.md, 003): on an API server whose Cluster CRD drops {@code status.versions}
 * (EKS-A's own), a restarted or newly assigned instance continues it from the status topic's last record, which the
 * book reads on assignment before it computes the cluster.
 */
class DurableHistoryBookTest extends BookTestBase {
    private static final String STATUS_KEY = CLUSTER.toString();

    @Test
    void aRestartedInstanceContinuesTheHistoryFromTheStatusTopicWhereTheClusterDropsIt() {
        ClusterStatus before = firstWrite();
        String reached = before.versions().current().orElseThrow();
        assertTrue(reached.startsWith("v0.16.3#"), reached);

        ClusterStatus after = restartedAndComputed(before, "v0.16.4");

        String upgraded = after.versions().current().orElseThrow();
        assertTrue(upgraded.startsWith("v0.16.4#"), upgraded);
        assertEquals(Optional.of(reached), after.versions().last(),
                "the rollback target is the version reached before the restart");
    }

    @Test
    void aRestartedInstanceJudgesASkippedMinorFromTheHistoryOnTheStatusTopic() {
        ClusterStatus before = firstWrite();

        ClusterStatus after = restartedAndComputed(before, "v0.18.0");

        assertEquals(Optional.of(new Failure("EksaVersionInvalid", "cannot upgrade to v0.18.0 from v0.16.3: "
                + "EksaVersion upgrades must have a skew of 1 minor version")), after.failure());
        assertEquals(before.versions().current(), after.versions().current(), "not reached: current stays");
    }

    @Test
    void withNothingOnTheStatusTopicTheHistoryStartsFromWhatTheClusterShows() {
        ClusterStatus before = firstWrite();
        book = new ClusterBook(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO, "eksa-system");
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        put(upgradedTo(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), before), "v0.16.4"));
        rebuilt(0);
        ClusterStatus after = assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
        assertEquals(before.versions().current(), after.versions().last(), "a full CRD: the Cluster's own history");
    }

    /**
     * A new book (a restarted instance) whose status topic holds {@code published}, on a Cluster that shows the same
     * status without its versions (pruned) and whose spec now names {@code eksaVersion}: the status computed for it.
     */
    private ClusterStatus restartedAndComputed(ClusterStatus published, String eksaVersion) {
        ClusterStatus pruned = new ClusterStatus(published.observedGeneration(), published.failure(), Optional.empty(),
                published.conditions(), List.of(), Versions.NONE);
        book = new ClusterBook(new CoalescingWindow(WINDOW, LONGEST, POLL), ECHO, "eksa-system");
        statusesRead(assigned(List.of(0), 1), Map.of(STATUS_KEY, published));
        objects.forEach(this::put);
        put(upgradedTo(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), pruned), eksaVersion));
        rebuilt(0);
        return assertInstanceOf(WriteStatus.class, due(0).get(0)).status();
    }

    private static ObjectNode upgradedTo(ObjectNode cluster, String eksaVersion) {
        ObjectNode changed = cluster.deepCopy();
        changed.with("spec").put("eksaVersion", eksaVersion);
        changed.with("metadata").put("generation", cluster.path("metadata").path("generation").asLong() + 1);
        return changed;
    }
}
