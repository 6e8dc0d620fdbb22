package io.statusaggregator.model;

/**
 * A {@code KubeadmControlPlane} reduced to its generation and status, read at its own API version. A new object has
 * no status yet: every count is then 0 and {@code observedGeneration} 0, which never equals a real generation.
 *
 * @param updatedReplicas   {@code status.updatedReplicas} at v1beta1, {@code status.upToDateReplicas} at v1beta2
 * @param readyReplicas     at v1beta1 the Nodes that are ready; at v1beta2 the Machines whose {@code Ready} is True
 * @param availableReplicas {@code status.availableReplicas} (v1beta2; 0 at v1beta1, which has none): shown, not ruled
 * on
 * @param initialized       {@code status.initialized} at v1beta1, {@code status.initialization.controlPlaneInitialized}
 *                          at v1beta2
 */
public record KubeadmControlPlane(
        ObjectKey key,
        String clusterName,
        CapiApiVersion apiVersion,
        long generation,
        long observedGeneration,
        int replicas,
        int readyReplicas,
        int updatedReplicas,
        int availableReplicas,
        boolean initialized,
        ObservedConditions conditions)
        implements ClusterMember {

    public static final String AVAILABLE = "Available";
    public static final String CONTROL_PLANE_COMPONENTS_HEALTHY = "ControlPlaneComponentsHealthy";

    /**
     * Whether {@code Available} True also says the control plane is initialized: at v1beta1 it does; at v1beta2 it
     * means more (certificates, healthy components, etcd quorum) and can turn False again.
     */
    public boolean availableMeansInitialized() {
        return apiVersion == CapiApiVersion.V1BETA1;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.KUBEADM_CONTROL_PLANE;
    }
}
