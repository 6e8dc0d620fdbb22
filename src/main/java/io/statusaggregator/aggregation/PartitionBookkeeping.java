package io.statusaggregator.aggregation;

import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Pure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The {@link ClusterBook}'s bookkeeping of its partitions: which are assigned and how far each is rebuilt, the
 * clusters each tracks ({@link AssignedPartition}, {@link NameHolders}) and the records applied to them, most kept
 * unread until their cluster is computed ({@link UnreadRecords}). It tells the {@link ComputeSchedule} which cluster
 * a record marks and the {@link StatusLedger} what the Clusters show; deletions and dead letters it returns as
 * {@link Action}s. Pure.
 */
@Pure
final class PartitionBookkeeping {
    /** Where the CAPI objects are, which EKS-A Clusters match by name. */
    private final String capiNamespace;
    private final ComputeSchedule schedule;
    private final StatusLedger ledger;
    private final PublishedStatuses published;
    private final AssignedPartitions partitions = new AssignedPartitions();
    private final ObjectRecord records = new ObjectRecord();
    private final UnreadRecords unread = new UnreadRecords();
    private int partitionCount = 1;
    private long assignments;

    PartitionBookkeeping(String capiNamespace, ComputeSchedule schedule, StatusLedger ledger,
            PublishedStatuses published) {
        this.capiNamespace = capiNamespace;
        this.schedule = schedule;
        this.ledger = ledger;
        this.published = published;
    }

    /** Partitions assigned: each rebuilding; the status topic to read for them, as this assignment. */
    List<Action> assigned(Collection<Integer> numbers, int partitionCount) {
        this.partitionCount = partitionCount;
        long assignment = ++assignments;
        published.forget(numbers, partitionCount);
        numbers.forEach(number -> {
            unread.revoked(number); // read again from its beginning: nothing of an earlier assignment is left unread
            partitions.add(new AssignedPartition(number, assignment, capiNamespace));
        });
        return List.of(new Action.ReadStatuses(assignment));
    }

    /**
     * The status topic read for assignment {@code assignment}: those of its partitions still assigned have what was
     * published. A partition already read to its end goes live now.
     */
    List<Action> statusesRead(long assignment, Map<String, ClusterStatus> statusTopic) {
        List<AssignedPartition> reading = partitions.readingStatuses(assignment);
        published.read(reading.stream().map(p -> p.number).toList(), partitionCount, statusTopic);
        List<Action> actions = new ArrayList<>();
        for (AssignedPartition partition : reading) {
            partition.statusesRead = true;
            actions.addAll(liveIfReady(partition));
        }
        return actions;
    }

    /** A partition read to the end it had when assigned: live now, if the status topic was read for it. */
    List<Action> rebuilt(int number) {
        AssignedPartition partition = partitions.get(number);
        if (partition == null || partition.readToEnd) {
            return List.of();
        }
        partition.readToEnd = true;
        return liveIfReady(partition);
    }

    /**
     * A partition goes live: every cluster of it is computed once, and a cluster with a published status but no
     * Cluster left (deleted while no instance owned the partition) is announced deleted.
     */
    private List<Action> liveIfReady(AssignedPartition partition) {
        if (!partition.readToEnd || !partition.statusesRead) {
            return List.of();
        }
        partition.live = true;
        partition.clusters.values().forEach(schedule::atOnce);
        List<Action> actions = new ArrayList<>();
        for (ObjectKey cluster : published.clustersOf(partition.number, partitionCount)) {
            if (partition.holders.holding(cluster) == null) {
                published.deletion(cluster, published.get(cluster).orElseThrow().observedGeneration())
                        .ifPresent(actions::add);
            }
        }
        return actions;
    }

    /** Partitions revoked or lost: their clusters are forgotten (and leave), and whatever was pending for them. */
    List<Action> revoked(Collection<Integer> numbers) {
        List<Action> actions = new ArrayList<>();
        for (Integer number : numbers) {
            AssignedPartition partition = partitions.remove(number);
            unread.revoked(number);
            if (partition != null) {
                // One by one: removeAll would look each member of the set up in the map's values, a linear search.
                partition.clusters.values().forEach(c -> {
                    schedule.remove(c);
                    ledger.forget(c);
                    c.state.cluster().ifPresent(eksa -> {
                        ledger.left(eksa.key(), actions);
                        records.forget(eksa.key());
                    });
                });
            }
        }
        return actions;
    }

    /**
     * A record read. The value of a Machine, MachineDeployment or KubeadmControlPlane is read when its cluster is
     * computed, and only if it is its object's latest ({@link UnreadRecords}); while a partition is rebuilt, at most
     * {@link ClusterBook#UNREAD_WHILE_REBUILDING} wait so.
     */
    List<Action> apply(SourceRecord record, long now) {
        AssignedPartition partition = partitions.get(record.partition());
        if (partition == null) {
            return List.of(); // revoked while the batch was in flight
        }
        ObjectRecord.Read read = records.readLater(record.key(), record.value());
        if (read instanceof ObjectRecord.Unread later) {
            TrackedCluster cluster = partition.tracked(later.key().clusterName());
            unread.add(partition.number, cluster,
                    new UnreadRecords.Unread(cluster.sharingNames(later), record.offset(), record));
            if (partition.live) {
                schedule.record(cluster, now);
                return List.of();
            }
            return unread.size() > ClusterBook.UNREAD_WHILE_REBUILDING ? readOldest(partition) : List.of();
        }
        Optional<ObjectStateKey> named = ObjectRecord.objectOf(read);
        List<Action> actions = applyRead(partition, read, record);
        TrackedCluster cluster = named.map(k -> trackedOf(partition, k)).orElse(null);
        if (partition.live && cluster != null) {
            schedule.record(cluster, now);
        }
        return actions;
    }

    /**
     * While rebuilding, too many records wait to be read (each object's latest, kept as bytes until the partition is
     * rebuilt): the oldest clusters' are read now, without computing, until half as many wait.
     */
    private List<Action> readOldest(AssignedPartition partition) {
        List<Action> actions = new ArrayList<>();
        while (unread.size() > ClusterBook.UNREAD_WHILE_REBUILDING / 2) {
            TrackedCluster oldest = unread.oldestCluster(partition.number).orElse(null);
            if (oldest == null) {
                break; // the rest are other partitions': they read theirs
            }
            actions.addAll(readUnread(partition, oldest));
        }
        return actions;
    }

    /**
     * Before {@code cluster} is computed: its records left unread are read, to {@code actions}; returns whether it is
     * still tracked then (one may take it away, and a revoked partition's are forgotten).
     */
    boolean readBeforeComputing(TrackedCluster cluster, List<Action> actions) {
        AssignedPartition partition = partitions.get(cluster.partition);
        if (partition == null) {
            return false;
        }
        actions.addAll(readUnread(partition, cluster));
        return partition.clusters.get(cluster.state.clusterName()) == cluster;
    }

    /** Reads {@code cluster}'s records left unread, in the order they came. */
    private List<Action> readUnread(AssignedPartition partition, TrackedCluster cluster) {
        List<Action> actions = new ArrayList<>(0);
        for (Optional<UnreadRecords.Taken> next; (next = unread.next(cluster)).isPresent(); ) {
            actions.addAll(applyRead(partition, records.read(next.get().record()), next.get().origin()));
        }
        return actions;
    }

    private List<Action> applyRead(AssignedPartition partition, ObjectRecord.Read read, SourceRecord origin) {
        Optional<ObjectStateKey> eksaKey = ObjectRecord.objectOf(read).filter(k -> k.kind() == ObjectKind.EKSA_CLUSTER);
        if (eksaKey.isEmpty()) {
            return applyTo(partition, read, origin);
        }
        // A record of an EKS-A Cluster may take it away (deleted, not JSON), or move Clusters of its name.
        ObjectKey key = eksaKey.get().key();
        boolean heldBefore = partition.holders.holding(key) != null;
        List<Action> actions = applyTo(partition, read, origin);
        settle(partition, key.name());
        if (heldBefore && partition.holders.holding(key) == null) {
            actions = new ArrayList<>(actions);
            ledger.left(key, actions);
        }
        return actions;
    }

    private List<Action> applyTo(AssignedPartition partition, ObjectRecord.Read read, SourceRecord origin) {
        if (read instanceof ObjectRecord.BadKey bad) {
            return List.of(new DeadLetter(DeadLetterReason.UNKNOWN_KEY, bad.error(), origin));
        } else if (read instanceof ObjectRecord.OtherKind other) {
            return List.of(new DeadLetter(DeadLetterReason.UNKNOWN_KIND, other.error(), origin));
        } else if (read instanceof ObjectRecord.Deleted deleted) {
            TrackedCluster cluster = trackedOf(partition, deleted.key());
            return cluster == null ? List.of() : removed(partition, cluster, deleted.key());
        }
        List<Action> actions = List.of();
        if (read instanceof ObjectRecord.Readable readable) {
            TrackedCluster cluster = readable.object() instanceof EksaCluster eksa
                    ? partition.holders.trackedFor(eksa.key()) : partition.tracked(readable.key().clusterName());
            if (readable.object() instanceof EksaCluster eksa) {
                ledger.shown(cluster, eksa.status());
            }
            cluster.state.put(readable.object());
        } else if (read instanceof ObjectRecord.NotJson notJson) {
            TrackedCluster cluster = trackedOf(partition, notJson.key());
            if (cluster != null) {
                cluster.state.remove(notJson.key().kind(), notJson.key().key()); // what it held before no longer holds
                forgetIfEmpty(partition, cluster);
            }
            actions = List.of(new DeadLetter(DeadLetterReason.NOT_JSON, notJson.error(), origin));
        } else {
            ObjectRecord.Unreadable unreadable = (ObjectRecord.Unreadable) read;
            TrackedCluster cluster = unreadable.standIn().map(eksa -> partition.holders.trackedFor(eksa.key()))
                    .orElseGet(() -> partition.tracked(unreadable.key().clusterName()));
            unreadable.standIn().ifPresent(eksa -> ledger.shown(cluster, eksa.status()));
            Optional<?> before = cluster.state.putMalformed(unreadable.problem(), unreadable.standIn());
            // While it stays unreadable in the same way, its next states (a Machine's status, the echo of the status
            // written about it) say nothing new: its cluster's status keeps saying it.
            if (!before.equals(Optional.of(unreadable.problem()))) {
                actions = List.of(unreadable.deadLetter(origin));
            }
        }
        return actions;
    }

    /** After a Cluster named {@code name} changed: which holds the name; those moved or told are computed again. */
    private void settle(AssignedPartition partition, String name) {
        NameHolders.Moves moves = partition.holders.settle(name);
        moves.emptied().forEach(emptied -> forgetIfEmpty(partition, emptied));
        for (TrackedCluster moved : moves.changed()) {
            ledger.forget(moved); // a status in flight was computed for another Cluster, or without the conflict
            if (partition.live) {
                schedule.atOnce(moved);
            }
        }
    }

    /** The tracked cluster of the object {@code key} names, if it has one. */
    private static TrackedCluster trackedOf(AssignedPartition partition, ObjectStateKey key) {
        return key.kind() == ObjectKind.EKSA_CLUSTER ? partition.holders.holding(key.key())
                : partition.clusters.get(key.clusterName());
    }

    private List<Action> removed(AssignedPartition partition, TrackedCluster cluster, ObjectStateKey key) {
        unread.deleted(cluster, key); // its record not read yet, if any, never will be
        Optional<EksaCluster> before = cluster.state.cluster();
        cluster.state.remove(key.kind(), key.key());
        List<Action> actions = List.of();
        if (key.kind() == ObjectKind.EKSA_CLUSTER && before.isPresent() && cluster.state.cluster().isEmpty()) {
            ledger.forget(cluster);
            // While rebuilding, the partition's end decides (rebuilt): the Cluster may be back by then.
            if (partition.live) {
                actions = published.deletion(key.key(), before.get().generation()).<List<Action>>map(List::of)
                        .orElse(List.of());
            }
        }
        forgetIfEmpty(partition, cluster);
        return actions;
    }

    private void forgetIfEmpty(AssignedPartition partition, TrackedCluster cluster) {
        if (cluster.state.isEmpty() && !UnreadRecords.any(cluster)) {
            partition.clusters.remove(cluster.state.clusterName());
            schedule.remove(cluster);
            ledger.forget(cluster);
        }
    }

    /**
     * Write-back found the Cluster {@code key}, which {@code cluster} holds, deleted: it is taken out (and leaves),
     * its deletion announced now (its tombstone will find nothing left to announce).
     */
    List<Action> gone(TrackedCluster cluster, ObjectKey key) {
        long generation = cluster.state.cluster().orElseThrow().generation(); // it holds the Cluster of key
        cluster.state.remove(ObjectKind.EKSA_CLUSTER, key);
        ledger.forget(cluster);
        List<Action> actions = new ArrayList<>(2);
        ledger.left(key, actions);
        settle(partitions.get(cluster.partition), key.name());
        published.deletion(key, generation).ifPresent(actions::add);
        return actions;
    }

    /** The tracked cluster that holds EKS-A Cluster {@code key}, or null. */
    TrackedCluster holding(ObjectKey key) {
        return partitions.holding(key, partitionCount);
    }

    /** Every cluster of the live partitions computed at once: what they are computed with changed. */
    void computeAllLive() {
        partitions.all().stream().filter(p -> p.live).forEach(p -> p.clusters.values().forEach(schedule::atOnce));
    }

    /** The offset of partition {@code number}'s oldest record not read yet (its cluster not computed yet), if any. */
    OptionalLong unreadFrom(int number) {
        return unread.oldest(number);
    }

    boolean live(int number) {
        return partitions.live(number);
    }

    boolean allLive() {
        return partitions.allLive();
    }

    long backlog(Map<Integer, Long> waiting) {
        return partitions.backlog(waiting);
    }

    int tracked() {
        return partitions.tracked();
    }

    /** Where the partitions stand, in words. */
    String progress() {
        return "partitions " + partitions + (allLive() ? " rebuilt" : " rebuilding") + ", " + tracked() + " clusters";
    }

    /** Records not read yet, of every partition. */
    int unreadRecords() {
        return unread.size();
    }
}
