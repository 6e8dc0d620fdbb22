package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.model.KubernetesVersion;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * {@code WorkersReady}: the worker node groups have their desired number of ready, up-to-date nodes. First rule
 * wins. Counts are summed over the MachineDeployments of groups without autoscaling; a MachineDeployment that
 * matches no group (one of a group being removed) is counted too, so that its nodes show as scaling down.
 */
public final class WorkersReady {
    // The reasons this condition gives when it is not True.
    public static final String OUTDATED_INFORMATION = "OutdatedInformation";
    public static final String ROLLING_UPGRADE_IN_PROGRESS = "RollingUpgradeInProgress";
    public static final String SCALING_DOWN = "ScalingDown";
    public static final String AUTOSCALER_CONSTRAINT_NOT_MET = "AutoscalerConstraintNotMet";
    public static final String MACHINE_DEPLOYMENT_NOT_READY = "MachineDeploymentNotReady";
    public static final String SCALING_UP = "ScalingUp";

    private WorkersReady() {
    }

    public static Verdict evaluate(ClusterSnapshot snapshot, boolean controlPlaneInitialized) {
        EksaClusterSpec spec = snapshot.cluster().spec();
        String clusterName = snapshot.cluster().key().name();
        List<WorkerNodeGroup> groups = spec.workerNodeGroups();
        List<MachineDeployment> deployments = inGroupOrder(snapshot.machineDeployments(), groups, clusterName);

        int desired = groups.stream().filter(g -> g.autoscaling().isEmpty()).mapToInt(WorkerNodeGroup::count).sum();
        if (!controlPlaneInitialized && desired > 0) {
            return scalingUp(desired, 0);
        }
        for (MachineDeployment md : deployments) {
            if (md.observedGeneration() != md.generation()) {
                String group = groupOf(md, groups, clusterName).map(WorkerNodeGroup::name).orElse(md.key().name());
                return Verdict.notMet(
                        OUTDATED_INFORMATION, "Worker node group %s status not up to date yet".formatted(group));
            }
        }

        int replicas = 0;
        int ready = 0;
        int outdated = 0;
        for (MachineDeployment md : deployments) {
            Optional<WorkerNodeGroup> group = groupOf(md, groups, clusterName);
            if (group.isPresent() && group.get().autoscaling().isPresent()) {
                continue;
            }
            replicas += md.replicas();
            ready += md.readyReplicas();
            outdated += outdated(md, group.flatMap(spec::kubernetesVersionOf), snapshot);
        }
        if (outdated > 0) {
            return Verdict.notMet(
                    ROLLING_UPGRADE_IN_PROGRESS,
                    "Worker nodes not up-to-date yet, %d upgrading (%d up to date)"
                            .formatted(outdated, replicas - outdated));
        }
        if (replicas > desired) {
            return Verdict.notMet(
                    SCALING_DOWN, "Scaling down worker nodes to %d replicas (actual %d)".formatted(desired, replicas));
        }
        if (ready < desired) {
            return scalingUp(desired, ready);
        }
        for (WorkerNodeGroup group : groups) {
            if (group.autoscaling().isEmpty()) {
                continue;
            }
            WorkerNodeGroup.Autoscaling bounds = group.autoscaling().get();
            int groupReady = deployments.stream()
                    .filter(md -> md.key().name().equals(group.machineDeploymentName(clusterName)))
                    .mapToInt(MachineDeployment::readyReplicas).sum();
            if (groupReady < bounds.minCount() || groupReady > bounds.maxCount()) {
                return Verdict.notMet(
                        AUTOSCALER_CONSTRAINT_NOT_MET,
                        "Worker nodes count for %s not between %d and %d yet (%d actual)"
                                .formatted(group.name(), bounds.minCount(), bounds.maxCount(), groupReady));
            }
        }
        for (MachineDeployment md : deployments) {
            if (md.conditions().isFalse(md.readinessCondition())) {
                return Verdict.notMet(
                        MACHINE_DEPLOYMENT_NOT_READY,
                        "Machine deployment %s not ready yet".formatted(md.key().name()),
                        Severity.ERROR);
            }
        }
        return Verdict.TRUE;
    }

    /**
     * The outdated workers of one MachineDeployment: those it counts as not updated, or its Machines on another
     * major.minor than the group's desired version, whichever is more (the two usually overlap: once the template
     * carries the new version, the Machines on the old one are the ones not updated), never more than its replicas.
     */
    static int outdated(MachineDeployment md, Optional<KubernetesVersion> desired, ClusterSnapshot snapshot) {
        int notUpdated = Math.max(0, md.replicas() - md.updatedReplicas());
        if (desired.isEmpty()) {
            return notUpdated;
        }
        // Loops, not streams, here and below: every computation of a cluster runs these.
        String name = md.key().name();
        int onOtherVersion = 0;
        for (Machine machine : snapshot.machines()) {
            if (machine.deploymentName().filter(name::equals).isPresent()
                    && machine.version().filter(v -> !v.equals(desired.get())).isPresent()) {
                onOtherVersion++;
            }
        }
        return Math.max(notUpdated, Math.min(onOtherVersion, md.replicas()));
    }

    private static Optional<WorkerNodeGroup> groupOf(
            MachineDeployment md, List<WorkerNodeGroup> groups, String clusterName) {
        for (WorkerNodeGroup group : groups) {
            if (group.machineDeploymentName(clusterName).equals(md.key().name())) {
                return Optional.of(group);
            }
        }
        return Optional.empty();
    }

    /** MachineDeployments in the order of their groups in the spec, then those of no group by name: first rule wins
     * must pick the same one every time. */
    private static List<MachineDeployment> inGroupOrder(
            List<MachineDeployment> deployments, List<WorkerNodeGroup> groups, String clusterName) {
        Comparator<MachineDeployment> byGroup = Comparator.comparingInt(md -> {
            for (int i = 0; i < groups.size(); i++) {
                if (groups.get(i).machineDeploymentName(clusterName).equals(md.key().name())) {
                    return i;
                }
            }
            return groups.size();
        });
        return deployments.stream().sorted(byGroup.thenComparing(md -> md.key().name())).toList();
    }

    private static Verdict scalingUp(int desired, int actual) {
        return Verdict.notMet(
                SCALING_UP, "Workers expected not ready yet, %d replicas (actual %d)".formatted(desired, actual));
    }
}
