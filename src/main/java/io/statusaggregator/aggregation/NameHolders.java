package io.statusaggregator.aggregation;

import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.NameConflict;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which tracked cluster of a partition each EKS-A Cluster is in, when Clusters of one name exist in several
 * namespaces (status-rules.md, "Two EKS-A Clusters with one name"). The Cluster that holds the name
 * ({@link EksaCluster#HOLDS_NAME_FIRST}) is in the name's own tracked cluster, with the name's CAPI objects; each
 * other is alone in a tracked cluster of its own, named {@code namespace/name} (never a cluster name: it has a
 * slash), and is computed from no CAPI objects. The holder is decided by creation, not by the order records come
 * in: when an older Cluster is read after a younger one, or the holder is deleted, the Clusters move.
 */
@Pure
final class NameHolders {
    /** What {@link #settle} changed: tracked clusters to compute again, and those it left empty. */
    record Moves(List<TrackedCluster> changed, List<TrackedCluster> emptied) {
        static final Moves NONE = new Moves(List.of(), List.of());
    }

    private final AssignedPartition partition;
    private final String capiNamespace;
    /** By name: the Clusters of that name that do not hold it; a name is here only while there are some. */
    private final Map<String, Set<ObjectKey>> others = new HashMap<>();

    NameHolders(AssignedPartition partition, String capiNamespace) {
        this.partition = partition;
        this.capiNamespace = capiNamespace;
    }

    /** The tracked cluster of a Cluster that does not hold its name. */
    static String trackedNameOf(ObjectKey eksa) {
        return eksa.namespace() + "/" + eksa.name();
    }

    /** The tracked cluster that holds EKS-A Cluster {@code eksa}, or null. */
    TrackedCluster holding(ObjectKey eksa) {
        TrackedCluster named = partition.clusters.get(eksa.name());
        if (named != null && named.holds(eksa)) {
            return named;
        }
        if (!others.getOrDefault(eksa.name(), Set.of()).contains(eksa)) {
            return null;
        }
        return partition.clusters.get(trackedNameOf(eksa));
    }

    /**
     * Where a new state of EKS-A Cluster {@code eksa} goes: the tracked cluster that has it, else its name's when that
     * holds no Cluster, else one of its own (then {@link #settle} decides which holds the name).
     */
    TrackedCluster trackedFor(ObjectKey eksa) {
        TrackedCluster holding = holding(eksa);
        if (holding != null) {
            return holding;
        }
        TrackedCluster named = partition.tracked(eksa.name());
        if (named.state.cluster().isEmpty()) {
            return named;
        }
        others.computeIfAbsent(eksa.name(), n -> new LinkedHashSet<>()).add(eksa);
        return partition.tracked(trackedNameOf(eksa));
    }

    /**
     * After a Cluster named {@code name} was added, changed or removed: the one created first holds the name (moved
     * into the name's tracked cluster if it is elsewhere), and every other is told which holds it.
     */
    Moves settle(String name) {
        Set<ObjectKey> keys = others.get(name);
        if (keys == null) {
            return Moves.NONE;
        }
        List<TrackedCluster> changed = new ArrayList<>();
        List<TrackedCluster> emptied = new ArrayList<>();
        keys.removeIf(key -> {
            TrackedCluster own = partition.clusters.get(trackedNameOf(key));
            if (own == null || own.state.cluster().isEmpty()) {
                Optional.ofNullable(own).ifPresent(emptied::add);
                return true; // removed
            }
            return false;
        });
        TrackedCluster named = partition.tracked(name);
        Optional<EksaCluster> holder = named.state.cluster();
        Optional<TrackedCluster> first = keys.stream().map(key -> partition.clusters.get(trackedNameOf(key)))
                .min(Comparator.comparing(c -> c.state.cluster().orElseThrow(), EksaCluster.HOLDS_NAME_FIRST));
        if (first.isPresent() && (holder.isEmpty()
                || EksaCluster.HOLDS_NAME_FIRST.compare(first.get().state.cluster().orElseThrow(), holder.get()) < 0)) {
            TrackedCluster promoted = first.get();
            ClusterState.HeldCluster moving = promoted.state.takeCluster().orElseThrow();
            keys.remove(moving.cluster().key());
            emptied.add(promoted);
            named.state.takeCluster().ifPresent(displaced -> {
                keys.add(displaced.cluster().key());
                partition.tracked(trackedNameOf(displaced.cluster().key())).state.hold(displaced);
            });
            named.state.hold(moving);
            changed.add(named);
        }
        named.state.nameHeldBy(Optional.empty());
        Optional<NameConflict> conflict = named.state.cluster().map(c -> new NameConflict(c.key(), capiNamespace));
        for (ObjectKey key : keys) {
            TrackedCluster other = partition.clusters.get(trackedNameOf(key));
            if (other.state.nameHeldBy(conflict) && !changed.contains(other)) {
                changed.add(other);
            }
        }
        if (keys.isEmpty()) {
            others.remove(name);
        }
        return new Moves(changed, emptied);
    }
}
