package io.statusaggregator.model;

/**
 * A {@code MachineDeployment} reduced to its generation and status, read at its own API version; EKS-A names the one
 * of group G {@code C-G}.
 *
 * @param updatedReplicas   {@code status.updatedReplicas} at v1beta1, {@code status.upToDateReplicas} at v1beta2
 * @param availableReplicas {@code status.availableReplicas}: shown, not ruled on
 */
public record MachineDeployment(
        ObjectKey key,
        String clusterName,
        CapiApiVersion apiVersion,
        long generation,
        long observedGeneration,
        int replicas,
        int readyReplicas,
        int updatedReplicas,
        int availableReplicas,
        ObservedConditions conditions) implements ClusterMember {

    public static final String READY = "Ready";
    public static final String AVAILABLE = "Available";

    /**
     * The condition whose False says the deployment is not ready: v1beta2 has no {@code Ready} on a MachineDeployment.
     */
    public String readinessCondition() {
        return apiVersion == CapiApiVersion.V1BETA1 ? READY : AVAILABLE;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.MACHINE_DEPLOYMENT;
    }
}
