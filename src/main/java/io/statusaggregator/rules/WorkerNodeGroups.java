package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.MachineDeployment;

import io.statusaggregator.model.KubernetesVersion;
import java.util.List;
import java.util.Optional;

/**
 * {@code status.workerNodeGroups[]}: each group of the spec, in order, with its desired Kubernetes version and the
 * counts of its MachineDeployment; up to date counts the workers WorkersReady does not count as outdated.
 */
public final class WorkerNodeGroups {
    private WorkerNodeGroups() {
    }

    public static List<WorkerNodeGroupStatus> summarize(ClusterSnapshot snapshot) {
        String clusterName = snapshot.cluster().key().name();
        return snapshot.cluster().spec().workerNodeGroups().stream()
                .map(group -> {
                    Optional<KubernetesVersion> desired =
                            snapshot.cluster().spec().kubernetesVersionOf(group);
                    Optional<MachineDeployment> md = snapshot.machineDeployments().stream()
                            .filter(d -> d.key().name().equals(group.machineDeploymentName(clusterName)))
                            .findFirst();
                    int replicas = md.map(MachineDeployment::replicas).orElse(0);
                    int outdated = md.map(d -> WorkersReady.outdated(d, desired, snapshot))
                            .orElse(0);
                    return new WorkerNodeGroupStatus(
                            group.name(),
                            desired,
                            replicas,
                            md.map(MachineDeployment::readyReplicas).orElse(0),
                            replicas - outdated);
                })
                .toList();
    }

}
