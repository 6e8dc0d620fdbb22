package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaCluster;
import java.util.Optional;

/**
 * {@code status.versions} (versions.md, 003): the spec's version is {@code <release>#<hash>}, the release being the
 * EKS-A version (or the bundlesRef name). A spec whose version differs from {@code current} is being rolled out
 * ({@code next}); when the cluster is Ready at its generation, {@code current} moves to {@code last} (the rollback
 * target) and {@code next} becomes {@code current}.
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
        Optional<String> next = before.current().filter(spec::equals).isPresent() ? Optional.empty() : Optional.of(spec);
        if (readyAtGeneration && next.isPresent()) {
            Optional<String> last = before.current().filter(c -> !c.equals(spec)).or(before::last);
            return new Versions(Optional.empty(), next, last);
        }
        return new Versions(next, before.current(), before.last());
    }
}
