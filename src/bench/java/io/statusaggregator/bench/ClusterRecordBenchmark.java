package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Figure 7: reading one EKS-A Cluster record of the object-state topic as aggregation reads it, the record that echoes
 * a status written (one comes back for every write): through Jackson's tree, as before; streamed with its spec read
 * anew (a rebuild's first record of a Cluster); streamed with its spec's bytes those of the record before (an echo).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClusterRecordBenchmark {
    private static final ObjectReader TREE = new ObjectMapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Param({"tree", "streamed-spec-new", "streamed-spec-known"})
    public String reading;

    private byte[] record;
    private Optional<EksaClusterReader.KnownSpec> known;
    private final EksaClusterReader reader = new EksaClusterReader();

    @Setup
    public void record() throws Exception {
        // A cluster of the benchmark fleet half-way through a rolling upgrade, showing the status the rules give it.
        FleetWorkload workload = new FleetWorkload(1, 1, 10);
        FleetWorkload.Cluster only = workload.clusters().get(0);
        for (int i = 0; i < 17; i++) {
            only.step();
        }
        List<JsonNode> objects = new ArrayList<>(List.of(only.eksa(), only.capiCluster(), only.kcp(), only.md()));
        objects.addAll(only.controlPlaneMachines);
        objects.addAll(only.workerMachines);
        ClusterState state = StatusCheck.clusters(objects).get(only.name());
        ClusterSnapshot snapshot = state.snapshot(CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN).orElseThrow();
        ObjectNode eksa = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, only.eksa());
        eksa.set("status", StatusEncoder.encode(StatusRules.compute(snapshot, Instant.parse("2026-01-05T09:00:00Z"))));
        record = eksa.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        known = reading.equals("streamed-spec-known") ? reader.read(record, Optional.empty()).map(EksaClusterReader.Read::spec)
                : Optional.empty();
        if (reader.read(record, known).isEmpty()) {
            throw new IllegalStateException("the streaming reader gives up on the benchmark's record: " + eksa);
        }
    }

    @Benchmark
    public Object read() throws Exception {
        if (reading.equals("tree")) {
            Optional<KubernetesObject> object = ObjectDecoder.decode(TREE.readTree(record));
            return object.orElseThrow();
        }
        return reader.read(record, known).orElseThrow();
    }
}
