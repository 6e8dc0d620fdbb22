package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.embedded.EmbeddedKubernetes.ClusterCrd;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKind;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * EKS-A's own Cluster CRD, whose status schema lacks {@code defaultCNI}, {@code workerNodeGroups} and
 * {@code versions}: the API server prunes them from every status written. The Cluster then never shows the whole
 * status; the aggregator takes what the server kept as the echo of its write, and writes again only when the status
 * changes, not at every computation nor at every echo timeout.
 */
class PrunedStatusTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());
    @RegisterExtension
    final LogCapture logged = new LogCapture(Level.WARNING);

    private static final List<String> NOT_IN_THE_SCHEMA = List.of("defaultCNI", "workerNodeGroups", "versions");

    @Test
    void aStatusTheApiServerKeepsOnlyPartOfIsWrittenOnlyWhenItChanges() throws Exception {
        pipelineRun.kubernetes().serveClusterStatus(ClusterCrd.EKSA);
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        Aggregator aggregator = pipeline.aggregator();
        await(DEADLINE, aggregator::settled, () -> "the echo of what the server kept does not end the write: " + aggregator.progress());
        assertTrue(fleet.status("default", "alpha").keySet().stream().noneMatch(NOT_IN_THE_SCHEMA::contains), "pruned: " + fleet.status("default", "alpha"));

        // An input that changes nothing of the status: computed again, not written.
        long writes = aggregator.writer().writes();
        long events = aggregator.events();
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"metadata\": {\"labels\": {\"touched\": \"yes\"}}}");
        await(DEADLINE, () -> aggregator.events() > events && aggregator.lag() == 0 && aggregator.settled(),
                () -> "the touched Cluster not computed: " + aggregator.progress());
        assertEquals(writes, aggregator.writer().writes(), "no status written for an unchanged status");

        // A change of the status is written, once more told nothing new in the log.
        fleet.workers("alpha", 1, 1, 1, 0);
        fleet.awaitCondition("alpha", "WorkersReady", "False", "ScalingUp", "Workers expected not ready yet, 1 replicas (actual 0)");
        await(DEADLINE, aggregator::settled, aggregator::progress);
        List<String> told = logged.lines().stream().filter(line -> line.contains("did not keep")).toList();
        assertEquals(1, told.size(), "the pruned fields told once: " + told);
        assertTrue(told.get(0).contains("status.defaultCNI, status.versions, status.workerNodeGroups of cluster default/alpha"), told.get(0));
    }
}
