package io.statusaggregator.embedded;

import static io.statusaggregator.embedded.CapiObjects.map;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** The Cluster API objects at {@code v1beta1}, as CAPI up to v1.10 writes them (see {@link CapiShapes}). */
final class CapiV1beta1Shapes implements CapiShapes {
    private static final String INFRASTRUCTURE = "infrastructure.cluster.x-k8s.io/v1beta1";

    private final String capiNamespace;

    CapiV1beta1Shapes(String capiNamespace) {
        this.capiNamespace = capiNamespace;
    }

    @Override
    public CapiApiVersion version() {
        return CapiApiVersion.V1BETA1;
    }

    // Specs: references are {apiVersion, kind, name, namespace}.

    @Override
    public Map<String, Object> capiClusterSpec(SimulatedCluster cluster) {
        return map(
                "clusterNetwork", CapiObjects.clusterNetwork(),
                "controlPlaneRef", map("apiVersion", ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(),
                        "kind", ObjectKind.KUBEADM_CONTROL_PLANE.kind(), "namespace", capiNamespace,
                        "name", cluster.name),
                "infrastructureRef", map("apiVersion", INFRASTRUCTURE,
                        "kind", "DockerCluster", "namespace", capiNamespace, "name", cluster.name));
    }

    @Override
    public Map<String, Object> kubeadmControlPlaneSpec(SimulatedCluster cluster) {
        return map(
                "replicas", cluster.controlPlane.replicas,
                "version", cluster.controlPlane.version,
                "machineTemplate", map("infrastructureRef", map("apiVersion", INFRASTRUCTURE,
                        "kind", "DockerMachineTemplate", "name", cluster.name + "-control-plane")),
                "rolloutStrategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1)));
    }

    @Override
    public Map<String, Object> machineDeploymentSpec(SimulatedCluster cluster, Group group) {
        MachineSet set = group.machines;
        Map<String, Object> selector = CapiObjects.deploymentLabels(set);
        return map(
                "clusterName", cluster.name,
                "replicas", set.replicas,
                "selector", map("matchLabels", selector),
                "strategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1, "maxUnavailable", 0)),
                "template", map(
                        "metadata", map("labels", selector),
                        "spec", map(
                                "clusterName", cluster.name,
                                "version", set.version,
                                "bootstrap", map("configRef",
                                        map("kind", "KubeadmConfigTemplate", "name", set.objectName)),
                                "infrastructureRef", map("kind", "DockerMachineTemplate", "name", set.objectName))));
    }

    @Override
    public Map<String, Object> machineSpec(MachineSet set, String name) {
        return map(
                "clusterName", set.clusterName,
                "version", set.version,
                "bootstrap", map("configRef", map("kind", "KubeadmConfig", "name", name)),
                "infrastructureRef", map("kind", "DockerMachine", "name", name));
    }

    // Statuses.

    @Override
    public Map<String, Object> kubeadmControlPlaneStatus(SimulatedCluster cluster, long observedGeneration) {
        MachineSet set = cluster.controlPlane;
        int replicas = set.machines.size();
        int ready = set.ready();
        Map<String, Object> status = map(
                "observedGeneration", observedGeneration,
                "selector", CapiShapes.selector(set),
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "unavailableReplicas", replicas - ready,
                "initialized", cluster.initialized(),
                "ready", ready > 0);
        set.machines.stream().map(m -> m.version).min(Comparator.naturalOrder())
                .ifPresent(v -> status.put("version", v));
        status.put("conditions", List.of(
                condition("Available", cluster.initialized(), "WaitingForKubeadmInit", "Info", ""),
                condition("ControlPlaneComponentsHealthy", replicas > 0 && ready == replicas, "PodProvisioning", "Info",
                        "Waiting for control plane components on " + (replicas - ready) + " machine(s)"),
                condition("MachinesReady", replicas > 0 && ready == replicas, "WaitingForNodeRef", "Info",
                        (replicas - ready) + " of " + replicas + " machines are not ready yet")));
        return status;
    }

    @Override
    public Map<String, Object> machineDeploymentStatus(MachineSet set, long observedGeneration) {
        int replicas = set.machines.size();
        int ready = set.ready();
        boolean available = ready >= set.replicas;
        String waiting = "Minimum availability requires " + set.replicas + " replicas, current " + ready + " available";
        return map(
                "observedGeneration", observedGeneration,
                "selector", CapiShapes.selector(set),
                "phase", CapiObjects.phase(set),
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "availableReplicas", ready,
                "unavailableReplicas", Math.max(0, set.replicas - ready),
                "conditions", List.of(
                        condition("Available", available, "WaitingForAvailableMachines", "Warning", waiting),
                        condition("Ready", available, "WaitingForAvailableMachines", "Warning", waiting)));
    }

    @Override
    public Map<String, Object> machineStatus(SimMachine machine, MachineSet set) {
        Map<String, Object> status = map(
                "phase", machine.ready ? "Running" : "Provisioning",
                "bootstrapReady", true,
                "infrastructureReady", machine.ready);
        if (machine.ready) {
            status.put("nodeRef", map("apiVersion", "v1", "kind", "Node", "name", machine.name));
        }
        status.put("conditions", List.of(
                condition("Ready", machine.ready, "WaitingForInfrastructure", "Info", ""),
                condition("NodeHealthy", machine.ready, "WaitingForNodeRef", "Info", "")));
        return status;
    }

    @Override
    public Map<String, Object> capiClusterStatus(SimulatedCluster cluster, long observedGeneration) {
        return map(
                "observedGeneration", observedGeneration,
                "phase", cluster.initialized() ? "Provisioned" : "Provisioning",
                "infrastructureReady", true,
                "controlPlaneReady", cluster.initialized(),
                "conditions", List.of(
                        condition("ControlPlaneInitialized", cluster.initialized(),
                                "WaitingForControlPlaneProviderInitialized", "Info", "Waiting for control plane "
                                        + "provider to indicate the control plane has been initialized"),
                        condition("InfrastructureReady", true, "", "", "")));
    }

    /**
     * A v1beta1 condition (CAPI's own type, with a severity); reason, severity and message only when it is not True.
     * CAPI v1.13 keeps these under {@code status.deprecated.v1beta1.conditions} of its v1beta2 objects.
     */
    static Map<String, Object> condition(String type, boolean ok, String reason, String severity, String message) {
        Map<String, Object> condition = map("type", type, "status", ok ? "True" : "False");
        if (!ok) {
            condition.put("reason", reason);
            condition.put("severity", severity);
            if (!message.isEmpty()) {
                condition.put("message", message);
            }
        }
        return condition;
    }
}
