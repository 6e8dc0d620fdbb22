package io.statusaggregator.aggregation;

/** A cluster's objects plus when its first record not computed yet came. Used on the aggregation thread only. */
final class TrackedCluster {
    final ClusterState state;
    static final long CLEAN = Long.MIN_VALUE;
    /** When the first record not yet computed arrived (System.nanoTime), or {@link #CLEAN} when there is none. */
    long dirtySince = CLEAN;

    TrackedCluster(String clusterName) {
        this.state = new ClusterState(clusterName);
    }
}
