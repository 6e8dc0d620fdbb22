package io.statusaggregator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness's check of its own results accepts right statuses and catches a wrong one. Runs with -Pbench only. */
class StatusCheckTest {
    private final StatusCheck check = new StatusCheck(CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN);

    private static Map<String, ClusterState> fleet(FleetWorkload workload) {
        List<JsonNode> objects = new ArrayList<>();
        for (FleetWorkload.Cluster c : workload.clusters()) {
            objects.addAll(List.of(c.eksa(), c.capiCluster(), c.kcp(), c.md()));
            objects.addAll(c.controlPlaneMachines);
            objects.addAll(c.workerMachines);
        }
        return StatusCheck.clusters(objects);
    }

    private Map<String, ClusterStatus> computed(Map<String, ClusterState> clusters) {
        Map<String, ClusterStatus> statuses = new HashMap<>();
        clusters.forEach((name, state) -> statuses.put(name, check.compute(state, state.cluster().orElseThrow().status())));
        return statuses;
    }

    @Test
    void theRulesOwnStatusesPassAndAStaleOneIsCaught() {
        FleetWorkload workload = new FleetWorkload(42, 3, 10);
        workload.initialFleet();
        Map<String, ClusterStatus> before = computed(fleet(workload));
        assertEquals(List.of(), check.mismatches(fleet(workload), before));

        FleetWorkload.Cluster moved = workload.clusters().get(1);
        for (int i = 0; i < 5; i++) {
            moved.step();
        }
        Map<String, ClusterState> after = fleet(workload);
        // The moved cluster still shows the status of its objects before the steps: a fast wrong answer.
        List<String> wrong = check.mismatches(after, before);
        assertEquals(1, wrong.size(), wrong.toString());
        assertTrue(wrong.get(0).startsWith(moved.name()), wrong.toString());
        assertThrows(IllegalStateException.class, () -> check.verify("test", 42, after, before));
        assertEquals(List.of(), check.mismatches(after, computed(after)));
    }

    @Test
    void everyStepOfARolloutChangesTheStatusAndTheLastLeavesTheClusterReady() {
        FleetWorkload workload = new FleetWorkload(7, 1, 10);
        workload.initialFleet();
        FleetWorkload.Cluster cluster = workload.clusters().get(0);
        ClusterStatus shown = computed(fleet(workload)).get(cluster.name());
        String ready = StatusCheck.signature(shown);
        int steps = 0;
        do {
            cluster.step();
            steps++;
            ClusterStatus next = check.compute(fleet(workload).get(cluster.name()), shown);
            assertTrue(!StatusCheck.signature(next).equals(StatusCheck.signature(shown)), "step " + steps + " changed nothing");
            shown = next;
        } while (cluster.rollout >= 0);
        assertTrue(StatusCheck.signature(shown).contains("READY TRUE"), StatusCheck.signature(shown));
        assertTrue(!StatusCheck.signature(shown).equals(ready));
    }
}
