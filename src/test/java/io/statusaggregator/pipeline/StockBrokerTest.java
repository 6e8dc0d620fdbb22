package io.statusaggregator.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.statusaggregator.embedded.KafkaBroker;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Against a broker with Kafka's default {@code group.min.session.timeout.ms} (6 s), which refuses aggregation's 3 s
 * consumer group session: aggregation joins with 6 s instead, says so once, and every cluster still gets its status.
 */
class StockBrokerTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker(Map.of("group.min.session.timeout.ms", "6000"));

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(kafka::bootstrapServers);

    @RegisterExtension
    final LogCapture warnings = new LogCapture(Level.WARNING);

    @Test
    void aBrokerThatRefusesTheThreeSecondSessionGetsSixSecondsAndTheClustersTheirStatuses() throws Exception {
        pipelineRun.start();
        pipelineRun.fleet().createCluster("alpha", 1, 1);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized",
                "First control plane not ready yet");
        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");

        List<String> refused = warnings.lines().stream().filter(w -> w.contains("consumer group session")).toList();
        assertEquals(List.of("io.statusaggregator.aggregation.Aggregator: the broker refuses a consumer group session of 3000 ms (its group.min.session.timeout.ms is "
                + "higher): joining with 6000 ms; a replica that dies keeps its partitions that long. Let the broker take "
                + "3000 ms to fail over sooner"), refused);
    }
}
