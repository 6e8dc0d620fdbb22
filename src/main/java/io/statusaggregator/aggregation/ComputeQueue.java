package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The clusters with something not computed yet, and when each is due: a cluster is due once its oldest uncomputed
 * record is a coalescing window old. Pure; used on the aggregation thread only.
 *
 * <p>Records are marked as they arrive, so those clusters are kept in the order of their oldest uncomputed record, and
 * {@link #due} takes them from the oldest and stops at the first one not due: in a fleet-wide catch-up thousands of
 * clusters wait a grown window, and looking at each of them at every poll would cost a tenth of the aggregation
 * thread's work. The few marked otherwise (due at once, or at a set time) are kept apart.
 */
@Pure
final class ComputeQueue {
    /** Marked by their records, oldest first: their {@code dirtySince} never decreases along the set. */
    private final Set<TrackedCluster> byRecord = new LinkedHashSet<>();
    private final Set<TrackedCluster> atOnce = new LinkedHashSet<>();
    private final Set<TrackedCluster> atTime = new LinkedHashSet<>();
    private long lastRecord = Long.MIN_VALUE;

    /**
     * A record of {@code cluster} arrived at {@code now} (never before the last one marked); nothing if it waits
     * already, unless for a later time ({@link #asOf}): then it is due as its record makes it.
     */
    void record(TrackedCluster cluster, long now) {
        if (cluster.dirtySince > now && atTime.remove(cluster)) {
            cluster.dirtySince = TrackedCluster.CLEAN;
        }
        if (cluster.dirtySince == TrackedCluster.CLEAN) {
            lastRecord = Math.max(lastRecord, now);
            cluster.dirtySince = lastRecord;
            byRecord.add(cluster);
        }
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
        due.forEach(cluster -> cluster.dirtySince = TrackedCluster.CLEAN);
        return due;
    }

    boolean isEmpty() {
        return byRecord.isEmpty() && atOnce.isEmpty() && atTime.isEmpty();
    }

    int size() {
        return byRecord.size() + atOnce.size() + atTime.size();
    }
}
