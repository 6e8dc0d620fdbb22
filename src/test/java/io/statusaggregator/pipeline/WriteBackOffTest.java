package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.ingest.CompactedTopic;
import io.statusaggregator.writeback.StatusWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Write-back off ({@code aggregator.write.enabled=false}), as beside EKS-A's own controller writing the same fields:
 * the Cluster keeps the status another controller wrote, no Event is recorded, and the status topic and feeds carry
 * the aggregator's own statuses, computed against its last one rather than the Cluster's.
 */
class WriteBackOffTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    @Test
    void theClustersStatusIsLeftToItsControllerAndTheFeedsCarryTheAggregators() throws Exception {
        Pipeline.Settings on = Fleet.settings(pipelineRun.bootstrapServers(), pipelineRun.id(), true);
        StatusWriter.Settings writes = on.writerSettings();
        Pipeline.Settings off = new Pipeline.Settings(on.kafka(), on.objectStatesTopic(), on.statusesTopic(), on.transitionsTopic(),
                on.deadLettersTopic(), on.createTopics(), on.partitions(), on.replicationFactor(), on.groupId(), on.ingest(),
                on.ingestSettings(), on.aggregatorSettings(),
                new StatusWriter.Settings(writes.concurrency(), writes.initialBackoff(), writes.maxBackoff(), false),
                on.cniSettings(), on.compatibilityConfigMap(), on.leadership());
        Pipeline pipeline = pipelineRun.start(off);
        Fleet fleet = pipelineRun.fleet();
        fleet.createCluster("alpha", 1, 1);
        // Another controller's verdict on the Cluster, which the aggregator must leave alone.
        fleet.patchStatus(io.statusaggregator.model.ObjectKind.EKSA_CLUSTER, "default", "alpha", """
                {"status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "False", "reason": "TheirReason",
                 "lastTransitionTime": "2026-11-28T00:00:00Z"}]}}""");
        fleet.controlPlaneReady("alpha", 1);
        fleet.workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(fleet.workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);

        String statuses = on.statusesTopic();
        await(DEADLINE, () -> CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()), statuses, DEADLINE)
                .map(latest -> String.valueOf(latest.get("default/alpha"))).orElse("").matches(
                        "(?s).*\\{\"type\":\"Ready\",\"status\":\"True\".*"), () -> "alpha Ready on the status topic");
        Aggregator aggregator = pipeline.aggregator();
        await(DEADLINE, aggregator::settled, aggregator::progress);

        assertEquals(0, aggregator.writer().writes(), "no status written");
        assertEquals("TheirReason", fleet.condition("default", "alpha", "Ready").get("reason"), "the Cluster keeps its controller's status");
        assertTrue(pipelineRun.kubernetes().client().events().v1().events().inNamespace("default").list().getItems().isEmpty(),
                "no Event recorded");
    }
}
