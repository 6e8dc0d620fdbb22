package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import io.statusaggregator.topics.ObjectStateKey;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The records kept as bytes until their cluster is computed: those of Machines, MachineDeployments and
 * KubeadmControlPlanes, most records, whose reading was half of the aggregation thread's work. Then only each
 * object's latest record is read. One it replaced is never read, as compaction would have removed it from the topic
 * (which keeps only each key's latest record): it is neither computed nor dead-lettered. In a fleet-wide upgrade a
 * MachineDeployment's status changes several times within one coalescing window; and a rebuild reads the part of the
 * topic not compacted yet (up to a day of it, {@code segment.ms}), where an object can have many records.
 *
 * <p>Per partition it knows the offset of the oldest record not read yet: the group's committed offset stops there, so
 * that a record not judged yet is judged by the next owner of the partition. Pure; on the aggregation thread only.
 */
@Pure
final class UnreadRecords {
    /**
     * A record not read yet, at {@code offset}; {@code origin} is what a dead letter of it is made from. Linked to its
     * partition's records before and after it: one read, replaced or forgotten leaves the chain at once, so that
     * nothing of it is kept until the records before it are read (under a backlog that was most records of a coalescing
     * window, copied by the collector with the rest).
     */
    static final class Unread {
        private ObjectRecord.Unread record;
        private SourceRecord origin;
        private final long offset;
        private TrackedCluster cluster;
        private Chain chain;
        private Unread older;
        private Unread newer;

        Unread(ObjectRecord.Unread record, long offset, SourceRecord origin) {
            this.record = record;
            this.offset = offset;
            this.origin = origin;
        }

        ObjectRecord.Unread record() {
            return record;
        }

        SourceRecord origin() {
            return origin;
        }

        /** Read, replaced or forgotten: its bytes need not be kept. */
        private void done(UnreadRecords records) {
            if (record == null) {
                return;
            }
            if (older == null) {
                chain.oldest = newer;
            } else {
                older.newer = newer;
            }
            if (newer == null) {
                chain.newest = older;
            } else {
                newer.older = older;
            }
            record = null;
            origin = null;
            cluster = null;
            chain = null;
            older = null;
            newer = null;
            records.pending--;
        }
    }

    /** A partition's records not read yet, oldest first. */
    private static final class Chain {
        private Unread oldest;
        private Unread newest;
    }

    /** A record taken to be read now, and what a dead letter of it is made from. */
    record Taken(ObjectRecord.Unread record, SourceRecord origin) {
    }

    private int pending;

    private final Map<Integer, Chain> byPartition = new HashMap<>();

    /** A record of {@code cluster} in partition {@code partition}; it replaces the unread one of its object, if any. */
    void add(int partition, TrackedCluster cluster, Unread unread) {
        if (cluster.unread == null) {
            cluster.unread = new LinkedHashMap<>(4);
        }
        unread.cluster = cluster;
        Unread replaced = cluster.unread.put(unread.record().key(), unread);
        if (replaced != null) {
            replaced.done(this);
        }
        Chain chain = byPartition.computeIfAbsent(partition, p -> new Chain());
        unread.chain = chain;
        unread.older = chain.newest;
        if (chain.newest == null) {
            chain.oldest = unread;
        } else {
            chain.newest.newer = unread;
        }
        chain.newest = unread;
        pending++;
    }

    /** The object's deletion: its unread record, if any, will not be read. */
    void deleted(TrackedCluster cluster, ObjectStateKey key) {
        Unread unread = cluster.unread == null ? null : cluster.unread.remove(key);
        if (unread != null) {
            unread.done(this);
        }
    }

    /** Takes the next of {@code cluster}'s records to read, in the order they came; empty when none is left. */
    Optional<Taken> next(TrackedCluster cluster) {
        if (cluster.unread == null || cluster.unread.isEmpty()) {
            cluster.unread = null;
            return Optional.empty();
        }
        Iterator<Unread> it = cluster.unread.values().iterator();
        Unread next = it.next();
        it.remove();
        Taken taken = new Taken(next.record, next.origin);
        next.done(this);
        return Optional.of(taken);
    }

    /** Whether {@code cluster} has records not read yet. */
    static boolean any(TrackedCluster cluster) {
        return cluster.unread != null && !cluster.unread.isEmpty();
    }

    /** The offset of partition {@code partition}'s oldest record not read yet, if any. */
    OptionalLong oldest(int partition) {
        Chain chain = byPartition.get(partition);
        return chain == null || chain.oldest == null ? OptionalLong.empty() : OptionalLong.of(chain.oldest.offset);
    }

    /** The cluster of partition {@code partition}'s oldest record not read yet, if any. */
    Optional<TrackedCluster> oldestCluster(int partition) {
        Chain chain = byPartition.get(partition);
        return chain == null || chain.oldest == null ? Optional.empty() : Optional.of(chain.oldest.cluster);
    }

    /** The partition is revoked: its records are forgotten with its clusters. */
    void revoked(int partition) {
        Chain chain = byPartition.remove(partition);
        while (chain != null && chain.oldest != null) {
            chain.oldest.done(this);
        }
    }

    /** Records not read yet, in every partition. */
    int size() {
        return pending;
    }
}
