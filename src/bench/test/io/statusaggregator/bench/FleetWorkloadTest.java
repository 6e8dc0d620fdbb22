package io.statusaggregator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks' fleet is a CAPI v1.13 management cluster's: its Cluster API objects at v1beta2, the deprecated
 * v1beta1 block included, and the rules read their rollouts off them. Runs with -Pbench only.
 */
class FleetWorkloadTest {
    private final StatusCheck check = new StatusCheck(CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN);

    @Test
    void theCapiObjectsAreV1beta2AsCapiWritesThem() {
        FleetWorkload workload = new FleetWorkload(42, 2, 10);
        for (FleetWorkload.Write write : workload.initialFleet()) {
            JsonNode object = write.object();
            if (write.kind() == ObjectKind.EKSA_CLUSTER) {
                continue;
            }
            String what = write.kind() + " " + object.path("metadata").path("name").asText();
            assertEquals(write.kind().apiVersion("v1beta2"), object.path("apiVersion").asText(), what);
            JsonNode status = object.path("status");
            assertTrue(status.path("deprecated").path("v1beta1").path("conditions").isArray(), what);
            for (JsonNode condition : status.path("conditions")) {
                assertFalse(condition.path("reason").asText().isEmpty(), what + " " + condition);
                assertFalse(condition.has("severity"), what + " " + condition);
            }
            for (String v1beta1Only : List.of("updatedReplicas", "unavailableReplicas", "initialized",
                    "bootstrapReady")) {
                assertFalse(status.has(v1beta1Only), what + ": " + v1beta1Only);
            }
        }
        FleetWorkload.Cluster cluster = workload.clusters().get(0);
        assertEquals("controlplane.cluster.x-k8s.io", cluster.capiCluster().path("spec").path("controlPlaneRef")
                .path("apiGroup").asText());
        assertTrue(cluster.kcp().path("status").path("initialization").path("controlPlaneInitialized").asBoolean());
    }

    @Test
    void aControlPlaneRolloutReadsAsOneOffTheV1beta2Counters() {
        FleetWorkload workload = new FleetWorkload(7, 1, 10);
        workload.initialFleet();
        FleetWorkload.Cluster cluster = workload.clusters().get(0);
        List<String> reasons = new ArrayList<>();
        ClusterStatus shown = check.compute(state(cluster), state(cluster).cluster().orElseThrow().status());
        do {
            cluster.step();
            shown = check.compute(state(cluster), shown);
            shown.conditions().stream().filter(c -> c.type() == ConditionType.CONTROL_PLANE_READY)
                    .forEach(c -> reasons.add(c.reason()));
        } while (cluster.rollout >= 0);
        // The KCP's spec moves (OutdatedInformation until observed), then upToDateReplicas counts the rollout.
        assertTrue(reasons.contains("OutdatedInformation"), reasons.toString());
        assertTrue(reasons.contains("RollingUpgradeInProgress"), reasons.toString());
        assertEquals("", reasons.get(reasons.size() - 1), "Ready again: " + reasons);
    }

    private static ClusterState state(FleetWorkload.Cluster c) {
        List<JsonNode> objects = new ArrayList<>(List.of(c.eksa(), c.capiCluster(), c.kcp(), c.md()));
        objects.addAll(c.controlPlaneMachines);
        objects.addAll(c.workerMachines);
        return StatusCheck.clusters(objects).get(c.name());
    }
}
