package io.statusaggregator.rules;

import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.KubeadmControlPlane;

/** {@code ControlPlaneInitialized}: the first control plane node is up. A latch: once True, True for good. */
public final class ControlPlaneInitialized {
    // The reasons this condition gives when it is not True.
    public static final String WAITING_FOR_CONTROL_PLANE_INITIALIZED = "WaitingForControlPlaneInitialized";

    private ControlPlaneInitialized() {
    }

    public static Verdict evaluate(ClusterSnapshot snapshot) {
        boolean wasInitialized = snapshot.cluster().status().condition(ConditionType.CONTROL_PLANE_INITIALIZED)
                .map(Condition::status)
                .filter(s -> s == ConditionStatus.TRUE)
                .isPresent();
        if (wasInitialized || initialized(snapshot)) {
            return Verdict.TRUE;
        }
        return Verdict.notMet(WAITING_FOR_CONTROL_PLANE_INITIALIZED, "First control plane not ready yet");
    }

    /**
     * The KubeadmControlPlane says so (at v1beta1 its {@code Available} True too), or, at v1beta2, the CAPI Cluster
     * does ({@link CapiCluster#controlPlaneInitialized}).
     */
    static boolean initialized(ClusterSnapshot snapshot) {
        boolean byControlPlane = ControlPlaneReady.kubeadmControlPlane(snapshot)
                .map(kcp -> kcp.initialized()
                        || kcp.availableMeansInitialized() && kcp.conditions().isTrue(KubeadmControlPlane.AVAILABLE))
                .orElse(false);
        return byControlPlane || snapshot.capiCluster().map(CapiCluster::controlPlaneInitialized).orElse(false);
    }
}
