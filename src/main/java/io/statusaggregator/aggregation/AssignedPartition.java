package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import java.util.HashMap;
import java.util.Map;

/**
 * A partition of the object-state topic assigned to this instance, in the book's {@link PartitionBookkeeping}: its
 * clusters, and how far its rebuild is.
 */
@Pure
final class AssignedPartition {
    final int number;
    /** The assignment that brought it, as {@link PartitionBookkeeping#assigned} numbered it. */
    final long assignment;
    /** Read to the end it had when assigned; the status topic read for it: live once both. */
    boolean readToEnd;
    boolean statusesRead;
    boolean live;
    /** By cluster name; a Cluster that does not hold its name by {@link NameHolders#trackedNameOf}. */
    final Map<String, TrackedCluster> clusters = new HashMap<>();
    /** Which tracked cluster each EKS-A Cluster is in. */
    final NameHolders holders;

    AssignedPartition(int number, long assignment, String capiNamespace) {
        this.number = number;
        this.assignment = assignment;
        this.holders = new NameHolders(this, capiNamespace);
    }

    /**
     * Its cluster {@code clusterName}, added if it is not there. Not {@code computeIfAbsent}: its lambda would be made
     * for every record.
     */
    TrackedCluster tracked(String clusterName) {
        TrackedCluster cluster = clusters.get(clusterName);
        if (cluster == null) {
            cluster = new TrackedCluster(clusterName, number);
            clusters.put(clusterName, cluster);
        }
        return cluster;
    }
}
