package io.statusaggregator.versions;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaReleaseName;
import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.ManagementCluster;
import java.util.Optional;
import java.util.Set;

/**
 * The EKS-A version rules (versions.md, 000): one release named, its EKSARelease present, and an upgrade from the
 * version the cluster last reached ({@code status.versions.current}) at most one minor up, never a minor down; patch
 * changes pass, and the annotation {@code anywhere.eks.amazonaws.com/skip-eksa-version-skew-check: "true"} bypasses the
 * skew check. A workload cluster never runs a newer EKS-A version than its management cluster.
 */
public final class EksaVersionSkew {
    public static final String REASON = "EksaVersionInvalid";
    public static final String SKIP_ANNOTATION = "anywhere.eks.amazonaws.com/skip-eksa-version-skew-check";

    private EksaVersionSkew() {
    }

    private static final String BOTH = "cannot specify both eksaVersion and bundlesRef: exactly one names the release";

    /** Whether a failure pair is one this rule raises (EKS-A's controller uses the same reason for other causes). */
    public static boolean raises(Failure failure) {
        return failure.reason().equals(REASON)
                && (failure.message().equals(BOTH)
                        || failure.message().startsWith("cannot upgrade to ")
                        || failure.message().startsWith("cannot downgrade from ")
                        || failure.message().startsWith("eksarelease ")
                        || failure.message().startsWith("cannot upgrade workload cluster to "));
    }

    public static Optional<Failure> check(EksaCluster cluster, ManagementCluster management) {
        return checkRelease(cluster, management.releaseNames())
                .or(() -> checkSkew(cluster))
                .or(() -> checkManagement(cluster, management));
    }

    private static Optional<Failure> checkRelease(EksaCluster cluster, Optional<Set<String>> releases) {
        if (cluster.spec().eksaVersion().isPresent() && cluster.spec().bundlesRef().isPresent()) {
            return Optional.of(new Failure(REASON, BOTH));
        }
        if (cluster.spec().eksaVersion().isPresent() && releases.isPresent()) {
            String release = EksaReleaseName.of(cluster.spec().eksaVersion().get());
            if (!releases.get().contains(release)) {
                return Optional.of(new Failure(
                        REASON, "eksarelease " + release + " could not be found on the management cluster"));
            }
        }
        return Optional.empty();
    }

    private static Optional<Failure> checkSkew(EksaCluster cluster) {
        if ("true".equals(cluster.annotations().get(SKIP_ANNOTATION))) {
            return Optional.empty();
        }
        Optional<EksaVersion> requested = cluster.spec().eksaVersion().flatMap(EksaVersion::parse);
        Optional<EksaVersion> reached = cluster.status().versions().current()
                .map(current -> current.substring(0, current.indexOf('#')))
                .flatMap(EksaVersion::parse);
        if (requested.isEmpty() || reached.isEmpty()) {
            return Optional.empty(); // a first version, or one named by bundlesRef: nothing to compare with
        }
        EksaVersion to = requested.get();
        EksaVersion from = reached.get();
        if (to.major() < from.major() || to.major() == from.major() && to.minor() < from.minor()) {
            return Optional.of(new Failure(
                    REASON,
                    "cannot downgrade from %s to %s: EksaVersion upgrades must be incremental".formatted(from, to)));
        }
        if (to.major() != from.major() || to.minor() > from.minor() + 1) {
            return Optional.of(new Failure(
                    REASON,
                    "cannot upgrade to %s from %s: EksaVersion upgrades must have a skew of 1 minor version"
                            .formatted(to, from)));
        }
        return Optional.empty();
    }

    /** Compares whole versions, patch included, as EKS-A does: a workload cluster may not run ahead of its manager. */
    private static Optional<Failure> checkManagement(EksaCluster cluster, ManagementCluster management) {
        if (cluster.isManagement() || cluster.spec().eksaVersion().isEmpty()) {
            return Optional.empty();
        }
        Optional<String> managerVersion = Optional.ofNullable(management
                .managementEksaVersions()
                .get(cluster.spec().managementCluster().orElseThrow()));
        Optional<EksaVersion> manager = managerVersion.flatMap(EksaVersion::parse);
        Optional<EksaVersion> workload = cluster.spec().eksaVersion().flatMap(EksaVersion::parse);
        if (manager.isPresent() && workload.isPresent() && workload.get().compareTo(manager.get()) > 0) {
            return Optional.of(new Failure(
                    REASON,
                    "cannot upgrade workload cluster to %s while management cluster is an older version: %s"
                            .formatted(cluster.spec().eksaVersion().get(), managerVersion.get())));
        }
        return Optional.empty();
    }
}
