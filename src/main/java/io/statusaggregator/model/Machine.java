package io.statusaggregator.model;

import java.util.Optional;

/**
 * A {@code Machine}: which MachineDeployment owns it (label {@code cluster.x-k8s.io/deployment-name}) and the
 * Kubernetes version it runs ({@code spec.version}), which tells whether it is outdated in a modular upgrade.
 */
public record Machine(ObjectKey key, String clusterName, Optional<String> deploymentName,
        Optional<KubernetesVersion> version) implements ClusterMember {
    @Override
    public ObjectKind kind() {
        return ObjectKind.MACHINE;
    }
}
