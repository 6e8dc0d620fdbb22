package io.statusaggregator.aggregation;

import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The partitions of the object-state topic assigned to this instance, by number; in {@link PartitionBookkeeping}. */
@Pure
final class AssignedPartitions {
    private final Map<Integer, AssignedPartition> byNumber = new HashMap<>();

    /** Partition {@code number}, or null when it is not assigned. */
    AssignedPartition get(int number) {
        return byNumber.get(number);
    }

    void add(AssignedPartition partition) {
        byNumber.put(partition.number, partition);
    }

    /** Forgets partition {@code number}; returns it, or null when it was not assigned. */
    AssignedPartition remove(int number) {
        return byNumber.remove(number);
    }

    Collection<AssignedPartition> all() {
        return byNumber.values();
    }

    /** Those of assignment {@code assignment} whose status topic is not read yet. */
    List<AssignedPartition> readingStatuses(long assignment) {
        return byNumber.values().stream().filter(p -> p.assignment == assignment && !p.statusesRead).toList();
    }

    /**
     * The tracked cluster that holds EKS-A Cluster {@code eksaCluster}, or null: looked for in the partition of its
     * name first, then in every partition (a record another producer put on an unexpected partition makes a cluster
     * there).
     */
    TrackedCluster holding(ObjectKey eksaCluster, int partitionCount) {
        AssignedPartition expected = byNumber.get(ObjectStateKey.partitionOf(eksaCluster.name(), partitionCount));
        TrackedCluster found = expected == null ? null : expected.holders.holding(eksaCluster);
        if (found != null) {
            return found;
        }
        return byNumber.values().stream().map(partition -> partition.holders.holding(eksaCluster))
                .filter(Objects::nonNull).findFirst().orElse(null);
    }

    /** Whether partition {@code number} is assigned and rebuilt. */
    boolean live(int number) {
        AssignedPartition partition = byNumber.get(number);
        return partition != null && partition.live;
    }

    /** True once every assigned partition is rebuilt. */
    boolean allLive() {
        return !byNumber.isEmpty() && byNumber.values().stream().allMatch(p -> p.live);
    }

    /** The backlog the coalescing window follows: of the records {@code waiting} (by partition), the live ones'. */
    long backlog(Map<Integer, Long> waiting) {
        return waiting.entrySet().stream().filter(partition -> live(partition.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** How many clusters the partitions track. */
    int tracked() {
        return byNumber.values().stream().mapToInt(p -> p.clusters.size()).sum();
    }

    @Override
    public String toString() {
        return byNumber.keySet().toString();
    }
}
