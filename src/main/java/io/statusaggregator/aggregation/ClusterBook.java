package io.statusaggregator.aggregation;

import io.statusaggregator.aggregation.Action.ComputationFailed;
import io.statusaggregator.aggregation.Action.DeadLetter;
import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.aggregation.BookEvent.Assigned;
import io.statusaggregator.aggregation.BookEvent.Conflicted;
import io.statusaggregator.aggregation.BookEvent.Gone;
import io.statusaggregator.aggregation.BookEvent.RecordRead;
import io.statusaggregator.aggregation.BookEvent.Rebuilt;
import io.statusaggregator.aggregation.BookEvent.Refused;
import io.statusaggregator.aggregation.BookEvent.Revoked;
import io.statusaggregator.aggregation.BookEvent.StatusesRead;
import io.statusaggregator.aggregation.BookEvent.TimePassed;
import io.statusaggregator.aggregation.BookEvent.Unpublished;
import io.statusaggregator.aggregation.BookEvent.Written;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import io.statusaggregator.rules.StatusRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * The pure core of aggregation: the book it keeps on the clusters of its partitions. Every input is a
 * {@link BookEvent} (a partition assigned, rebuilt or revoked, a record read, a write's outcome, a change the broker
 * refused, the time) and every decision an {@link Action} (write a status, publish a change, announce a deletion,
 * dead-letter a record, read the status topic, tell the observer); {@link ActionExecutor} carries them out. No I/O and
 * no clock of its own: instants are {@code System.nanoTime()} values passed in.
 *
 * <p>Three parts, each of one concern: {@link PartitionBookkeeping}, the partitions and the records applied to their
 * clusters; {@link ComputeSchedule}, when each cluster is computed; {@link StatusLedger}, what each cluster computes
 * to, what is written to it and what the feeds have of it. This class routes the events to them, and runs what is due.
 *
 * <p>A partition is rebuilt first (its records applied without computing: the compacted topic holds every object's
 * latest state), then, once the status topic is read for it too, every cluster of it is computed once; from there on
 * each record marks its cluster: computed at once if quiet, else with the rest of its burst ({@link ComputeQueue}).
 * Most records are read only then, and only each object's latest ({@link UnreadRecords}). A status is written only
 * when it differs from the one the Cluster shows, counting the status written and not echoed yet as shown
 * ({@link PendingWrites}). A status the Cluster shows is published once, in order. What each Cluster shows goes to the
 * {@link ClusterObserver} (the per-cluster metrics) after each computation and write, and when one leaves.
 */
@Pure
final class ClusterBook {
    /**
     * How many records may wait unread while partitions are rebuilt: each an object's latest, kept as bytes (about 1
     * KB).
     */
    static final int UNREAD_WHILE_REBUILDING = 50_000;

    /** How long a change the broker did not take waits before its cluster is computed and published again. */
    static final Duration REPUBLISH_AFTER = Duration.ofSeconds(1);

    private final ComputeSchedule schedule;
    private final StatusLedger ledger;
    private final PartitionBookkeeping partitions;

    ClusterBook(CoalescingWindow coalescing, Duration echoTimeout, String capiNamespace) {
        this(coalescing, echoTimeout, capiNamespace, StatusRules::compute);
    }

    /** @param rules {@link StatusRules#compute}, or in tests rules that fail for a cluster */
    ClusterBook(CoalescingWindow coalescing, Duration echoTimeout, String capiNamespace,
            BiFunction<ClusterSnapshot, Instant, ClusterStatus> rules) {
        PublishedStatuses published = new PublishedStatuses();
        this.schedule = new ComputeSchedule(coalescing, echoTimeout);
        this.ledger = new StatusLedger(rules, schedule, new PendingWrites<>(echoTimeout), published);
        this.partitions = new PartitionBookkeeping(capiNamespace, schedule, ledger, published);
    }

    /** Who writes the Clusters' statuses ({@link StatusOwnership}); before the first event. */
    void ownedAs(StatusOwnership ownership) {
        ledger.ownedAs(ownership);
    }

    /** What to do about {@code event}, in order. */
    List<Action> on(BookEvent event) {
        if (event instanceof RecordRead read) { // the most frequent first
            return partitions.apply(read.record(), read.now());
        } else if (event instanceof TimePassed time) {
            return due(time);
        } else if (event instanceof Written written) {
            return written(written);
        } else if (event instanceof Assigned assigned) {
            return partitions.assigned(assigned.numbers(), assigned.partitionCount());
        } else if (event instanceof StatusesRead read) {
            return partitions.statusesRead(read.assignment(), read.statuses());
        } else if (event instanceof Rebuilt rebuilt) {
            return partitions.rebuilt(rebuilt.number());
        } else if (event instanceof Revoked revoked) {
            return partitions.revoked(revoked.numbers());
        } else if (event instanceof Gone gone) {
            TrackedCluster cluster = partitions.holding(gone.cluster());
            return cluster == null ? List.of() : partitions.gone(cluster, gone.cluster());
        } else if (event instanceof Conflicted conflicted) {
            TrackedCluster cluster = partitions.holding(conflicted.cluster());
            if (cluster != null) {
                ledger.conflicted(cluster, conflicted.status(), conflicted.basis(), conflicted.now());
            }
            return List.of();
        } else if (event instanceof Refused refused) {
            // For good: the Cluster's own status is the truth again.
            TrackedCluster cluster = partitions.holding(refused.cluster());
            if (cluster != null) {
                ledger.forget(cluster);
            }
            return List.of();
        } else {
            Unpublished unpublished = (Unpublished) event;
            return ledger.unpublished(unpublished, partitions.holding(unpublished.cluster()));
        }
    }

    /** Write-back wrote a status: the change is published, the echo awaited. */
    private List<Action> written(Written written) {
        TrackedCluster cluster = partitions.holding(written.cluster());
        if (cluster == null) {
            return List.of();
        }
        List<Action> actions = new ArrayList<>(2);
        ledger.written(cluster, written.cluster(), written.status(), written.kept(), written.now(), actions);
        return actions;
    }

    /**
     * What is due: echoes not come within their timeout (the Cluster's own status is trusted again), every cluster
     * again when the compatibility data or the management cluster changed, and the clusters whose oldest uncomputed
     * record is a coalescing window old.
     */
    private List<Action> due(TimePassed time) {
        if (ledger.inForce(time.inForce(), time.management())) {
            partitions.computeAllLive();
        }
        ledger.expire(time.now()).forEach(schedule::atOnce);
        List<Action> actions = new ArrayList<>();
        for (TrackedCluster cluster : schedule.due(time.now(), time.backlog())) {
            try {
                if (partitions.readBeforeComputing(cluster, actions)) {
                    ledger.compute(cluster, time.instant(), time.now(), actions).ifPresent(actions::add);
                }
            } catch (RuntimeException fault) { // a bug: the other clusters are computed on, this one on its next record
                ledger.failed();
                actions.add(new ComputationFailed(
                        cluster.state.cluster().map(c -> c.key().toString()).orElse(cluster.state.clusterName()),
                        fault));
            }
        }
        return actions;
    }

    /** How long from {@code now} until the next cluster is due, {@code longest} at most: how long a poll may wait. */
    Duration untilDue(long now, Duration longest) {
        return schedule.untilDue(now, longest);
    }

    /** The offset of partition {@code number}'s oldest record not read yet (its cluster not computed yet), if any. */
    OptionalLong unreadFrom(int number) {
        return partitions.unreadFrom(number);
    }

    /** Whether {@code cluster} has a published status: after its deletion was announced, that it is back. */
    boolean isPublished(ObjectKey cluster) {
        return ledger.isPublished(cluster);
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
        return live() && schedule.isEmpty() && ledger.settled();
    }

    int tracked() {
        return partitions.tracked();
    }

    long computations() {
        return ledger.computations();
    }

    /** Computations that failed on a fault ({@link ComputationFailed}). */
    long computationFailures() {
        return ledger.computationFailures();
    }

    /** Where the book stands, in words. */
    String progress() {
        return partitions.progress() + ", " + schedule.size() + " to compute (" + partitions.unreadRecords()
                + " records not read yet), " + ledger.progress();
    }
}
