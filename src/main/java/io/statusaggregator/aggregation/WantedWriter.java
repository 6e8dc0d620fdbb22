package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;

/** Which writer of the Clusters' statuses a deployment wants ({@code aggregator.status.writer}; docs/deploy.md). */
@Pure
public enum WantedWriter {
    /**
     * This aggregator writes each Cluster's status, and steps aside for a Cluster whose status another writer keeps
     * setting ({@link StatusOwnership}): the default, safe beside EKS-A's own controller.
     */
    AUTO,
    /** EKS-A's controller writes them: this aggregator writes no status nor status Event; it computes and publishes. */
    EKSA
}
