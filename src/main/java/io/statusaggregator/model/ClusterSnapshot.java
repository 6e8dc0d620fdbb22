package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/**
 * Everything known about one workload cluster at one moment: the input of the status rules. The lists hold the
 * cluster's objects from the CAPI namespace; which of them the rules use (the control plane the CAPI Cluster
 * names, say) is the rules' decision.
 *
 * @param expectedCiliumVersion the Cilium version the cluster's EKS-A release ships, from compatibility data;
 *                              empty when the release or its Cilium version is unknown
 * @param supportedKubernetes   the Kubernetes versions the cluster's EKS-A release supports, from compatibility data;
 *                              empty when the release is unknown to it
 * @param management            the management cluster's EKSARelease objects and management Clusters
 * @param malformed             the cluster's objects that exist but cannot be read (the EKS-A Cluster among them,
 *                              when its own spec cannot): the rules report them instead of computing without them
 * @param nameConflict          when another namespace's Cluster holds this Cluster's name: the lists are then empty
 */
public record ClusterSnapshot(
        EksaCluster cluster,
        Optional<CapiCluster> capiCluster,
        List<KubeadmControlPlane> controlPlanes,
        List<MachineDeployment> machineDeployments,
        List<Machine> machines,
        List<EtcdadmCluster> etcdClusters,
        Optional<CniObservation> cni,
        Optional<String> expectedCiliumVersion,
        Optional<List<KubernetesVersion>> supportedKubernetes,
        ManagementCluster management,
        List<MalformedObject> malformed,
        Optional<NameConflict> nameConflict) {
    public ClusterSnapshot {
        malformed = List.copyOf(malformed);
        controlPlanes = List.copyOf(controlPlanes);
        machineDeployments = List.copyOf(machineDeployments);
        machines = List.copyOf(machines);
        etcdClusters = List.copyOf(etcdClusters);
        supportedKubernetes = supportedKubernetes.map(List::copyOf);
    }

    /** The same snapshot with the Cluster showing {@code shown} as its status. */
    public ClusterSnapshot showing(ClusterStatus shown) {
        return new ClusterSnapshot(cluster.withStatus(shown), capiCluster, controlPlanes, machineDeployments, machines,
                etcdClusters, cni, expectedCiliumVersion, supportedKubernetes, management, malformed, nameConflict);
    }
}
