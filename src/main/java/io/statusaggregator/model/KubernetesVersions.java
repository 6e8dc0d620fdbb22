package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/**
 * The Kubernetes versions a Cluster spec names: the cluster's, and each worker node group's own (empty where the group
 * follows the cluster's). Kept in status for the spec the cluster last reached, because the change rules compare a
 * new spec with it and {@code versions.current} holds only a hash.
 */
public record KubernetesVersions(Optional<KubernetesVersion> cluster, List<Group> workerNodeGroups) {
    public KubernetesVersions {
        workerNodeGroups = List.copyOf(workerNodeGroups);
    }

    /** A worker node group by name, with its own version if the spec sets one. */
    public record Group(String name, Optional<KubernetesVersion> own) {
    }

    public static KubernetesVersions of(EksaClusterSpec spec) {
        return new KubernetesVersions(spec.kubernetesVersion(),
                spec.workerNodeGroups().stream().map(g -> new Group(g.name(), g.kubernetesVersion())).toList());
    }

    public Optional<Group> group(String name) {
        return workerNodeGroups.stream().filter(g -> g.name().equals(name)).findFirst();
    }
}
