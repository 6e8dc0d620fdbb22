package io.statusaggregator.bench;

import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import com.fasterxml.jackson.databind.JsonNode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Figure 6: one cluster's status from its snapshot, as aggregation computes it: a cluster of the benchmark fleet
 * (10 Machines), Ready, or half-way through a rolling upgrade of its workers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RulesBenchmark {
    @Param({"ready", "rolling"})
    public String cluster;

    private ClusterSnapshot snapshot;
    private final Instant now = Instant.parse("2026-01-05T09:00:00Z");

    @Setup
    public void snapshot() {
        FleetWorkload workload = new FleetWorkload(1, 1, 10);
        List<JsonNode> objects = new ArrayList<>();
        workload.initialFleet().forEach(w -> objects.add(w.object()));
        FleetWorkload.Cluster only = workload.clusters().get(0);
        if (cluster.equals("rolling")) {
            for (int i = 0; i < 17; i++) {
                only.step();
            }
        }
        objects.clear();
        objects.add(only.eksa());
        objects.add(only.capiCluster());
        objects.add(only.kcp());
        objects.add(only.md());
        objects.addAll(only.controlPlaneMachines);
        objects.addAll(only.workerMachines);
        ClusterState state = StatusCheck.clusters(objects).get(only.name());
        ClusterSnapshot bare = state.snapshot(CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN).orElseThrow();
        // Showing the status it computes, as a cluster does between two changes.
        ClusterStatus shown = StatusRules.compute(bare, now);
        snapshot = bare.showing(shown);
    }

    @Benchmark
    public ClusterStatus compute() {
        return StatusRules.compute(snapshot, now);
    }
}
