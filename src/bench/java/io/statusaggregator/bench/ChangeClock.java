package io.statusaggregator.bench;

import io.statusaggregator.model.ClusterStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Freshness: when each change was written (the API server answered its last write), and when a status that reflects
 * it was written. A status reflects a
 * change when it says what the rules say after that change; it then reflects every earlier change of its cluster too.
 * Changes that a later change of their cluster undid before the aggregator computed (the status after them is the
 * one shown before them) are never shown, and rightly: coalescing merged them. They are counted apart
 * ({@link #undone}), not as changes left unreflected, and not as reflected by the status of a later change either: a
 * change whose status is the one the cluster shows when it is written undoes the changes of its cluster still waiting.
 * (A rollout's first two steps of a node group do that: the spec makes its status out of date, the status brings it
 * back.) So is a change whose status was shown before the harness had the answer to its write, which only a pause of
 * the harness's own JVM between the two makes possible.
 */
final class ChangeClock {
    private record Pending(String signature, long writtenAt) {
    }

    /** A change that took over a second: its cluster, when it was written and shown, and what it showed. */
    record Slow(String cluster, long writtenAt, long shownAt, String text) {
    }

    private final Map<String, ArrayDeque<Pending>> pending = new HashMap<>();
    /** What each cluster shows now, as far as this clock has been told. */
    private final Map<String, String> shownNow = new HashMap<>();
    /** Changes undone so far by a later change of their cluster. */
    private int undone;

    /** A clock that knows nothing of what the clusters show until they show something. */
    ChangeClock() {
        this(Map.of());
    }

    /** A clock that knows what the clusters show as it starts: {@code shown}, by cluster name. */
    ChangeClock(Map<String, ClusterStatus> shown) {
        shown.forEach((cluster, status) -> shownNow.put(cluster, StatusCheck.signature(status)));
    }
    private final List<Double> latenciesMillis = new ArrayList<>();
    /** Each reflected change: when written and when shown (System.nanoTime), for {@link #timeline}. */
    private final List<long[]> reflectedChanges = new ArrayList<>();
    /** The cluster of each of {@link #reflectedChanges}, in the same order. */
    private final List<String> reflectedClusters = new ArrayList<>();
    /** When (System.nanoTime) a status last reflected a change; 0 before any did. */
    private long lastReflectedAt;
    /** The slowest changes (over a second), for the log: cluster, milliseconds, the status that reflected them. */
    private final List<Slow> slow = new ArrayList<>();

    /** A change of {@code cluster}, about to be written, after which its status should say {@code expected}. */
    synchronized void changed(String cluster, ClusterStatus expected, long nanos) {
        String signature = StatusCheck.signature(expected);
        ArrayDeque<Pending> waiting = pending.computeIfAbsent(cluster, c -> new ArrayDeque<>());
        if (signature.equals(shownNow.get(cluster))) {
            undone += waiting.size() + 1;
            waiting.clear();
            return;
        }
        waiting.addLast(new Pending(signature, nanos));
    }

    /** A status of {@code cluster} written (or seen written) at {@code nanos}. */
    synchronized void shown(String cluster, ClusterStatus status, long nanos) {
        String signature = StatusCheck.signature(status);
        shownNow.put(cluster, signature);
        ArrayDeque<Pending> waiting = pending.get(cluster);
        if (waiting == null || waiting.isEmpty()) {
            return;
        }
        int reflected = -1;
        int i = 0;
        for (Pending p : waiting) {
            if (p.signature().equals(signature)) {
                reflected = i;
            }
            i++;
        }
        if (reflected >= 0) {
            lastReflectedAt = nanos;
        }
        for (Iterator<Pending> it = waiting.iterator(); reflected >= 0 && it.hasNext(); reflected--) {
            long writtenAt = it.next().writtenAt();
            double millis = (nanos - writtenAt) / 1e6;
            reflectedChanges.add(new long[] {writtenAt, nanos});
            reflectedClusters.add(cluster);
            latenciesMillis.add(millis);
            if (millis > 1000) {
                slow.add(new Slow(cluster, writtenAt, nanos, "%s %.0f ms (%s)".formatted(cluster, millis, signature)));
            }
            it.remove();
        }
    }

    synchronized int waiting() {
        return pending.values().stream().mapToInt(ArrayDeque::size).sum();
    }

    /**
     * Takes out the changes still waiting whose cluster shows now what the last of them expects: undone by the changes
     * after them before they were computed. Returns how many changes were undone in all, these and those found undone
     * as they were written.
     */
    synchronized int undone(Map<String, String> signatureShownNow) {
        for (Iterator<Map.Entry<String, ArrayDeque<Pending>>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, ArrayDeque<Pending>> cluster = it.next();
            ArrayDeque<Pending> waiting = cluster.getValue();
            if (!waiting.isEmpty() && waiting.getLast().signature().equals(signatureShownNow.get(cluster.getKey()))) {
                undone += waiting.size();
                it.remove();
            }
        }
        return undone;
    }

    synchronized long lastReflectedAt() {
        return lastReflectedAt;
    }

    synchronized List<Slow> slowChanges() {
        return List.copyOf(slow);
    }

    /**
     * The changes by the second they were written in, from {@code from}: how many, and when the first and last of them
     * were shown; where a backlog formed and how fast it drained.
     */
    synchronized String timeline(long from) {
        java.util.TreeMap<Long, long[]> seconds = new java.util.TreeMap<>();
        for (long[] change : reflectedChanges) {
            long[] second = seconds.computeIfAbsent((change[0] - from) / 1_000_000_000L, s -> new long[] {0, Long.MAX_VALUE, 0});
            second[0]++;
            second[1] = Math.min(second[1], change[1] - from);
            second[2] = Math.max(second[2], change[1] - from);
        }
        StringBuilder out = new StringBuilder();
        seconds.forEach((second, c) -> out.append("  written +%2d s: %3d changes, shown +%4.1f to +%4.1f s%n".formatted(second, c[0], c[1] / 1e9, c[2] / 1e9)));
        return out.toString();
    }

    /**
     * The medians of where the reflected changes spent their time ({@link ClusterTimeline#stages}), as text; the
     * changes whose notes lack a stage are left out.
     */
    synchronized String stages(ClusterTimeline notes) {
        List<List<Double>> byStage = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < reflectedChanges.size(); i++) {
            double[] stages = notes.stages(reflectedClusters.get(i), reflectedChanges.get(i)[0], reflectedChanges.get(i)[1]);
            for (int s = 0; stages != null && s < stages.length; s++) {
                byStage.get(s).add(stages[s]);
            }
        }
        if (byStage.get(0).isEmpty()) {
            return "no change with every stage noted";
        }
        return ("medians over %d changes: change written to its record produced on the object-state topic %.1f ms, to its status "
                + "produced on the status topic (after its write) %.1f ms, to the Cluster seen showing it %.1f ms").formatted(
                byStage.get(0).size(), Bench.median(byStage.get(0)), Bench.median(byStage.get(1)), Bench.median(byStage.get(2)));
    }

    synchronized List<Double> latencies() {
        return List.copyOf(latenciesMillis);
    }
}
