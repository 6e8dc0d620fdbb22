package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.Compatibility;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The harness's check of its own results, so that a fast wrong answer cannot pass: every cluster's final status must
 * be what the rules compute from its final objects. The rules are computed showing the final status itself (its
 * latches and transition times), so a correct status is the rules' fixed point, as {@code ScenarioTest} checks.
 */
final class StatusCheck {
    private final Compatibility compatibility;
    private final ManagementCluster management;

    StatusCheck(Compatibility compatibility, ManagementCluster management) {
        this.compatibility = compatibility;
        this.management = management;
    }

    /** The clusters of {@code objects} (full or reduced JSON, any order), by name. */
    static Map<String, ClusterState> clusters(Collection<JsonNode> objects) {
        Map<String, ClusterState> clusters = new HashMap<>();
        for (JsonNode node : objects) {
            try {
                Optional<ObjectKind> kind = ObjectDecoder.kindOf(node);
                Optional<KubernetesObject> object = ObjectDecoder.decode(node);
                if (kind.isEmpty() || object.isEmpty()) {
                    continue;
                }
                String cluster = ObjectDecoder.clusterNameOf(kind.get(), node).orElseThrow();
                clusters.computeIfAbsent(cluster, ClusterState::new).put(object.get());
            } catch (MalformedObjectException e) {
                throw new IllegalStateException("the harness wrote a malformed object: " + e.getMessage(), e);
            }
        }
        return clusters;
    }

    /** What the rules compute for {@code cluster} when it shows {@code shown}. */
    ClusterStatus compute(ClusterState cluster, ClusterStatus shown) {
        return compute(cluster, shown, Instant.now());
    }

    /** The same, with the conditions that change stamped {@code at}. */
    ClusterStatus compute(ClusterState cluster, ClusterStatus shown, Instant at) {
        ClusterSnapshot snapshot = cluster.snapshot(compatibility, management).orElseThrow().showing(shown);
        return StatusRules.compute(snapshot, at);
    }

    /**
     * @param statuses the status each cluster ends with, by name; a cluster missing here is checked against the status
     *                 its EKS-A Cluster object shows
     * @return a description of each cluster whose status is wrong, empty when all are right
     */
    List<String> mismatches(Map<String, ClusterState> clusters, Map<String, ClusterStatus> statuses) {
        List<String> wrong = new ArrayList<>();
        int withCluster = 0;
        for (ClusterState cluster : clusters.values()) {
            Optional<EksaCluster> eksa = cluster.cluster();
            if (eksa.isEmpty()) {
                continue;
            }
            withCluster++;
            ClusterStatus final_ = statuses.getOrDefault(cluster.clusterName(), eksa.get().status());
            ClusterStatus expected = compute(cluster, final_);
            if (!expected.equals(final_)) {
                wrong.add(cluster.clusterName() + ": ends with " + StatusEncoder.encode(final_) + " but its objects give "
                        + StatusEncoder.encode(expected));
            }
        }
        if (withCluster == 0) {
            wrong.add("no cluster to check");
        }
        return wrong;
    }

    /** Fails loudly, naming the seed, when a status is wrong. */
    void verify(String figure, long seed, Map<String, ClusterState> clusters, Map<String, ClusterStatus> statuses) {
        List<String> wrong = mismatches(clusters, statuses);
        if (!wrong.isEmpty()) {
            throw new IllegalStateException(figure + " (seed " + seed + "): " + wrong.size() + " of " + clusters.size()
                    + " clusters end with a status their objects do not give, e.g. " + wrong.subList(0, Math.min(3, wrong.size())));
        }
    }

    /** What a status says, without the times it was stamped with: what a freshness probe waits to see. */
    static String signature(ClusterStatus status) {
        StringBuilder text = new StringBuilder().append(status.observedGeneration());
        for (Condition c : status.conditions()) {
            text.append('|').append(c.type()).append(' ').append(c.status()).append(' ').append(c.reason()).append(' ').append(c.message());
        }
        return text.toString();
    }
}
