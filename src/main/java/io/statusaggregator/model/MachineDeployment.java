package io.statusaggregator.model;

/** A {@code MachineDeployment} reduced to its generation and status; EKS-A names the one of group G {@code C-G}. */
public record MachineDeployment(
        ObjectKey key,
        String clusterName,
        long generation,
        long observedGeneration,
        int replicas,
        int readyReplicas,
        int updatedReplicas,
        ObservedConditions conditions) implements ClusterMember {

    public static final String READY = "Ready";

    @Override
    public ObjectKind kind() {
        return ObjectKind.MACHINE_DEPLOYMENT;
    }
}
