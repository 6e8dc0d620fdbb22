package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import io.statusaggregator.versions.Compatibility;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * What happened, as the {@link ClusterBook} takes it: the consumer's partitions moving, a record read, write-back's
 * outcomes, the feeds' refusals and the time. Each goes in through {@link ClusterBook#on}, which returns what to do
 * about it ({@link Action}). Instants are {@code System.nanoTime()} values ({@code now}): the core keeps no clock.
 */
@Pure
sealed interface BookEvent {
    /**
     * Partitions {@code numbers} assigned, of {@code partitionCount}: each rebuilding until read to its end
     * ({@link Rebuilt}) and the status topic read for it ({@link StatusesRead}, asked for by
     * {@link Action.ReadStatuses}).
     */
    record Assigned(Collection<Integer> numbers, int partitionCount) implements BookEvent {
    }

    /** The status topic read for assignment {@code assignment}: its last status of each cluster (namespace/name). */
    record StatusesRead(long assignment, Map<String, ClusterStatus> statuses) implements BookEvent {
    }

    /** Partition {@code number} read to the end it had when assigned. */
    record Rebuilt(int number) implements BookEvent {
    }

    /** Partitions revoked or lost in a rebalance. */
    record Revoked(Collection<Integer> numbers) implements BookEvent {
    }

    /** A record read from the object-state topic. */
    record RecordRead(SourceRecord record, long now) implements BookEvent {
    }

    /** Write-back wrote {@code status}; the API server kept {@code kept} of it. */
    record Written(ObjectKey cluster, ClusterStatus status, ClusterStatus kept, long now) implements BookEvent {
    }

    /** Write-back found the Cluster deleted: its tombstone follows on the topic. */
    record Gone(ObjectKey cluster) implements BookEvent {
    }

    /** Write-back did not write {@code status}: the Cluster changed since {@code basis}, its version then. */
    record Conflicted(ObjectKey cluster, ClusterStatus status, String basis, long now) implements BookEvent {
    }

    /** Write-back refused to write the Cluster's status for good. */
    record Refused(ObjectKey cluster) implements BookEvent {
    }

    /** The broker did not take a change published as {@code after} (its event, or its status record). */
    record Unpublished(ObjectKey cluster, Optional<ClusterStatus> before, ClusterStatus after, String error, long now)
            implements BookEvent {
    }

    /**
     * Time passed: what is due at {@code now}, with {@code backlog} records of the live partitions waiting to be read,
     * the compatibility data and the management cluster in force, computed at {@code instant}.
     */
    record TimePassed(long now, long backlog, Compatibility inForce, ManagementCluster management, Instant instant)
            implements BookEvent {
    }
}
