package io.statusaggregator.model;

/**
 * A {@code KubeadmControlPlane} reduced to its generation and status. A new object has no status yet:
 * every count is then 0 and {@code observedGeneration} 0, which never equals a real generation.
 */
public record KubeadmControlPlane(
        ObjectKey key,
        String clusterName,
        long generation,
        long observedGeneration,
        int replicas,
        int readyReplicas,
        int updatedReplicas,
        int unavailableReplicas,
        boolean initialized,
        ObservedConditions conditions) implements ClusterMember {

    public static final String AVAILABLE = "Available";
    public static final String CONTROL_PLANE_COMPONENTS_HEALTHY = "ControlPlaneComponentsHealthy";

    @Override
    public ObjectKind kind() {
        return ObjectKind.KUBEADM_CONTROL_PLANE;
    }
}
