package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.Pure;
import java.util.Optional;

/**
 * Where a cluster's version history continues from when it is computed (versions.md, 003: the history is durable).
 * A Cluster CRD without {@code status.versions} (EKS-A's own) never shows it, so the Cluster's own status is the last
 * place to look: first the status this instance is writing (its own last computation), then the status published on
 * the status topic (what this instance published, or, after a restart or a rebalance, the topic's last record, read
 * on assignment before the cluster is first computed), then what the Cluster shows. Pure.
 */
@Pure
final class VersionHistorySource {
    private VersionHistorySource() {
    }

    /**
     * {@code shown} with the versions the history continues from: the rules read them from the status shown.
     *
     * @param writing   the status this instance is writing to the Cluster, if any
     * @param published the cluster's last status on the status topic, as this instance knows it
     */
    static ClusterStatus continued(ClusterStatus shown, Optional<ClusterStatus> writing,
            Optional<ClusterStatus> published) {
        Versions versions = writing.map(ClusterStatus::versions)
                .or(() -> published.map(ClusterStatus::versions).filter(v -> !v.equals(Versions.NONE)))
                .orElse(shown.versions());
        if (versions.equals(shown.versions())) {
            return shown;
        }
        return new ClusterStatus(shown.observedGeneration(), shown.failure(), shown.defaultCni(), shown.conditions(),
                shown.workerNodeGroups(), versions);
    }
}
