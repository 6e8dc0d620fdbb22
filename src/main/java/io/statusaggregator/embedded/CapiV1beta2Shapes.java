package io.statusaggregator.embedded;

import static io.statusaggregator.embedded.CapiObjects.map;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The Cluster API objects at {@code v1beta2}, as CAPI v1.13 writes them (see {@link CapiShapes}): references
 * {@code {apiGroup, kind, name}}, {@code rollout.strategy}, the counters {@code readyReplicas},
 * {@code availableReplicas} and {@code upToDateReplicas}, {@code status.initialization}, conditions as
 * {@code metav1.Condition} (a reason always, no severity, {@code observedGeneration}), and what v1beta1 said under
 * {@code status.deprecated.v1beta1}: the same lifecycle as {@link CapiV1beta1Shapes} tells, which writes that block.
 * Messages follow CAPI's: one {@code * } line per object or condition behind a condition that is not as it should be.
 */
final class CapiV1beta2Shapes implements CapiShapes {
    private static final String INFRASTRUCTURE = "infrastructure.cluster.x-k8s.io";
    private static final String BOOTSTRAP = "bootstrap.cluster.x-k8s.io";
    /** What v1beta1 said; its namespace only appears in specs, which this class writes itself. */
    private final CapiV1beta1Shapes v1beta1 = new CapiV1beta1Shapes("");

    @Override
    public CapiApiVersion version() {
        return CapiApiVersion.V1BETA2;
    }

    // Specs.

    @Override
    public Map<String, Object> capiClusterSpec(SimulatedCluster cluster) {
        return map(
                "clusterNetwork", CapiObjects.clusterNetwork(),
                "controlPlaneRef", map("apiGroup", ObjectKind.KUBEADM_CONTROL_PLANE.group(),
                        "kind", ObjectKind.KUBEADM_CONTROL_PLANE.kind(), "name", cluster.name),
                "infrastructureRef", map("apiGroup", INFRASTRUCTURE, "kind", "DockerCluster", "name", cluster.name));
    }

    @Override
    public Map<String, Object> kubeadmControlPlaneSpec(SimulatedCluster cluster) {
        return map(
                "replicas", cluster.controlPlane.replicas,
                "version", cluster.controlPlane.version,
                "machineTemplate", map("spec", map("infrastructureRef", map("apiGroup", INFRASTRUCTURE,
                        "kind", "DockerMachineTemplate", "name", cluster.name + "-control-plane"))),
                "rollout", map("strategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1))));
    }

    @Override
    public Map<String, Object> machineDeploymentSpec(SimulatedCluster cluster, Group group) {
        MachineSet set = group.machines;
        Map<String, Object> selector = CapiObjects.deploymentLabels(set);
        return map(
                "clusterName", cluster.name,
                "replicas", set.replicas,
                "rollout", map("strategy", map("type", "RollingUpdate",
                        "rollingUpdate", map("maxSurge", 1, "maxUnavailable", 0))),
                "selector", map("matchLabels", selector),
                "template", map(
                        "metadata", map("labels", selector),
                        "spec", map(
                                "clusterName", cluster.name,
                                "version", set.version,
                                "bootstrap", map("configRef", map("apiGroup", BOOTSTRAP,
                                        "kind", "KubeadmConfigTemplate", "name", set.objectName)),
                                "infrastructureRef", map("apiGroup", INFRASTRUCTURE,
                                        "kind", "DockerMachineTemplate", "name", set.objectName))));
    }

    @Override
    public Map<String, Object> machineSpec(MachineSet set, String name) {
        return map(
                "clusterName", set.clusterName,
                "version", set.version,
                "bootstrap", map("configRef", map("apiGroup", BOOTSTRAP, "kind", "KubeadmConfig", "name", name)),
                "infrastructureRef", map("apiGroup", INFRASTRUCTURE, "kind", "DockerMachine", "name", name));
    }

    // Statuses.

    @Override
    public Map<String, Object> kubeadmControlPlaneStatus(SimulatedCluster cluster, long observedGeneration) {
        MachineSet set = cluster.controlPlane;
        int replicas = set.machines.size();
        int ready = set.ready();
        boolean initialized = cluster.initialized();
        Map<String, Object> status = map(
                "observedGeneration", observedGeneration,
                "selector", CapiShapes.selector(set),
                "replicas", replicas,
                "readyReplicas", ready,
                "availableReplicas", ready,
                "upToDateReplicas", set.updated());
        set.machines.stream().map(m -> m.version).min(Comparator.naturalOrder())
                .ifPresent(v -> status.put("version", v));
        if (initialized) {
            status.put("initialization", map("controlPlaneInitialized", true));
        }
        Conditions conditions = new Conditions(observedGeneration);
        conditions.add("Available", initialized, "Available", "NotAvailable", "Control plane not yet initialized");
        conditions.add("Initialized", initialized, "Initialized", "NotInitialized",
                "Control plane not yet initialized");
        conditions.add("CertificatesAvailable", true, "Available", "", "");
        boolean healthy = replicas > 0 && ready == replicas;
        conditions.add("EtcdClusterHealthy", healthy, "Healthy", "NotHealthy",
                perMachine(set, "EtcdMemberHealthy: Waiting for a Node to exist"));
        conditions.add("ControlPlaneComponentsHealthy", healthy, "Healthy", "NotHealthy",
                perMachine(set, "APIServerPodHealthy: Waiting for a Node to exist"));
        machineSetConditions(conditions, set);
        Map<String, Object> deprecated = v1beta1.kubeadmControlPlaneStatus(cluster, observedGeneration);
        status.put("conditions", conditions.list);
        status.put("deprecated", map("v1beta1", map(
                "conditions", deprecated.get("conditions"),
                "readyReplicas", deprecated.get("readyReplicas"),
                "updatedReplicas", deprecated.get("updatedReplicas"),
                "unavailableReplicas", deprecated.get("unavailableReplicas"))));
        return status;
    }

    @Override
    public Map<String, Object> machineDeploymentStatus(MachineSet set, long observedGeneration) {
        int ready = set.ready();
        Conditions conditions = new Conditions(observedGeneration);
        conditions.add("Available", available(set), "Available", "NotAvailable", unavailable(set));
        machineSetConditions(conditions, set);
        Map<String, Object> deprecated = v1beta1.machineDeploymentStatus(set, observedGeneration);
        return map(
                "observedGeneration", observedGeneration,
                "selector", CapiShapes.selector(set),
                "replicas", set.machines.size(),
                "readyReplicas", ready,
                "availableReplicas", ready,
                "upToDateReplicas", set.updated(),
                "phase", CapiObjects.phase(set),
                "conditions", conditions.list,
                "deprecated", map("v1beta1", map(
                        "conditions", deprecated.get("conditions"),
                        "updatedReplicas", deprecated.get("updatedReplicas"),
                        "readyReplicas", deprecated.get("readyReplicas"),
                        "availableReplicas", deprecated.get("availableReplicas"),
                        "unavailableReplicas", deprecated.get("unavailableReplicas"))));
    }

    @Override
    public Map<String, Object> machineStatus(SimMachine machine, MachineSet set) {
        boolean ready = machine.ready;
        Map<String, Object> initialization = map("bootstrapDataSecretCreated", true);
        if (ready) {
            initialization.put("infrastructureProvisioned", true);
        }
        // A Machine's spec is never changed here (a rollout replaces Machines): its generation stays 1.
        Conditions conditions = new Conditions(1);
        String waiting = "* NodeHealthy: Waiting for a Node with spec.providerID docker:////" + machine.name
                + " to exist";
        conditions.add("Available", ready, "Available", "NotReady", waiting);
        conditions.add("Ready", ready, "Ready", "NotReady", waiting);
        conditions.add("UpToDate", machine.version.equals(set.version), "UpToDate", "NotUpToDate",
                "* Version " + machine.version + ", " + set.version + " required");
        conditions.add("BootstrapConfigReady", true, "Ready", "", "");
        conditions.add("InfrastructureReady", ready, "Ready", "NotReady",
                "DockerMachine status.initialization.provisioned is false");
        conditions.add("NodeReady", ready, "NodeReady", "NodeDoesNotExist",
                "Waiting for a Node with spec.providerID docker:////" + machine.name + " to exist");
        conditions.add("NodeHealthy", ready, "NodeHealthy", "NodeDoesNotExist",
                "Waiting for a Node with spec.providerID docker:////" + machine.name + " to exist");
        conditions.add("Deleting", false, "", "NotDeleting", "");
        conditions.add("Paused", false, "", "NotPaused", "");
        Map<String, Object> status = map(
                "observedGeneration", 1,
                "phase", ready ? "Running" : "Provisioning",
                "initialization", initialization);
        if (ready) {
            status.put("nodeRef", map("name", machine.name));
        }
        status.put("conditions", conditions.list);
        Object deprecated = v1beta1.machineStatus(machine, set).get("conditions");
        status.put("deprecated", map("v1beta1", map("conditions", deprecated)));
        return status;
    }

    @Override
    public Map<String, Object> capiClusterStatus(SimulatedCluster cluster, long observedGeneration) {
        boolean initialized = cluster.initialized();
        Map<String, Object> initialization = map("infrastructureProvisioned", true);
        if (initialized) {
            initialization.put("controlPlaneInitialized", true);
        }
        List<MachineSet> workers = cluster.groups.stream().map(g -> g.machines).toList();
        List<String> unavailableWorkers = new ArrayList<>();
        for (MachineSet set : workers) {
            if (!available(set)) {
                unavailableWorkers.add("* MachineDeployment " + set.objectName + ": " + unavailable(set));
            }
        }
        Conditions conditions = new Conditions(observedGeneration);
        List<String> unavailable = new ArrayList<>();
        if (!initialized) {
            unavailable.add("* ControlPlaneAvailable: Control plane not yet initialized");
        }
        if (!unavailableWorkers.isEmpty()) {
            unavailable.add("* WorkersAvailable:\n  " + String.join("\n  ", unavailableWorkers));
        }
        if (!initialized) {
            unavailable.add("* RemoteConnectionProbe: Remote connection not established yet");
        }
        conditions.add("Available", unavailable.isEmpty(), "Available", "NotAvailable", String.join("\n", unavailable));
        conditions.add("InfrastructureReady", true, "Ready", "", "");
        conditions.add("ControlPlaneInitialized", initialized, "Initialized", "NotInitialized",
                "Control plane not yet initialized");
        conditions.add("ControlPlaneAvailable", initialized, "Available", "NotAvailable",
                "* KubeadmControlPlane " + cluster.name + ": Control plane not yet initialized");
        conditions.add("WorkersAvailable", unavailableWorkers.isEmpty(), workers.isEmpty() ? "NoWorkers" : "Available",
                "NotAvailable", String.join("\n", unavailableWorkers));
        conditions.add("RemoteConnectionProbe", initialized, "ProbeSucceeded", "ProbeFailed",
                "Remote connection not established yet");
        List<MachineSet> sets = new ArrayList<>(List.of(cluster.controlPlane));
        sets.addAll(workers);
        conditions.add("RollingOut", sets.stream().anyMatch(MachineSet::hasOutdated), "RollingOut", "NotRollingOut",
                perSet(sets, MachineSet::hasOutdated, "Rolling out not up-to-date replicas"), true);
        conditions.add("ScalingUp", sets.stream().anyMatch(s -> s.machines.size() < s.replicas), "ScalingUp",
                "NotScalingUp", perSet(sets, s -> s.machines.size() < s.replicas, "Scaling up"), true);
        conditions.add("ScalingDown", sets.stream().anyMatch(s -> s.machines.size() > s.replicas), "ScalingDown",
                "NotScalingDown", perSet(sets, s -> s.machines.size() > s.replicas, "Scaling down"), true);
        conditions.add("Remediating", false, "", "NotRemediating", "");
        conditions.add("Deleting", false, "", "NotDeleting", "");
        conditions.add("Paused", false, "", "NotPaused", "");
        MachineSet controlPlane = cluster.controlPlane;
        return map(
                "observedGeneration", observedGeneration,
                "phase", initialized ? "Provisioned" : "Provisioning",
                "initialization", initialization,
                "controlPlane", counters(controlPlane.replicas, List.of(controlPlane)),
                "workers", counters(workers.stream().mapToInt(s -> s.replicas).sum(), workers),
                "conditions", conditions.list,
                "deprecated", map("v1beta1", map(
                        "conditions", v1beta1.capiClusterStatus(cluster, observedGeneration).get("conditions"))));
    }

    // The parts the KubeadmControlPlane and the MachineDeployments share.

    /** MachinesReady, MachinesUpToDate, RollingOut, ScalingUp, ScalingDown, Remediating, Deleting, Paused. */
    private static void machineSetConditions(Conditions conditions, MachineSet set) {
        int replicas = set.machines.size();
        List<String> outdated = set.machines.stream().filter(m -> !m.version.equals(set.version)).map(m -> m.name)
                .toList();
        String noReplicas = replicas == 0 ? "NoReplicas" : null;
        conditions.add("MachinesReady", set.ready() == replicas, noReplicas != null ? noReplicas : "Ready", "NotReady",
                perMachine(set, "Ready: NodeHealthy: Waiting for a Node to exist"));
        conditions.add("MachinesUpToDate", outdated.isEmpty(), noReplicas != null ? noReplicas : "UpToDate",
                "NotUpToDate", "* Machines " + String.join(", ", outdated) + ": Version " + set.version + " required");
        conditions.add("RollingOut", !outdated.isEmpty(), "RollingOut", "NotRollingOut",
                "Rolling out " + outdated.size() + " not up-to-date replicas\n* Version " + set.version
                        + " required", true);
        conditions.add("ScalingUp", replicas < set.replicas, "ScalingUp", "NotScalingUp",
                "Scaling up from " + replicas + " to " + set.replicas + " replicas", true);
        conditions.add("ScalingDown", replicas > set.replicas, "ScalingDown", "NotScalingDown",
                "Scaling down from " + replicas + " to " + set.replicas + " replicas", true);
        conditions.add("Remediating", false, "", "NotRemediating", "");
        conditions.add("Deleting", false, "", "NotDeleting", "");
        conditions.add("Paused", false, "", "NotPaused", "");
    }

    /** What a Machine Deployment's {@code Available} says, with its rollout's {@code maxUnavailable} of 0. */
    private static boolean available(MachineSet set) {
        return set.ready() >= set.replicas;
    }

    private static String unavailable(MachineSet set) {
        return set.ready() + " available replicas, at least " + set.replicas
                + " required (spec.strategy.rollout.maxUnavailable is 0, spec.replicas is " + set.replicas + ")";
    }

    /** One {@code * Machine NAME:} line with {@code what} below it for each machine not ready, as CAPI lists them. */
    private static String perMachine(MachineSet set, String what) {
        List<String> lines = new ArrayList<>();
        for (SimMachine machine : set.machines) {
            if (!machine.ready) {
                lines.add("* Machine " + machine.name + ":\n  * " + what);
            }
        }
        return lines.isEmpty() ? "No Machines reporting yet" : String.join("\n", lines);
    }

    /** One {@code * Kind NAME: what} line per machine set that {@code matches}, as a CAPI Cluster sums them up. */
    private static String perSet(List<MachineSet> sets, Predicate<MachineSet> matches, String what) {
        List<String> lines = new ArrayList<>();
        for (MachineSet set : sets) {
            if (matches.test(set)) {
                lines.add("* " + (set.controlPlane ? "KubeadmControlPlane " : "MachineDeployment ") + set.objectName
                        + ": " + what);
            }
        }
        return String.join("\n", lines);
    }

    /** {@code status.controlPlane} or {@code status.workers} of a CAPI Cluster: counters summed over machine sets. */
    private static Map<String, Object> counters(int desired, List<MachineSet> sets) {
        int ready = sets.stream().mapToInt(MachineSet::ready).sum();
        return map(
                "desiredReplicas", desired,
                "replicas", sets.stream().mapToInt(s -> s.machines.size()).sum(),
                "upToDateReplicas", sets.stream().mapToInt(MachineSet::updated).sum(),
                "readyReplicas", ready,
                "availableReplicas", ready);
    }

    /** {@code metav1.Condition}s; {@code lastTransitionTime} is stamped on writing ({@link ManagementClusterApi}). */
    private static final class Conditions {
        final List<Map<String, Object>> list = new ArrayList<>();
        private final long observedGeneration;

        Conditions(long observedGeneration) {
            this.observedGeneration = observedGeneration;
        }

        /** A condition that is True when {@code ok}; its message only when it is not. */
        void add(String type, boolean ok, String trueReason, String falseReason, String message) {
            add(type, ok, trueReason, falseReason, message, false);
        }

        /**
         * @param messageWhenTrue the message goes with True (RollingOut, ScalingUp: True is the news), else with False
         */
        void add(String type, boolean ok, String trueReason, String falseReason, String message,
                boolean messageWhenTrue) {
            list.add(map(
                    "type", type,
                    "status", ok ? "True" : "False",
                    "observedGeneration", observedGeneration,
                    "reason", ok ? trueReason : falseReason,
                    "message", ok == messageWhenTrue ? message : ""));
        }
    }
}
