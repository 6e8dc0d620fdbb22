package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;

/** A cluster's objects plus what aggregation remembers about its status writes. Used on the aggregation thread only. */
final class TrackedCluster {
    final ClusterState state;
    static final long CLEAN = Long.MIN_VALUE;
    /** When the first event not yet computed arrived (System.nanoTime), or {@link #CLEAN} when there is none. */
    long dirtySince = CLEAN;
    /** The status submitted for writing whose echo (the Cluster showing it) has not arrived yet. */
    ClusterStatus pending;
    /** When write-back wrote the pending status (System.nanoTime); its echo is awaited from then on. */
    long writtenAt;

    TrackedCluster(String clusterName) {
        this.state = new ClusterState(clusterName);
    }
}
