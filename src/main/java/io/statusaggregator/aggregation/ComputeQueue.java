package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
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
 * computed and written without waiting. The records that follow are the rest of its burst, computed together when the
 * burst ends: once its cluster has had no record for a tenth of the window ({@link #BURST_GAP_DIVISOR}), or a window
 * after the first computation if records keep coming; the writes of one step of a controller (a Machine, its status,
 * its owner's counts) come milliseconds apart. While aggregation is behind, a cluster is due once its oldest uncomputed
 * record is a (grown) window old: in a catch-up nothing is computed at once, so that the first record of each of
 * thousands of clusters does not add a computation of its own.
 *
 * <p>Those records wait in the order of their time, and {@link #due} takes them from the oldest and stops at the
 * first one not due: in a fleet-wide catch-up thousands of clusters wait a grown window, and looking at each of them at
 * every poll would cost a tenth of the aggregation thread's work. A burst's clusters are also kept in the order of
 * their latest record, for its end. The few marked otherwise (due at once, or at a set time) are kept apart.
 */
@Pure
final class ComputeQueue {
    /** A burst ends when its cluster has had no record for the window over this. */
    static final int BURST_GAP_DIVISOR = 10;

    /** Marked by their records, oldest first: their {@code dirtySince} never decreases along the set. */
    private final Set<TrackedCluster> byRecord = new LinkedHashSet<>();
    /** Those of them in a burst, by their latest record: their {@code lastRecordAt} never decreases along the set. */
    private final Set<TrackedCluster> inBurst = new LinkedHashSet<>();
    private final Set<TrackedCluster> atOnce = new LinkedHashSet<>();
    private final Set<TrackedCluster> atTime = new LinkedHashSet<>();
    private long lastRecord = Long.MIN_VALUE;
    private long lastBurstRecord = Long.MIN_VALUE;
    /** The coalescing window while aggregation keeps up, in nanoseconds. */
    private final long window;
    private final long gap;
    /** The window the last {@link #due} was given: longer than {@link #window} while aggregation is behind. */
    private long lastWindow;

    /** @param window the coalescing window while aggregation keeps up ({@link CoalescingWindow#window}) */
    ComputeQueue(Duration window) {
        this.window = window.toNanos();
        this.gap = this.window / BURST_GAP_DIVISOR;
        this.lastWindow = this.window;
    }

    /**
     * A record of {@code cluster} arrived at {@code now}; nothing if it waits already (but for a burst's end), unless
     * for a later time ({@link #asOf}): then it is due as its record makes it. Kept up: due at once if quiet, else when
     * its burst ends; behind: a window after this record.
     */
    void record(TrackedCluster cluster, long now) {
        if (cluster.dirtySince > now && atTime.remove(cluster)) {
            cluster.dirtySince = TrackedCluster.CLEAN;
        }
        boolean keptUp = lastWindow <= window;
        if (cluster.dirtySince != TrackedCluster.CLEAN) {
            if (keptUp && inBurst.remove(cluster)) {
                inBurst(cluster, now); // the burst goes on
            }
            return;
        }
        if (keptUp && (cluster.computedAt == TrackedCluster.NEVER || now - cluster.computedAt >= window)) {
            atOnce(cluster);
            return;
        }
        // Never before the last one marked (a clock read on another core may be behind), so the set stays in order.
        lastRecord = Math.max(lastRecord, keptUp ? cluster.computedAt : now);
        cluster.dirtySince = lastRecord;
        byRecord.add(cluster);
        if (keptUp) {
            inBurst(cluster, now);
        }
    }

    private void inBurst(TrackedCluster cluster, long now) {
        lastBurstRecord = Math.max(lastBurstRecord, now);
        cluster.lastRecordAt = lastBurstRecord;
        inBurst.add(cluster);
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
            if (byRecord.remove(cluster)) {
                inBurst.remove(cluster);
            } else if (!atOnce.remove(cluster)) {
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
            inBurst.remove(cluster);
            due.add(cluster);
        }
        if (window <= this.window) { // behind, a burst waits the grown window
            for (Iterator<TrackedCluster> it = inBurst.iterator(); it.hasNext(); ) {
                TrackedCluster cluster = it.next();
                if (now - cluster.lastRecordAt < gap) {
                    break;
                }
                it.remove();
                byRecord.remove(cluster);
                due.add(cluster);
            }
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
     * How long from {@code now} until the next cluster is due, with the window of the last {@link #due}: zero if one is
     * due already, {@code longest} at most; in whole milliseconds, rounded up, as the consumer's poll counts them.
     */
    Duration untilDue(long now, Duration longest) {
        long next = atOnce.isEmpty() ? longest.toNanos() : 0;
        if (!byRecord.isEmpty()) {
            next = Math.min(next, byRecord.iterator().next().dirtySince + lastWindow - now);
        }
        if (!inBurst.isEmpty() && lastWindow <= window) {
            next = Math.min(next, inBurst.iterator().next().lastRecordAt + gap - now);
        }
        for (TrackedCluster cluster : atTime) {
            next = Math.min(next, cluster.dirtySince + lastWindow - now);
        }
        return Duration.ofMillis((Math.max(0, next) + 999_999) / 1_000_000);
    }

    boolean isEmpty() {
        return byRecord.isEmpty() && atOnce.isEmpty() && atTime.isEmpty();
    }

    int size() {
        return byRecord.size() + atOnce.size() + atTime.size();
    }
}
