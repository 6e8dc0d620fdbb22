package io.statusaggregator.aggregation;

/**
 * What the Kafka shell ({@link Aggregator}) knows of a partition it was assigned: where its rebuild ends, how far the
 * group had handled it, what this instance committed. The book keeps its own side ({@link AssignedPartition}).
 */
final class ConsumedPartition {
    /** The partition's end offset when assigned: read to it, the partition is rebuilt. */
    final long rebuildUntil;
    /** The group's committed offset when assigned: records before it were handled by an earlier owner. */
    final long handledBefore;
    /** The offset this instance committed last (or found committed). */
    long committed;
    /** Read to {@link #rebuildUntil} and told to the book, once: it waits for the status topic no longer each poll. */
    boolean readToEnd;

    ConsumedPartition(long rebuildUntil, long handledBefore) {
        this.rebuildUntil = rebuildUntil;
        this.handledBefore = handledBefore;
        this.committed = handledBefore;
    }
}
