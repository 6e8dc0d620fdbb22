package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.NameConflict;
import java.util.Optional;

/**
 * A Cluster whose name another namespace's Cluster holds (status-rules.md, "Two EKS-A Clusters with one name"): its
 * spec cannot be realised while the other exists, so it shows this failure pair; its conditions are computed from the
 * no CAPI objects it has, and it clears itself once the other is gone.
 */
public final class ClusterNameConflict {
    public static final String REASON = "ClusterNameConflict";

    private ClusterNameConflict() {
    }

    /** Whether a failure pair is one this rule raises. */
    static boolean raises(Failure failure) {
        return failure.reason().equals(REASON);
    }

    static Optional<Failure> check(ClusterSnapshot snapshot) {
        return snapshot.nameConflict().map(conflict -> failure(snapshot.cluster().key().name(), conflict));
    }

    static Failure failure(String name, NameConflict conflict) {
        return new Failure(REASON, "cluster name %s is already used by %s: CAPI objects in %s are matched by name"
                .formatted(name, conflict.holder(), conflict.capiNamespace()));
    }
}
