package io.statusaggregator.aggregation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The clusters with something not computed yet, and when each is due. Pure; used on the aggregation thread only.
 *
 * <p>While aggregation keeps up (the window is not grown), a burst is coalesced, not every change: a record of a
 * cluster that was quiet (not computed within the last window) makes it due at once, so that a lone change is
 * computed and written without waiting; the records that follow within a window of that computation wait until the
 * window has passed since it, and are computed together. A cluster is so computed at most about once a window, as
 * when every record waited. While aggregation is behind, a cluster is due once its oldest uncomputed record is a
 * (grown) window old: in a catch-up nothing is computed at once, so that the first record of each of thousands of
 * clusters does not add a computation of its own.
 *
 * <p>Those records wait in the order of their time, and {@link #due} takes them from the oldest and stops at the
 * first one not due: in a fleet-wide catch-up thousands of clusters wait a grown window, and looking at each of them at
 * every poll would cost a tenth of the aggregation thread's work. The few marked otherwise (due at once, or at a set
 * time) are kept apart.
 */
final class ComputeQueue {
    /** Marked by their records, oldest first: their {@code dirtySince} never decreases along the set. */
    private final Set<TrackedCluster> byRecord = new LinkedHashSet<>();
    private final Set<TrackedCluster> atOnce = new LinkedHashSet<>();
    private final Set<TrackedCluster> atTime = new LinkedHashSet<>();
    private long lastRecord = Long.MIN_VALUE;
    /** The coalescing window while aggregation keeps up, in nanoseconds. */
    private final long window;
    /** The window the last {@link #due} was given: longer than {@link #window} while aggregation is behind. */
    private long lastWindow;

    /** @param window the coalescing window while aggregation keeps up ({@link CoalescingWindow#window}) */
    ComputeQueue(Duration window) {
        this.window = window.toNanos();
        this.lastWindow = this.window;
    }

    /**
     * A record of {@code cluster} arrived at {@code now}; nothing if it waits already, unless for a later time
     * ({@link #asOf}): then it is due as its record makes it. Quiet and kept up, it is due at once; in a burst, a window
     * after its last computation; behind, a window after this record.
     */
    void record(TrackedCluster cluster, long now) {
        if (cluster.dirtySince > now && atTime.remove(cluster)) {
            cluster.dirtySince = TrackedCluster.CLEAN;
        }
        if (cluster.dirtySince != TrackedCluster.CLEAN) {
            return;
        }
        boolean keptUp = lastWindow <= window;
        if (keptUp && (cluster.computedAt == TrackedCluster.NEVER || now - cluster.computedAt >= window)) {
            atOnce(cluster);
            return;
        }
        // Never before the last one marked (a clock read on another core may be behind), so the set stays in order.
        lastRecord = Math.max(lastRecord, keptUp ? cluster.computedAt : now);
        cluster.dirtySince = lastRecord;
        byRecord.add(cluster);
    }

    /** {@code cluster} is due at the next {@link #due}, whatever the window; nothing if it waits already. */
    void atOnce(TrackedCluster cluster) {
        if (cluster.dirtySince == TrackedCluster.CLEAN) {
            cluster.dirtySince = Long.MIN_VALUE + 1;
            atOnce.add(cluster);
        }
    }

    /** {@code cluster} is due as if its oldest record had come at {@code since}; nothing if it waits already. */
    void asOf(TrackedCluster cluster, long since) {
        if (cluster.dirtySince == TrackedCluster.CLEAN) {
            cluster.dirtySince = since;
            atTime.add(cluster);
        }
    }

    /** {@code cluster} is computed, or forgotten. */
    void remove(TrackedCluster cluster) {
        if (cluster.dirtySince != TrackedCluster.CLEAN) {
            cluster.dirtySince = TrackedCluster.CLEAN;
            if (!byRecord.remove(cluster) && !atOnce.remove(cluster)) {
                atTime.remove(cluster);
            }
        }
    }

    /**
     * Takes the clusters due at {@code now} with a window of {@code window} nanoseconds, in the order they became due.
     */
    List<TrackedCluster> due(long now, long window) {
        lastWindow = window;
        List<TrackedCluster> due = new ArrayList<>(atOnce);
        atOnce.clear();
        for (Iterator<TrackedCluster> it = byRecord.iterator(); it.hasNext(); ) {
            TrackedCluster cluster = it.next();
            if (now - cluster.dirtySince < window) {
                break; // and every one after it
            }
            it.remove();
            due.add(cluster);
        }
        for (Iterator<TrackedCluster> it = atTime.iterator(); it.hasNext(); ) {
            TrackedCluster cluster = it.next();
            if (now - cluster.dirtySince >= window) {
                it.remove();
                due.add(cluster);
            }
        }
        for (TrackedCluster cluster : due) {
            cluster.dirtySince = TrackedCluster.CLEAN;
            cluster.computedAt = now;
        }
        return due;
    }

    /**
     * How long from {@code now} until the next cluster is due, in nanoseconds, with the window of the last {@link #due}:
     * 0 if one is due already, {@link Long#MAX_VALUE} if none waits. What the consumer's poll waits at most.
     */
    long untilDue(long now) {
        if (!atOnce.isEmpty()) {
            return 0;
        }
        long next = Long.MAX_VALUE;
        if (!byRecord.isEmpty()) {
            next = byRecord.iterator().next().dirtySince + lastWindow - now;
        }
        for (TrackedCluster cluster : atTime) {
            next = Math.min(next, cluster.dirtySince + lastWindow - now);
        }
        return Math.max(0, next);
    }

    boolean isEmpty() {
        return byRecord.isEmpty() && atOnce.isEmpty() && atTime.isEmpty();
    }

    int size() {
        return byRecord.size() + atOnce.size() + atTime.size();
    }
}
