package io.statusaggregator.versions;

import io.statusaggregator.model.KubernetesVersion;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.WorkerNodeGroup;
import java.util.Optional;

/**
 * The rules for a change of Kubernetes versions (versions.md, 002), from the versions of the spec the cluster last
 * reached to the spec now: the control plane stays or rises by one minor, and so does each worker node group that
 * sets its own version (compared with its own old version, or the old cluster version where it had none). A group
 * may not drop its own version in the same step as the cluster version changes.
 */
public final class KubernetesVersionChange {
    private KubernetesVersionChange() {
    }

    public static Optional<Failure> check(KubernetesVersions reached, EksaClusterSpec spec) {
        Optional<KubernetesVersion> oldCluster = reached.cluster();
        Optional<KubernetesVersion> newCluster = spec.kubernetesVersion();
        if (oldCluster.isPresent() && newCluster.isPresent()) {
            Optional<Failure> failure = step(oldCluster.get(), newCluster.get());
            if (failure.isPresent()) {
                return failure;
            }
        }
        for (WorkerNodeGroup group : spec.workerNodeGroups()) {
            Optional<KubernetesVersions.Group> before = reached.group(group.name());
            if (before.isEmpty()) {
                continue; // a new group: only the skew rule that always holds applies
            }
            Optional<KubernetesVersion> oldOwn = before.get().own();
            if (oldOwn.isPresent() && group.kubernetesVersion().isEmpty() && !oldCluster.equals(newCluster)) {
                return Optional.of(new Failure(
                        KubernetesVersionSkew.REASON,
                        "can't simultaneously remove worker kubernetesVersion and upgrade cluster level"
                                + " kubernetesVersion: "
                                + group.name()));
            }
            Optional<KubernetesVersion> old = oldOwn.or(() -> oldCluster);
            if (group.kubernetesVersion().isPresent() && old.isPresent()) {
                Optional<Failure> failure = step(old.get(), group.kubernetesVersion().get());
                if (failure.isPresent()) {
                    return failure;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Failure> step(KubernetesVersion from, KubernetesVersion to) {
        if (to.compareTo(from) < 0) {
            return Optional.of(new Failure(KubernetesVersionSkew.REASON,
                    "kubernetes version downgrade is not supported (%s) -> (%s)".formatted(from, to)));
        }
        int skew = to.minor() - from.minor();
        if (skew < 0 || skew > 1) {
            return Optional.of(new Failure(KubernetesVersionSkew.REASON,
                    "only +1 minor version skew is supported, minor version skew detected " + skew));
        }
        return Optional.empty();
    }
}
