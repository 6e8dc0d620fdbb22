package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.util.List;

/**
 * When each cluster of the {@link ClusterBook} is computed: a quiet cluster's record at once, the rest of a burst
 * together when it ends, every record a coalescing window late while aggregation is behind ({@link CoalescingWindow},
 * growing with the backlog; {@link ComputeQueue}); or after a delay a write-back conflict or a change the broker
 * refused calls for. Pure; part of the book.
 */
@Pure
final class ComputeSchedule {
    private final CoalescingWindow coalescing;
    private final long echoTimeoutNanos;
    /** Clusters with something not computed yet, and when each is due. */
    private final ComputeQueue queue;

    ComputeSchedule(CoalescingWindow coalescing, Duration echoTimeout) {
        this.coalescing = coalescing;
        this.echoTimeoutNanos = echoTimeout.toNanos();
        this.queue = new ComputeQueue(coalescing.window());
    }

    /** A record of {@code cluster} at {@code now}: computed at once if quiet, else with the rest of its burst. */
    void record(TrackedCluster cluster, long now) {
        queue.record(cluster, now);
    }

    /** {@code cluster} computed at the next {@link #due}. */
    void atOnce(TrackedCluster cluster) {
        queue.atOnce(cluster);
    }

    /** {@code cluster} computed {@code delay} after {@code now}, unless a record of it makes it due sooner. */
    void after(TrackedCluster cluster, long now, Duration delay) {
        after(cluster, now, delay.toNanos());
    }

    /** {@code cluster} computed an echo timeout after {@code now}: its write conflicted, nothing newer is here. */
    void afterEchoTimeout(TrackedCluster cluster, long now) {
        after(cluster, now, echoTimeoutNanos);
    }

    private void after(TrackedCluster cluster, long now, long delayNanos) {
        // The queue counts from a cluster's oldest record, due one window later.
        queue.asOf(cluster, now + delayNanos - coalescing.window().toNanos());
    }

    void remove(TrackedCluster cluster) {
        queue.remove(cluster);
    }

    /** The clusters due at {@code now}, with {@code backlog} records of the live partitions waiting to be read. */
    List<TrackedCluster> due(long now, long backlog) {
        return queue.due(now, coalescing.nanos(backlog));
    }

    /** How long from {@code now} until the next cluster is due, {@code longest} at most: how long a poll may wait. */
    Duration untilDue(long now, Duration longest) {
        return queue.untilDue(now, longest);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return queue.size();
    }
}
