package io.statusaggregator.model;

/** An object that belongs to one workload cluster through its cluster name, in the CAPI namespace. */
public sealed interface ClusterMember extends KubernetesObject
        permits CapiCluster, KubeadmControlPlane, MachineDeployment, Machine, EtcdadmCluster, CniObservation {
    /** The name of the EKS-A (and CAPI) cluster this object belongs to. */
    String clusterName();
}
