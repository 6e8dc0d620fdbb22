package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.util.Optional;

/**
 * Told what each EKS-A Cluster of this instance's partitions shows, and when one is no longer this instance's: it was
 * deleted, or its partition was revoked or lost in a rebalance. The per-cluster metrics follow it, so that each
 * cluster is exported by the one instance that aggregates it. Called on the aggregation thread, by the shell that
 * carries out the book's {@link Action.Shows} and {@link Action.Left} ({@link ActionExecutor}): an observer must not
 * block nor throw.
 */
@Pure
public interface ClusterObserver {
    ClusterObserver NONE = new ClusterObserver() {
        @Override
        public void shows(Shown cluster) {
        }

        @Override
        public void left(ObjectKey cluster) {
        }
    };

    /**
     * A Cluster as this instance last read it, with the status it shows: the one this instance wrote, until its echo
     * comes, else the Cluster's own.
     *
     * @param spec             the Cluster's spec; empty when it cannot be read (its status then says so)
     * @param remoteConnection whether the management cluster reaches the workload cluster's API, where its CAPI Cluster
     *                         says so ({@link io.statusaggregator.model.CapiCluster#remoteConnection}); empty otherwise
     */
    record Shown(ObjectKey cluster, long generation, Optional<EksaClusterSpec> spec, ClusterStatus status,
            Optional<Boolean> remoteConnection) {
        /** A Cluster whose CAPI Cluster says nothing of its remote connection. */
        public Shown(ObjectKey cluster, long generation, Optional<EksaClusterSpec> spec, ClusterStatus status) {
            this(cluster, generation, spec, status, Optional.empty());
        }
    }

    /** After each computation of the Cluster and each status written to it; the same one again is likely. */
    void shows(Shown cluster);

    /** The Cluster is deleted, or no longer this instance's; said of a Cluster never shown too. */
    void left(ObjectKey cluster);
}
