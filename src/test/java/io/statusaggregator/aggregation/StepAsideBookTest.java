package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.Action.PublishChange;
import io.statusaggregator.aggregation.Action.StepAside;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The book beside another writer of the status: it puts a foreign write back once, steps aside at the second, then
 * publishes its verdicts without writing; told by the API server's managers (which ingest passes on, as
 * {@link ObjectReduction#STATUS_WRITERS}) it steps aside before any write.
 */
class StepAsideBookTest extends BookTestBase {
    /** EKS-A's verdict on the Cluster, Ready False. */
    private static final String THEIRS = """
            {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "False",
             "reason": "ControlPlaneNotReady", "message": "EKS-A's", "lastTransitionTime": "2026-12-01T00:00:00Z"}]}""";

    private ObjectNode clusterShowingTheirs(String writers) throws Exception {
        ObjectNode cluster = object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1").deepCopy();
        cluster.set("status", new com.fasterxml.jackson.databind.ObjectMapper().readTree(THEIRS));
        cluster.with("metadata").put("resourceVersion", String.valueOf(offset + 100));
        if (!writers.isEmpty()) {
            cluster.with("metadata").with("annotations").put(ObjectReduction.STATUS_WRITERS, writers);
        }
        return cluster;
    }

    @Test
    void aForeignWriteIsPutBackOnceAndTheSecondStepsAsideThenOnlyVerdictsArePublished() throws Exception {
        ClusterStatus ready = settledOnReady();

        put(clusterShowingTheirs(""));
        WriteStatus putBack = assertInstanceOf(WriteStatus.class, due(WINDOW.toMillis()).get(0), "put back once");
        assertEquals(ready, putBack.status());
        written(CLUSTER, ready, ready, now);
        put(showing(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1"), ready)); // its echo
        assertEquals(List.of(), due(WINDOW.toMillis()));

        put(clusterShowingTheirs(""));
        List<Action> second = due(WINDOW.toMillis());
        assertEquals(List.of(new StepAside(new SteppedAside(CLUSTER, "", decodedTheirs(), ready))), second,
                "stepped aside: said once, nothing written, its verdict published already");
        assertTrue(book.settled(), book.progress());

        // The workers fall behind: the verdict changes and is published, never written; Cluster records change nothing.
        ObjectNode md = object("MachineDeployment");
        md.with("status").put("readyReplicas", 0);
        put(md);
        List<Action> changed = due(WINDOW.toMillis());
        PublishChange change = assertInstanceOf(PublishChange.class, changed.get(0), "published: " + changed);
        assertEquals(1, changed.size(), "no write: " + changed);
        assertEquals(ConditionStatus.FALSE, change.after().condition(ConditionType.READY).orElseThrow().status());
        put(clusterShowingTheirs(""));
        assertEquals(List.of(), due(WINDOW.toMillis()), "EKS-A's writes are its own now");
    }

    @Test
    void aControllerTheApiServerNamesAsWriterIsSteppedAsideForBeforeAnyWrite() throws Exception {
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.stream().filter(o -> !o.path("kind").asText().equals("Cluster")
                || !o.path("apiVersion").asText().startsWith("anywhere")).forEach(this::put);
        put(clusterShowingTheirs("manager,status-aggregator"));
        rebuilt(0);
        List<Action> actions = due(0);
        assertEquals(2, actions.size(), "a step aside and its verdict, no write: " + actions);
        SteppedAside told = assertInstanceOf(StepAside.class, actions.get(0)).told();
        assertEquals("manager", told.writer());
        assertInstanceOf(PublishChange.class, actions.get(1));
        assertTrue(book.settled(), "nothing awaited: " + book.progress());
    }

    @Test
    void theWantedWriterEksaWritesNothingAndPublishesItsVerdict() throws Exception {
        book.ownedAs(new StatusOwnership(WantedWriter.EKSA, Duration.ofMinutes(10)));
        statusesRead(assigned(List.of(0), 1), Map.of());
        objects.forEach(this::put);
        rebuilt(0);
        List<Action> actions = due(0);
        assertEquals(1, actions.size(), "its verdict only: " + actions);
        assertInstanceOf(PublishChange.class, actions.get(0));
        put(clusterShowingTheirs("manager"));
        assertEquals(List.of(), due(WINDOW.toMillis()), "EKS-A's status changes nothing it publishes");
    }

    /** THEIRS as the book reads it from the Cluster. */
    private static ClusterStatus decodedTheirs() throws Exception {
        return io.statusaggregator.model.json.ObjectDecoder.statusOf(new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree("{\"status\": " + THEIRS + "}"));
    }
}
