package io.statusaggregator.rules;

import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.Severity;
import java.util.Optional;

/** {@code ControlPlaneReady}: the control plane has the desired number of ready, up-to-date nodes. First rule wins. */
public final class ControlPlaneReady {
    // The reasons this condition gives when it is not True.
    public static final String EXTERNAL_ETCD_NOT_AVAILABLE = "ExternalEtcdNotAvailable";
    public static final String OUTDATED_INFORMATION = "OutdatedInformation";
    public static final String ROLLING_UPGRADE_IN_PROGRESS = "RollingUpgradeInProgress";
    public static final String SCALING_DOWN = "ScalingDown";
    public static final String CONTROL_PLANE_COMPONENTS_UNHEALTHY = "ControlPlaneComponentsUnhealthy";
    public static final String KUBEADM_CONTROL_PLANE_NOT_READY = "KubeadmControlPlaneNotReady";
    public static final String SCALING_UP = "ScalingUp";

    private ControlPlaneReady() {
    }

    public static Verdict evaluate(ClusterSnapshot snapshot) {
        int desired = snapshot.cluster().spec().controlPlaneCount();
        if (snapshot.cluster().spec().externalEtcd() && !externalEtcdAvailable(snapshot)) {
            return Verdict.notMet(EXTERNAL_ETCD_NOT_AVAILABLE, "Etcd cluster is not available");
        }
        Optional<KubeadmControlPlane> found = kubeadmControlPlane(snapshot);
        if (found.isEmpty()) {
            return scalingUp(desired, 0);
        }
        KubeadmControlPlane kcp = found.get();
        if (kcp.observedGeneration() != kcp.generation()) {
            return Verdict.notMet(OUTDATED_INFORMATION, "Control plane status not up to date yet");
        }
        int upgrading = kcp.replicas() - kcp.updatedReplicas();
        if (upgrading > 0) {
            return Verdict.notMet(
                    ROLLING_UPGRADE_IN_PROGRESS,
                    "Control plane nodes not up-to-date yet, %d upgrading (%d up to date)"
                            .formatted(upgrading, kcp.updatedReplicas()));
        }
        if (kcp.replicas() > desired) {
            return Verdict.notMet(SCALING_DOWN, "Scaling down control plane to %d replicas (actual %d)"
                    .formatted(desired, kcp.replicas()));
        }
        if (kcp.readyReplicas() < desired) {
            return scalingUp(desired, kcp.readyReplicas());
        }
        Optional<ObservedCondition> components =
                kcp.conditions().get(KubeadmControlPlane.CONTROL_PLANE_COMPONENTS_HEALTHY);
        if (components.isPresent() && components.get().isFalse()) {
            return Verdict.notMet(CONTROL_PLANE_COMPONENTS_UNHEALTHY, components.get().message(), Severity.ERROR);
        }
        if (kcp.conditions().isFalse(KubeadmControlPlane.AVAILABLE)) {
            return Verdict.notMet(KUBEADM_CONTROL_PLANE_NOT_READY, "Kubeadm control plane %s not ready yet"
                    .formatted(kcp.key().name()), Severity.ERROR);
        }
        return Verdict.TRUE;
    }

    private static Verdict scalingUp(int desired, int actual) {
        return Verdict.notMet(
                SCALING_UP, "Scaling up control plane to %d replicas (actual %d)".formatted(desired, actual));
    }

    /**
     * The KubeadmControlPlane the CAPI Cluster's {@code spec.controlPlaneRef} names; EKS-A names it like the cluster.
     */
    static Optional<KubeadmControlPlane> kubeadmControlPlane(ClusterSnapshot snapshot) {
        String name = snapshot.capiCluster().flatMap(CapiCluster::controlPlaneRef)
                .orElse(snapshot.cluster().key().name());
        return snapshot.controlPlanes().stream().filter(kcp -> kcp.key().name().equals(name)).findFirst();
    }

    /** The external etcd is available when the EtcdadmCluster the CAPI Cluster names ({@code C-etcd}) is ready. */
    static boolean externalEtcdAvailable(ClusterSnapshot snapshot) {
        String name = snapshot.capiCluster().flatMap(CapiCluster::managedExternalEtcdRef)
                .orElse(snapshot.cluster().key().name() + "-etcd");
        return snapshot.etcdClusters().stream().anyMatch(etcd -> etcd.key().name().equals(name) && etcd.ready());
    }
}
