package io.statusaggregator.aggregation;

import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.Pure;
import java.util.LinkedHashMap;
import java.util.Optional;

/**
 * A cluster's objects, its records not read yet, and when its first record not computed yet came. Used on the
 * aggregation thread only.
 */
@Pure
final class TrackedCluster {
    final ClusterState state;
    /** The object-state partition it is in. */
    final int partition;
    static final long CLEAN = Long.MIN_VALUE;
    /** When the first record not yet computed arrived (System.nanoTime), or {@link #CLEAN} when there is none. */
    long dirtySince = CLEAN;
    static final long NEVER = Long.MIN_VALUE;
    /** When it was last taken to be computed (System.nanoTime), or {@link #NEVER}: whether it is quiet. */
    long computedAt = NEVER;
    /** While its burst goes on ({@link ComputeQueue}), when its latest record came (System.nanoTime). */
    long lastRecordAt;
    /** Each object's latest record not read yet, in the order they came ({@link UnreadRecords}); null while none. */
    LinkedHashMap<ObjectStateKey, UnreadRecords.Unread> unread;
    /**
     * The status last written and what the API server kept of it, when it kept less (a CRD whose status schema lacks
     * some of the fields: they are pruned), or the status last computed and null when this instance does not write
     * it ({@code aggregator.status.writer=eksa}, or stepped aside for another writer); both null otherwise.
     */
    private ClusterStatus lastWritten;
    private ClusterStatus keptOfIt;

    TrackedCluster(String clusterName, int partition) {
        this.state = new ClusterState(clusterName);
        this.partition = partition;
    }

    /**
     * What the Cluster shows, as the rules and the decision to write take it: the status last written when the Cluster
     * shows what the API server kept of it. Else every computation would find the pruned fields missing and write them
     * again, forever, each write an unchanged object. Where this instance does not write it, the status last computed,
     * whatever the Cluster shows (another controller's).
     */
    ClusterStatus shown(ClusterStatus shows) {
        return lastWritten != null && (keptOfIt == null || shows.equals(keptOfIt)) ? lastWritten : shows;
    }

    /**
     * Whether it holds the EKS-A Cluster {@code eksaCluster} (a name's cluster may hold another namespace's Cluster).
     */
    boolean holds(ObjectKey eksaCluster) {
        return state.cluster().map(c -> c.key().equals(eksaCluster)).orElse(false);
    }

    /** Write-back wrote {@code status}, and the API server kept {@code kept} of it; {@code kept} null: not written. */
    void written(ClusterStatus status, ClusterStatus kept) {
        boolean whole = status.equals(kept);
        lastWritten = whole ? null : status;
        keptOfIt = whole ? null : kept;
    }

    /**
     * What its EKS-A Cluster {@code eksa} shows, for the {@link ClusterObserver}: {@code unechoed}, the status this
     * instance wrote to it and whose echo has not come, else its own; its spec only if it can be read.
     */
    ClusterObserver.Shown shown(EksaCluster eksa, Optional<ClusterStatus> unechoed) {
        Optional<EksaClusterSpec> spec =
                state.malformed(ObjectKind.EKSA_CLUSTER, eksa.key()).isPresent()
                        ? Optional.empty()
                        : Optional.of(eksa.spec());
        return new ClusterObserver.Shown(eksa.key(), eksa.generation(), spec, unechoed.orElse(eksa.status()),
                state.capiCluster().flatMap(CapiCluster::remoteConnection).map(ObservedCondition::isTrue));
    }

    /**
     * {@code record} holding the names this cluster holds already for its object (from its record waiting, or its state
     * read), not those just parsed from the record's key: those die young, rather than being kept through a coalescing
     * window and then in the object read, for the collector to copy.
     */
    ObjectRecord.Unread sharingNames(ObjectRecord.Unread record) {
        ObjectStateKey parsed = record.key();
        UnreadRecords.Unread waiting = unread == null ? null : unread.get(parsed);
        if (waiting != null) {
            return new ObjectRecord.Unread(waiting.record().key(), record.value());
        }
        // The cluster name parsed is a new string each time, so the key is always made again with the cluster's own.
        ObjectKey held = state.keyOf(parsed.kind(), parsed.key());
        return new ObjectRecord.Unread(new ObjectStateKey(state.clusterName(), parsed.kind(), held), record.value());
    }
}
