package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.WorkerNodeGroup;
import java.util.Optional;

/**
 * The skew rule that holds for every spec (versions.md, 002): each worker node group runs the control plane's
 * major version and at most two minors behind it, never ahead.
 */
public final class KubernetesVersionSkew {
    public static final String REASON = "KubernetesVersionInvalid";

    private KubernetesVersionSkew() {
    }

    /** Whether a failure pair is one this rule raises. */
    public static boolean raises(Failure failure) {
        return failure.reason().equals(REASON);
    }

    public static Optional<Failure> check(EksaClusterSpec spec) {
        if (spec.kubernetesVersion().isEmpty()) {
            return Optional.empty();
        }
        KubernetesVersion controlPlane = spec.kubernetesVersion().get();
        for (WorkerNodeGroup group : spec.workerNodeGroups()) {
            KubernetesVersion workers = spec.kubernetesVersionOf(group).orElseThrow();
            int skew = controlPlane.minor() - workers.minor();
            if (workers.major() != controlPlane.major() || skew < 0 || skew > 2) {
                return Optional.of(new Failure(REASON,
                        "cluster level minor version must be within 2 versions greater than worker node group version: "
                                + group.name()));
            }
        }
        return Optional.empty();
    }
}
