package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ManagementCluster;
import java.util.Optional;

/**
 * Every version rule of versions.md, in one order for the status and the admission webhook alike, so that a spec the
 * webhook refuses is the spec the status would show failed, with the same message: the skew that always holds, the
 * Kubernetes change from the versions last reached, then the EKS-A rules.
 */
public final class VersionRules {
    private VersionRules() {
    }

    /**
     * @param cluster the Cluster with the spec to judge and the status it shows (whose {@code versions} say what
     *                the cluster last reached)
     */
    public static Optional<Failure> check(EksaCluster cluster, ManagementCluster management) {
        return KubernetesVersionSkew.check(cluster.spec())
                .or(() -> cluster.status().versions().currentKubernetes()
                        .flatMap(reached -> KubernetesVersionChange.check(reached, cluster.spec())))
                .or(() -> EksaVersionSkew.check(cluster, management));
    }
}
