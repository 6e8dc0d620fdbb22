package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesVersions;
import java.util.Optional;

/**
 * {@code status.versions} (versions.md, 003): the spec's version is {@code <release>#<hash>}, the release being the
 * EKS-A version (or the bundlesRef name). A spec whose version differs from {@code current} is being rolled out
 * ({@code next}); when the cluster is Ready at its generation, {@code current} moves to {@code last} (the rollback
 * target) and {@code next} becomes {@code current}. {@code currentKubernetes} records the Kubernetes versions of the
 * spec {@code current} names, for the change rules.
 */
public final class VersionHistory {
    private VersionHistory() {
    }

    public static String specVersion(EksaCluster cluster) {
        String release = cluster.spec().eksaVersion().or(() -> cluster.spec().bundlesRef()).orElse("");
        return release + "#" + cluster.specHash();
    }

    /**
     * @param readyAtGeneration Ready is True in a status computed for the Cluster's current generation
     */
    public static Versions advance(EksaCluster cluster, boolean readyAtGeneration) {
        Versions before = cluster.status().versions();
        String spec = specVersion(cluster);
        KubernetesVersions specKubernetes = KubernetesVersions.of(cluster.spec());
        boolean atCurrent = before.current().filter(spec::equals).isPresent();
        if (atCurrent) {
            // The spec is the one current names, so its versions are current's (this also fills them in where
            // an older status lacks them).
            return new Versions(Optional.empty(), before.current(), before.last(), Optional.of(specKubernetes));
        }
        if (readyAtGeneration) {
            return new Versions(
                    Optional.empty(),
                    Optional.of(spec),
                    before.current().or(before::last),
                    Optional.of(specKubernetes));
        }
        return new Versions(Optional.of(spec), before.current(), before.last(),
                before.current().isPresent() ? before.currentKubernetes() : Optional.empty());
    }
}
