package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/**
 * The parts of an EKS-A Cluster's spec that the status rules read.
 *
 * @param managementCluster {@code spec.managementCluster.name}: the cluster that manages this one (itself, for a
 *                          management cluster)
 */
public record EksaClusterSpec(
        int controlPlaneCount,
        List<WorkerNodeGroup> workerNodeGroups,
        Optional<KubernetesVersion> kubernetesVersion,
        Optional<String> eksaVersion,
        Optional<String> bundlesRef,
        boolean externalEtcd,
        CniConfig cni,
        Optional<String> managementCluster) {
    public EksaClusterSpec {
        workerNodeGroups = List.copyOf(workerNodeGroups);
    }

    /** A worker node group's desired Kubernetes version: its own, else the cluster's. */
    public Optional<KubernetesVersion> kubernetesVersionOf(WorkerNodeGroup group) {
        return group.kubernetesVersion().or(this::kubernetesVersion);
    }

    /** How the cluster's default CNI is configured: which one, and whether EKS-A's upgrades of it are skipped. */
    public record CniConfig(Cni cni, boolean skipUpgrade) {
    }
}
