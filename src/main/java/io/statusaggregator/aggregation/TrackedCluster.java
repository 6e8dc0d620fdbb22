package io.statusaggregator.aggregation;

import io.statusaggregator.ingest.ObjectStateKey;
import java.util.LinkedHashMap;

/**
 * A cluster's objects, its records not read yet, and when its first record not computed yet came. Used on the
 * aggregation thread only.
 */
final class TrackedCluster {
    final ClusterState state;
    /** The object-state partition it is in. */
    final int partition;
    static final long CLEAN = Long.MIN_VALUE;
    /** When the first record not yet computed arrived (System.nanoTime), or {@link #CLEAN} when there is none. */
    long dirtySince = CLEAN;
    /** Each object's latest record not read yet, in the order they came ({@link UnreadRecords}); null while none. */
    LinkedHashMap<ObjectStateKey, UnreadRecords.Unread> unread;

    TrackedCluster(String clusterName, int partition) {
        this.state = new ClusterState(clusterName);
        this.partition = partition;
    }
}
