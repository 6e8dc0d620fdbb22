package io.statusaggregator.aggregation;

import io.statusaggregator.aggregation.Action.WriteStatus;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import io.statusaggregator.versions.Compatibility;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The per-cluster status ledger of the {@link ClusterBook}: what each cluster computes to, what is being written to it
 * and not echoed yet ({@link PendingWrites}, read-your-own-writes), what the feeds have of it
 * ({@link PublishedStatuses}), and whether this instance writes it ({@link StatusOwnership}). It decides, for a
 * cluster the book hands it, what to write and what to publish, and takes write-back's and the feeds' outcomes. Pure:
 * statuses and instants ({@code System.nanoTime()} values) in, {@link Action}s out.
 */
@Pure
final class StatusLedger {
    private final BiFunction<ClusterSnapshot, Instant, ClusterStatus> rules;
    private final ComputeSchedule schedule;
    private final PendingWrites<TrackedCluster> pending;
    private final PublishedStatuses published;
    private StatusOwnership ownership = new StatusOwnership(WantedWriter.AUTO, StatusOwnership.WINDOW);
    /**
     * The compatibility data and management cluster the clusters were last computed with: when either changes, all are
     * again.
     */
    private Compatibility computedWith;
    private ManagementCluster managementComputedWith = ManagementCluster.UNKNOWN;
    private long computations;
    private long computationFailures;

    StatusLedger(BiFunction<ClusterSnapshot, Instant, ClusterStatus> rules, ComputeSchedule schedule,
            PendingWrites<TrackedCluster> pending, PublishedStatuses published) {
        this.rules = rules;
        this.schedule = schedule;
        this.pending = pending;
        this.published = published;
    }

    void ownedAs(StatusOwnership ownership) {
        this.ownership = ownership;
    }

    /**
     * The compatibility data and management cluster in force now; returns whether either changed since the last
     * computation (every cluster is computed again then).
     */
    boolean inForce(Compatibility inForce, ManagementCluster management) {
        boolean changed = computedWith != null
                && (inForce != computedWith || !management.equals(managementComputedWith));
        computedWith = inForce;
        managementComputedWith = management;
        return changed;
    }

    /** {@code cluster} computed at {@code instant}: its write or publication; what else it tells goes to actions. */
    Optional<Action> compute(TrackedCluster cluster, Instant instant, long now, List<Action> actions) {
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
        // A status being written is not shown yet.
        actions.add(new Action.Shows(cluster.shown(eksa.get(), pending.unechoed(cluster))));
        if (computed.equals(shown)) {
            return writing.isPresent() ? Optional.empty() : publish(cluster, eksa.get(), computed);
        }
        if (writing.isEmpty() && !ownership.writes(cluster, eksa.get(), computed, now, actions)) {
            return publish(cluster, eksa.get(), computed); // not written: its verdict, for the feeds
        }
        pending.submitted(cluster, computed);
        return Optional.of(new WriteStatus(eksa.get().key(), computed, eksa.get().resourceVersion()));
    }

    /** A computation failed on a fault: counted. */
    void failed() {
        computationFailures++;
    }

    /** Write-back wrote {@code status} to {@code cluster}, the API server kept {@code kept}: the change published. */
    void written(TrackedCluster cluster, ObjectKey key, ClusterStatus status, ClusterStatus kept, long now,
            List<Action> actions) {
        Optional<EksaCluster> eksa = cluster.state.cluster();
        cluster.written(status, kept);
        ownership.wrote(key, kept);
        pending.written(cluster, status, kept, eksa.map(c -> c.status().equals(kept)).orElse(false), now);
        eksa.ifPresent(c -> {
            actions.add(new Action.Shows(cluster.shown(c, pending.unechoed(cluster))));
            publish(cluster, c, status).ifPresent(actions::add);
        });
    }

    /**
     * Write-back did not write {@code status}: the Cluster changed since {@code basis}. Computed again at once if a
     * newer state is here; else when its next state comes, or an echo timeout later.
     */
    void conflicted(TrackedCluster cluster, ClusterStatus status, String basis, long now) {
        pending.unwritten(cluster, status);
        if (cluster.state.cluster().filter(c -> !c.resourceVersion().equals(basis)).isPresent()) {
            schedule.atOnce(cluster);
        } else {
            schedule.afterEchoTimeout(cluster, now);
        }
    }

    /**
     * The broker did not take the change published as {@code status}: unless a newer status was published since, it
     * is taken back ({@link Action.PublishAgain}), and {@code cluster} (null when no longer here) computed again
     * {@link ClusterBook#REPUBLISH_AFTER} later, when it goes out again (under the same event id).
     */
    List<Action> unpublished(BookEvent.Unpublished refused, TrackedCluster cluster) {
        if (!published.takeBack(refused.cluster(), refused.before(), refused.after())) {
            return List.of();
        }
        if (cluster != null) {
            schedule.after(cluster, refused.now(), ClusterBook.REPUBLISH_AFTER);
        }
        return List.of(new Action.PublishAgain(refused.cluster(), refused.error()));
    }

    /** {@code eksa}, which {@code cluster} holds, shows {@code status}: its change, unless the feeds have it. */
    private Optional<Action> publish(TrackedCluster cluster, EksaCluster eksa, ClusterStatus status) {
        return published.change(eksa, status, () -> cluster.state.snapshot(computedWith, managementComputedWith));
    }

    /** The Cluster {@code cluster} shows {@code status}, read from the topic: what it awaits may have come. */
    void shown(TrackedCluster cluster, ClusterStatus status) {
        pending.shown(cluster, status);
    }

    /** What is in flight for {@code cluster} is forgotten: its own status is the truth again. */
    void forget(TrackedCluster cluster) {
        pending.forget(cluster);
    }

    /** The Cluster {@code key} left this instance: its observer is told, its writes forgotten. */
    void left(ObjectKey key, List<Action> actions) {
        ownership.left(key);
        actions.add(new Action.Left(key));
    }

    /** The clusters whose written status has not come back within the echo timeout: their own status is trusted. */
    List<TrackedCluster> expire(long now) {
        return pending.expire(now);
    }

    boolean isPublished(ObjectKey cluster) {
        return published.get(cluster).isPresent();
    }

    /** Every written status echoed. */
    boolean settled() {
        return pending.isEmpty();
    }

    long computations() {
        return computations;
    }

    long computationFailures() {
        return computationFailures;
    }

    /** Its writes in flight, in words. */
    String progress() {
        return pending.beingWritten() + " writes under way, " + pending.awaitingEcho() + " writes awaiting their echo";
    }
}
