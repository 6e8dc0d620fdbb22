package io.statusaggregator.aggregation;

import io.statusaggregator.aggregation.Action.ComputationFailed;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.aggregation.DeadLetters.Reason;
import io.statusaggregator.ingest.ObjectStateKey;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.Compatibility;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * The pure core of aggregation: the book it keeps on the clusters of its partitions. It takes what happened (a record
 * read, a partition assigned, rebuilt or revoked, a write's outcome, the time) and returns what to do about it
 * ({@link Action}: write a status, publish a change, announce a deletion, dead-letter the record); {@link Aggregator}
 * does it. No I/O and no clock of its own: instants are {@code System.nanoTime()} values passed in.
 *
 * <p>A partition is rebuilt first (its records applied without computing: the compacted topic holds every object's
 * latest state), then, once the status topic is read for it too, every cluster of it is computed once; from there on
 * each record marks its cluster: computed at once if quiet, else with the rest of its burst ({@link ComputeQueue}).
 * Most records are read only then, and only each object's latest ({@link UnreadRecords}). A status is written only
 * when it differs from the one the Cluster shows, counting the status written and not echoed yet as shown
 * ({@link PendingWrites}). A status the Cluster shows is published once, in order. Its {@link ClusterObserver} (the
 * per-cluster metrics) is told what each Cluster shows after each computation and write, and when one leaves.
 */
final class ClusterBook {
    /**
     * How many records may wait unread while partitions are rebuilt: each an object's latest, kept as bytes (about 1
     * KB).
     */
    static final int UNREAD_WHILE_REBUILDING = 50_000;

    /** How long a change the broker did not take waits before its cluster is computed and published again. */
    static final Duration REPUBLISH_AFTER = Duration.ofSeconds(1);

    private final BiFunction<ClusterSnapshot, Instant, ClusterStatus> rules;
    private final CoalescingWindow coalescing;
    private final long echoTimeoutNanos;
    private final PendingWrites<TrackedCluster> pending;
    /** Where the CAPI objects are, which EKS-A Clusters match by name. */
    private final String capiNamespace;
    private final AssignedPartitions partitions = new AssignedPartitions();
    /** Clusters with something not computed yet, and when each is due. */
    private final ComputeQueue dirty;
    private final ObjectRecord records = new ObjectRecord();
    private final UnreadRecords unread = new UnreadRecords();
    private final PublishedStatuses published = new PublishedStatuses();
    private int partitionCount = 1;
    private long assignments;
    /**
     * The compatibility data and management cluster the clusters were last computed with: when either changes, all are
     * again.
     */
    private Compatibility computedWith;

    private ManagementCluster managementComputedWith = ManagementCluster.UNKNOWN;
    private long computations;
    private long computationFailures;
    private ClusterObserver observer = ClusterObserver.NONE;
    private StatusOwnership ownership = new StatusOwnership(WantedWriter.AUTO, StatusOwnership.WINDOW);

    ClusterBook(CoalescingWindow coalescing, Duration echoTimeout, String capiNamespace) {
        this(coalescing, echoTimeout, capiNamespace, StatusRules::compute);
    }

    /** @param rules {@link StatusRules#compute}, or in tests rules that fail for a cluster */
    ClusterBook(CoalescingWindow coalescing, Duration echoTimeout, String capiNamespace,
            BiFunction<ClusterSnapshot, Instant, ClusterStatus> rules) {
        this.rules = rules;
        this.capiNamespace = capiNamespace;
        this.coalescing = coalescing;
        this.dirty = new ComputeQueue(coalescing.window());
        this.echoTimeoutNanos = echoTimeout.toNanos();
        this.pending = new PendingWrites<>(echoTimeout);
    }

    /** Tells {@code observer} what the Clusters show and when one leaves this instance. */
    void observedBy(ClusterObserver observer) {
        this.observer = observer;
    }

    /** Who writes the Clusters' statuses ({@link StatusOwnership}); before the first record. */
    void ownedAs(StatusOwnership ownership) {
        this.ownership = ownership;
    }

    /**
     * Partitions assigned, of {@code partitionCount}: each rebuilding until both read to its end ({@link #rebuilt}) and
     * the status topic read for it ({@link #statusesRead}); returns the number of this assignment, for the latter.
     */
    long assigned(Collection<Integer> numbers, int partitionCount) {
        this.partitionCount = partitionCount;
        long assignment = ++assignments;
        published.forget(numbers, partitionCount);
        numbers.forEach(number -> {
            unread.revoked(number); // read again from its beginning: nothing of an earlier assignment is left unread
            partitions.add(new AssignedPartition(number, assignment, capiNamespace));
        });
        return assignment;
    }

    /**
     * The status topic read for assignment {@code assignment}: its last status of each cluster (namespace/name); those
     * of that assignment's partitions still assigned are what was published. A partition already read to its end
     * goes live now.
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
        partition.clusters.values().forEach(dirty::atOnce);
        List<Action> actions = new ArrayList<>();
        for (ObjectKey cluster : published.clustersOf(partition.number, partitionCount)) {
            if (partition.holders.holding(cluster) == null) {
                published.deletion(cluster, published.get(cluster).orElseThrow().observedGeneration())
                        .ifPresent(actions::add);
            }
        }
        return actions;
    }

    /** Partitions revoked or lost: their clusters are forgotten, and whatever was pending for them. */
    void revoked(Collection<Integer> numbers) {
        for (Integer number : numbers) {
            AssignedPartition partition = partitions.remove(number);
            unread.revoked(number);
            if (partition != null) {
                // One by one: removeAll would look each member of the set up in the map's values, a linear search.
                partition.clusters.values().forEach(c -> {
                    dirty.remove(c);
                    pending.forget(c);
                    c.state.cluster().ifPresent(eksa -> {
                        observer.left(eksa.key());
                        records.forget(eksa.key());
                    });
                });
            }
        }
    }

    /**
     * A record of partition {@code number} at {@code offset}: its key and value bytes, and {@code origin}, what the
     * shell makes a dead letter of it from (handed back in a {@link DeadLetter}). The value of a Machine,
     * MachineDeployment or KubeadmControlPlane is read when its cluster is computed, and only if it is its object's
     * latest ({@link UnreadRecords}); while a partition is rebuilt, at most {@link #UNREAD_WHILE_REBUILDING} wait so.
     */
    List<Action> apply(int number, long offset, byte[] key, ByteBuffer value, Object origin, long now) {
        AssignedPartition partition = partitions.get(number);
        if (partition == null) {
            return List.of(); // revoked while the batch was in flight
        }
        ObjectRecord.Read read = records.readLater(key, value);
        if (read instanceof ObjectRecord.Unread later) {
            TrackedCluster cluster = partition.tracked(later.key().clusterName());
            unread.add(number, cluster, new UnreadRecords.Unread(cluster.sharingNames(later), offset, origin));
            if (partition.live) {
                dirty.record(cluster, now);
                return List.of();
            }
            return unread.size() > UNREAD_WHILE_REBUILDING ? readOldest(partition) : List.of();
        }
        Optional<ObjectStateKey> named = ObjectRecord.objectOf(read);
        List<Action> actions = applyRead(partition, read, origin);
        TrackedCluster cluster = named.map(k -> trackedOf(partition, k)).orElse(null);
        if (partition.live && cluster != null) {
            dirty.record(cluster, now);
        }
        return actions;
    }

    /**
     * While rebuilding, too many records wait to be read (each object's latest, kept as bytes until the partition is
     * rebuilt): the oldest clusters' are read now, without computing, until half as many wait.
     */
    private List<Action> readOldest(AssignedPartition partition) {
        List<Action> actions = new ArrayList<>();
        while (unread.size() > UNREAD_WHILE_REBUILDING / 2) {
            TrackedCluster oldest = unread.oldestCluster(partition.number).orElse(null);
            if (oldest == null) {
                break; // the rest are other partitions': they read theirs
            }
            actions.addAll(readUnread(partition, oldest));
        }
        return actions;
    }

    /**
     * Reads {@code cluster}'s records left unread, in the order they came; one may take the cluster away (not JSON).
     */
    private List<Action> readUnread(AssignedPartition partition, TrackedCluster cluster) {
        List<Action> actions = new ArrayList<>(0);
        for (Optional<UnreadRecords.Taken> next; (next = unread.next(cluster)).isPresent(); ) {
            actions.addAll(applyRead(partition, records.read(next.get().record()), next.get().origin()));
        }
        return actions;
    }

    private List<Action> applyRead(AssignedPartition partition, ObjectRecord.Read read, Object origin) {
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
            observer.left(key);
        }
        return actions;
    }

    private List<Action> applyTo(AssignedPartition partition, ObjectRecord.Read read, Object origin) {
        if (read instanceof ObjectRecord.BadKey bad) {
            return List.of(new DeadLetter(Reason.UNKNOWN_KEY, bad.error(), origin));
        } else if (read instanceof ObjectRecord.OtherKind other) {
            return List.of(new DeadLetter(Reason.UNKNOWN_KIND, other.error(), origin));
        } else if (read instanceof ObjectRecord.Deleted deleted) {
            TrackedCluster cluster = trackedOf(partition, deleted.key());
            return cluster == null ? List.of() : removed(partition, cluster, deleted.key());
        }
        List<Action> actions = List.of();
        if (read instanceof ObjectRecord.Readable readable) {
            TrackedCluster cluster = readable.object() instanceof EksaCluster eksa
                    ? partition.holders.trackedFor(eksa.key()) : partition.tracked(readable.key().clusterName());
            if (readable.object() instanceof EksaCluster eksa) {
                pending.shown(cluster, eksa.status());
            }
            cluster.state.put(readable.object());
        } else if (read instanceof ObjectRecord.NotJson notJson) {
            TrackedCluster cluster = trackedOf(partition, notJson.key());
            if (cluster != null) {
                cluster.state.remove(notJson.key().kind(), notJson.key().key()); // what it held before no longer holds
                forgetIfEmpty(partition, cluster);
            }
            actions = List.of(new DeadLetter(Reason.NOT_JSON, notJson.error(), origin));
        } else {
            ObjectRecord.Unreadable unreadable = (ObjectRecord.Unreadable) read;
            TrackedCluster cluster = unreadable.standIn().map(eksa -> partition.holders.trackedFor(eksa.key()))
                    .orElseGet(() -> partition.tracked(unreadable.key().clusterName()));
            unreadable.standIn().ifPresent(eksa -> pending.shown(cluster, eksa.status()));
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
            pending.forget(moved); // a status in flight was computed for another Cluster, or without the conflict
            if (partition.live) {
                dirty.atOnce(moved);
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
            pending.forget(cluster);
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
            dirty.remove(cluster);
            pending.forget(cluster);
        }
    }

    /**
     * What is due at {@code now}: echoes not come within their timeout (the Cluster's own status is trusted again),
     * every cluster again when the compatibility data or the management cluster changed, and the clusters whose
     * oldest uncomputed record is a coalescing window old ({@code backlog}: {@link #backlog}), computed at
     * {@code instant}.
     */
    List<Action> due(long now, long backlog, Compatibility inForce, ManagementCluster management, Instant instant) {
        if (computedWith != null && (inForce != computedWith || !management.equals(managementComputedWith))) {
            partitions.all().stream().filter(p -> p.live).forEach(p -> p.clusters.values().forEach(dirty::atOnce));
        }
        computedWith = inForce;
        managementComputedWith = management;
        pending.expire(now).forEach(dirty::atOnce);
        List<Action> actions = new ArrayList<>();
        for (TrackedCluster cluster : dirty.due(now, coalescing.nanos(backlog))) {
            AssignedPartition partition = partitions.get(cluster.partition);
            try {
                actions.addAll(partition == null ? List.of() : readUnread(partition, cluster)); // revoked: forgotten
                if (partition != null && partition.clusters.get(cluster.state.clusterName()) == cluster) {
                    compute(cluster, instant, now, actions).ifPresent(actions::add);
                }
            } catch (RuntimeException fault) { // a bug: the other clusters are computed on, this one on its next record
                computationFailures++;
                actions.add(new ComputationFailed(
                        cluster.state.cluster().map(c -> c.key().toString()).orElse(cluster.state.clusterName()),
                        fault));
            }
        }
        return actions;
    }

    Duration untilDue(long now, Duration longest) {
        return dirty.untilDue(now, longest);
    }

    /** The offset of partition {@code number}'s oldest record not read yet (its cluster not computed yet), if any. */
    OptionalLong unreadFrom(int number) {
        return unread.oldest(number);
    }

    /** {@code cluster} computed at {@code instant}: its write or publication; a step aside goes to {@code actions}. */
    private Optional<Action> compute(TrackedCluster cluster, Instant instant, long now, List<Action> actions) {
        Optional<EksaCluster> eksa = cluster.state.cluster();
        if (eksa.isEmpty()) {
            return Optional.empty(); // CAPI objects whose EKS-A Cluster has not been seen (yet)
        }
        Optional<ClusterStatus> writing = pending.pending(cluster);
        ClusterStatus shown = cluster.shown(writing.orElse(eksa.get().status()));
        ClusterSnapshot snapshot = cluster.state.snapshot(computedWith, managementComputedWith).orElseThrow()
                .showing(VersionHistorySource.continued(shown, writing, published.get(eksa.get().key())));
        ClusterStatus computed = rules.apply(snapshot, instant);
        computations++;
        observer.shows(cluster.shown(eksa.get(), pending.unechoed(cluster))); // a status being written is not shown yet
        if (computed.equals(shown)) {
            return writing.isPresent() ? Optional.empty() : publish(cluster, eksa.get(), computed);
        }
        if (writing.isEmpty() && !ownership.writes(cluster, eksa.get(), computed, now, actions)) {
            return publish(cluster, eksa.get(), computed); // not written: its verdict, for the feeds
        }
        pending.submitted(cluster, computed);
        return Optional.of(new WriteStatus(eksa.get().key(), computed, eksa.get().resourceVersion()));
    }

    /**
     * Write-back wrote {@code status}, the API server kept {@code kept} of it: the change is published, the echo
     * awaited.
     */
    List<Action> written(ObjectKey key, ClusterStatus status, ClusterStatus kept, long now) {
        TrackedCluster cluster = partitions.holding(key, partitionCount);
        if (cluster == null) {
            return List.of();
        }
        Optional<EksaCluster> eksa = cluster.state.cluster();
        cluster.written(status, kept);
        ownership.wrote(key, kept);
        pending.written(cluster, status, kept, eksa.map(c -> c.status().equals(kept)).orElse(false), now);
        eksa.ifPresent(c -> observer.shows(cluster.shown(c, pending.unechoed(cluster))));
        return eksa.flatMap(c -> publish(cluster, c, status)).<List<Action>>map(List::of).orElse(List.of());
    }

    /**
     * Write-back found the Cluster deleted: its tombstone follows on the topic. It is not computed meanwhile, and its
     * deletion is announced now (the tombstone will find nothing left to announce).
     */
    List<Action> gone(ObjectKey key) {
        TrackedCluster cluster = partitions.holding(key, partitionCount);
        if (cluster == null) {
            return List.of();
        }
        long generation = cluster.state.cluster().orElseThrow().generation(); // it holds the Cluster of key
        cluster.state.remove(ObjectKind.EKSA_CLUSTER, key);
        pending.forget(cluster);
        observer.left(key);
        settle(partitions.get(cluster.partition), key.name());
        return published.deletion(key, generation).<List<Action>>map(List::of).orElse(List.of());
    }

    /**
     * Write-back did not write {@code status}: the Cluster changed since {@code basis}, the version it was computed
     * from. Computed again at once if a newer state is here; else when its next state comes, or an echo timeout later.
     */
    void conflicted(ObjectKey key, ClusterStatus status, String basis, long now) {
        TrackedCluster cluster = partitions.holding(key, partitionCount);
        if (cluster != null) {
            pending.unwritten(cluster, status);
            if (cluster.state.cluster().filter(c -> !c.resourceVersion().equals(basis)).isPresent()) {
                dirty.atOnce(cluster);
            } else {
                dirty.asOf(cluster, now + echoTimeoutNanos - coalescing.window().toNanos());
            }
        }
    }

    /** Write-back refused for good: the Cluster's own status is the truth again. */
    void refused(ObjectKey key) {
        Optional.ofNullable(partitions.holding(key, partitionCount)).ifPresent(pending::forget);
    }

    /**
     * The broker did not take a change published as {@code status} (its event, or its status record). Unless a newer
     * status was published since, the change is taken back and its cluster computed again {@link #REPUBLISH_AFTER}
     * later, when it goes out again (under the same event id).
     *
     * @return whether it is taken back
     */
    boolean unpublished(ObjectKey key, Optional<ClusterStatus> before, ClusterStatus status, long now) {
        if (!published.takeBack(key, before, status)) {
            return false;
        }
        TrackedCluster cluster = partitions.holding(key, partitionCount);
        if (cluster != null) {
            dirty.asOf(cluster, now + REPUBLISH_AFTER.toNanos() - coalescing.window().toNanos());
        }
        return true;
    }

    /** Whether {@code cluster} has a published status: after its deletion was announced, that it is back. */
    boolean isPublished(ObjectKey cluster) {
        return published.get(cluster).isPresent();
    }

    private Optional<Action> publish(TrackedCluster cluster, EksaCluster eksa, ClusterStatus status) {
        return published.change(eksa, status, () -> cluster.state.snapshot(computedWith, managementComputedWith));
    }

    boolean live(int number) {
        return partitions.live(number);
    }

    long backlog(Map<Integer, Long> waiting) {
        return partitions.backlog(waiting);
    }

    boolean live() {
        return partitions.allLive();
    }

    /** Rebuilt, every record computed, every written status echoed: nothing left in flight. */
    boolean settled() {
        return live() && dirty.isEmpty() && pending.isEmpty();
    }

    int tracked() {
        return partitions.tracked();
    }

    long computations() {
        return computations;
    }

    /** Computations that failed on a fault ({@link ComputationFailed}). */
    long computationFailures() {
        return computationFailures;
    }

    /** Where the book stands, in words. */
    String progress() {
        return "partitions " + partitions + (live() ? " rebuilt" : " rebuilding") + ", " + tracked() + " clusters, "
                + dirty.size() + " to compute (" + unread.size() + " records not read yet), " + pending.beingWritten()
                + " writes under way, " + pending.awaitingEcho() + " writes awaiting their echo";
    }
}
