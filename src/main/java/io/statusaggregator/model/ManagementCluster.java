package io.statusaggregator.model;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the management cluster holds that the rules of every cluster may read: its {@code EKSARelease} objects, and the
 * EKS-A version of each Cluster that manages itself (a management cluster), by name.
 *
 * @param releases              empty while not known, so that no release is reported missing for want of a look
 * @param managementEksaVersions {@code spec.eksaVersion} of each management Cluster, by name
 */
public record ManagementCluster(Optional<List<EksaRelease>> releases, Map<String, String> managementEksaVersions) {
    public static final ManagementCluster UNKNOWN = new ManagementCluster(Optional.empty(), Map.of());

    public ManagementCluster {
        releases = releases.map(List::copyOf);
        managementEksaVersions = Map.copyOf(managementEksaVersions);
    }

    public Optional<Set<String>> releaseNames() {
        return releases.map(all -> all.stream().map(EksaRelease::name).collect(Collectors.toUnmodifiableSet()));
    }
}
