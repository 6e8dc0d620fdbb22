package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ManagementCluster;
import java.util.List;
import java.util.Optional;

/**
 * Every version rule of versions.md, in one order for the status and the admission webhook alike, so that a spec the
 * webhook refuses is the spec the status would show failed, with the same message: the skew that always holds, the
 * Kubernetes change from the versions last reached, the EKS-A rules, then the Kubernetes versions the release
 * supports.
 */
public final class VersionRules {
    private VersionRules() {
    }

    /**
     * @param cluster the Cluster with the spec to judge and the status it shows (whose {@code versions} say what
     *                the cluster last reached)
     * @param supported the Kubernetes versions the spec's EKS-A release supports ({@link #supportedBy}); empty when
     *                  the compatibility data does not know the release
     */
    public static Optional<Failure> check(EksaCluster cluster, ManagementCluster management,
            Optional<List<KubernetesVersion>> supported) {
        return KubernetesVersionSkew.check(cluster.spec())
                .or(() -> cluster.status().versions().currentKubernetes()
                        .flatMap(reached -> KubernetesVersionChange.check(reached, cluster.spec())))
                .or(() -> EksaVersionSkew.check(cluster, management))
                .or(() -> KubernetesSupport.check(cluster.spec(), supported));
    }

    /** The Kubernetes versions the EKS-A release {@code spec} names supports, as {@code compatibility} says. */
    public static Optional<List<KubernetesVersion>> supportedBy(EksaClusterSpec spec, Compatibility compatibility) {
        return spec.eksaVersion().flatMap(EksaVersion::parse).flatMap(compatibility::kubernetesFor);
    }
}
