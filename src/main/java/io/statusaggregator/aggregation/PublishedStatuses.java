package io.statusaggregator.aggregation;

import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.aggregation.Action.AnnounceDeletion;
import io.statusaggregator.aggregation.Action.PublishChange;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The last status on the status topic of each cluster of the assigned partitions: read from the topic for each
 * assignment, then what this instance publishes. A cluster here with no Cluster left is announced deleted. Keyed by
 * the status topic's key, the cluster's namespace/name. Pure; part of the book's {@link StatusLedger}.
 */
@Pure
final class PublishedStatuses {
    private final Map<String, ClusterStatus> byCluster = new HashMap<>();

    /** Partitions assigned anew, of {@code partitionCount}: what an earlier assignment of them read is forgotten. */
    void forget(Collection<Integer> numbers, int partitionCount) {
        byCluster.keySet().removeIf(key -> numbers.contains(partitionOf(key, partitionCount)));
    }

    /** The status topic as read for partitions {@code numbers}: the last status there of each of their clusters. */
    void read(Collection<Integer> numbers, int partitionCount, Map<String, ClusterStatus> statusTopic) {
        statusTopic.forEach((key, status) -> {
            if (numbers.contains(partitionOf(key, partitionCount))) {
                byCluster.put(key, status);
            }
        });
    }

    /** The clusters of partition {@code number} with a published status. */
    List<ObjectKey> clustersOf(int number, int partitionCount) {
        return byCluster.keySet().stream().flatMap(key -> ObjectKey.parse(key).stream())
                .filter(cluster -> ObjectStateKey.partitionOf(cluster.name(), partitionCount) == number).toList();
    }

    Optional<ClusterStatus> get(ObjectKey cluster) {
        return Optional.ofNullable(byCluster.get(cluster.toString()));
    }

    void put(ObjectKey cluster, ClusterStatus status) {
        byCluster.put(cluster.toString(), status);
    }

    /** Forgets {@code cluster}'s published status; returns it, if it had one. */
    Optional<ClusterStatus> remove(ObjectKey cluster) {
        return Optional.ofNullable(byCluster.remove(cluster.toString()));
    }

    /**
     * {@code eksa} shows {@code status}: its change to publish, unless published already. The progress bars are read
     * from the cluster's {@code snapshot}, unless its spec cannot be read (no counts to read).
     */
    Optional<Action> change(EksaCluster eksa, ClusterStatus status, Supplier<Optional<ClusterSnapshot>> snapshot) {
        Optional<ClusterStatus> before = get(eksa.key());
        if (before.equals(Optional.of(status))) {
            return Optional.empty();
        }
        put(eksa.key(), status);
        StatusChange.Progress progress = snapshot.get()
                .filter(s -> s.malformed().stream().noneMatch(m -> m.kind() == ObjectKind.EKSA_CLUSTER))
                .map(s -> StatusChange.Progress.of(s, status)).orElse(StatusChange.Progress.UNKNOWN);
        return Optional.of(new PublishChange(eksa, before, status, progress));
    }

    /** {@code cluster} is gone: its deletion to announce; nothing when never published, or announced already. */
    Optional<Action> deletion(ObjectKey cluster, long generation) {
        return remove(cluster).map(last -> new AnnounceDeletion(cluster, generation, last));
    }

    /**
     * The broker did not take the change that published {@code status}: unless a newer status was published since,
     * {@code before} is the published status again. Returns whether it is taken back.
     */
    boolean takeBack(ObjectKey cluster, Optional<ClusterStatus> before, ClusterStatus status) {
        if (!get(cluster).equals(Optional.of(status))) {
            return false;
        }
        before.ifPresentOrElse(b -> put(cluster, b), () -> remove(cluster));
        return true;
    }

    /** The object-state partition of a cluster's status key (namespace/name): the partition of its objects. */
    private static int partitionOf(String statusKey, int partitionCount) {
        return ObjectKey.parse(statusKey)
                .map(key -> ObjectStateKey.partitionOf(key.name(), partitionCount))
                .orElse(-1);
    }
}
