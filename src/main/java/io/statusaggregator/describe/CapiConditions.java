package io.statusaggregator.describe;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which conditions of a CAPI object the tree shows on lines of their own, and how. Most conditions are healthy when
 * True ({@code Available}, {@code MachinesReady}, {@code RemoteConnectionProbe}, ...): shown when False. Some mean
 * activity or trouble when True ({@link #TRUE_IS_NOT_HEALTHY}, as {@code clusterctl describe} reads them): shown when
 * True, with a severity that says so (a True condition has none otherwise), Info for work under way, Warning for
 * Machines being remediated. A condition neither True nor False, or healthy, says nothing worth a line.
 */
@Pure
final class CapiConditions {
    /** CAPI v1beta2's conditions whose True is activity or trouble ({@code Updating} is a Machine's). */
    static final Set<String> TRUE_IS_NOT_HEALTHY = Set.of("RollingOut", "ScalingUp", "ScalingDown", "Remediating",
            "Deleting", "Paused", "Updating");
    private static final String REMEDIATING = "Remediating";

    private CapiConditions() {
    }

    /**
     * The lines of {@code object}'s conditions that are not healthy, in the object's order, but for {@code shown}
     * (the condition its own line shows, and any the tree shows elsewhere).
     */
    static List<ClusterTree.Line> of(JsonNode object, int depth, Set<String> shown, Instant now) {
        List<ClusterTree.Line> lines = new ArrayList<>();
        for (JsonNode condition : object.path("status").path("conditions")) {
            String type = condition.path("type").asText();
            String status = condition.path("status").asText();
            if (shown.contains(type)) {
                continue;
            }
            boolean trueIsNotHealthy = TRUE_IS_NOT_HEALTHY.contains(type);
            if (trueIsNotHealthy && "True".equals(status)) {
                ClusterTree.Line line = ClusterTree.line(depth, "Condition " + type, condition, now, "");
                String severity = REMEDIATING.equals(type) ? "Warning" : "Info";
                lines.add(new ClusterTree.Line(depth, line.name(), line.ready(), severity, line.reason(), line.since(),
                        line.message()));
            } else if (!trueIsNotHealthy && "False".equals(status)) {
                lines.add(ClusterTree.line(depth, "Condition " + type, condition, now, ""));
            }
        }
        return lines;
    }

    /**
     * The line that says the management cluster cannot reach the workload cluster's API, when a v1beta2 CAPI Cluster
     * says so ({@link CapiCluster#remoteConnection}): what goes wrong with every other part of the cluster then, since
     * no controller can reach its nodes.
     */
    static Optional<ClusterTree.Line> unreachable(List<JsonNode> capiClusters, int depth, Instant now) {
        for (JsonNode json : capiClusters) {
            Optional<ObservedCondition> probe = decoded(json).flatMap(CapiCluster::remoteConnection);
            if (probe.isPresent() && probe.get().isFalse()) {
                ClusterTree.Line line = ClusterTree.line(depth, CapiCluster.REMOTE_CONNECTION_PROBE,
                        ClusterTree.condition(json, CapiCluster.REMOTE_CONNECTION_PROBE), now, "");
                String said = line.message().isEmpty() ? "" : ": " + line.message();
                return Optional.of(new ClusterTree.Line(depth, line.name(), "False", "Error", line.reason(),
                        line.since(), "workload cluster's API unreachable from the management cluster" + said));
            }
        }
        return Optional.empty();
    }

    private static Optional<CapiCluster> decoded(JsonNode json) {
        try {
            return ObjectDecoder.decode(json).filter(CapiCluster.class::isInstance).map(CapiCluster.class::cast);
        } catch (MalformedObjectException e) {
            return Optional.empty(); // the rules say what is wrong with it; the tree shows what it can
        }
    }
}
