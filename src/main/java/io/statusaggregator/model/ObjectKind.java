package io.statusaggregator.model;

import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds the status rules read. A kind is recognised by API group and kind name; the version is
 * not part of it, so v1beta1 and later versions of the same kind decode alike.
 */
public enum ObjectKind {
    EKSA_CLUSTER("anywhere.eks.amazonaws.com", "Cluster"),
    CAPI_CLUSTER("cluster.x-k8s.io", "Cluster"),
    KUBEADM_CONTROL_PLANE("controlplane.cluster.x-k8s.io", "KubeadmControlPlane"),
    MACHINE_DEPLOYMENT("cluster.x-k8s.io", "MachineDeployment"),
    MACHINE("cluster.x-k8s.io", "Machine"),
    ETCDADM_CLUSTER("etcdcluster.cluster.x-k8s.io", "EtcdadmCluster"),
    /** Not a Kubernetes API kind: what the aggregator observed of a workload cluster's CNI. */
    CNI_OBSERVATION("statusaggregator.io", "CNIObservation");

    private final String group;
    private final String kind;

    ObjectKind(String group, String kind) {
        this.group = group;
        this.kind = kind;
    }

    public String group() {
        return group;
    }

    public String kind() {
        return kind;
    }

    /** Finds the kind of an object from its {@code apiVersion} ({@code group/version}) and {@code kind}. */
    public static Optional<ObjectKind> of(String apiVersion, String kind) {
        int slash = apiVersion.lastIndexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        return Arrays.stream(values()).filter(k -> k.group.equals(group) && k.kind.equals(kind)).findFirst();
    }

    @Override
    public String toString() {
        return kind + "." + group;
    }
}
