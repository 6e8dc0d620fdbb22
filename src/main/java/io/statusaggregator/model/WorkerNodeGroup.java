package io.statusaggregator.model;

import java.util.Optional;

/** One entry of {@code spec.workerNodeGroupConfigurations}. */
public record WorkerNodeGroup(String name, int count, Optional<Autoscaling> autoscaling,
        Optional<KubernetesVersion> kubernetesVersion) {

    /** {@code autoscalingConfiguration}: the group's size is the autoscaler's to choose within these bounds. */
    public record Autoscaling(int minCount, int maxCount) {
    }

    /** The MachineDeployment EKS-A creates for this group in cluster {@code clusterName}. */
    public String machineDeploymentName(String clusterName) {
        return clusterName + "-" + name;
    }
}
