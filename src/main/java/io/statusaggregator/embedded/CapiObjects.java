package io.statusaggregator.embedded;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo fleet's objects as EKS-A and CAPI shape them, specs and statuses, built from a {@link SimulatedCluster}:
 * maps that read like their YAML. No I/O; {@link FleetSimulator} writes them.
 */
final class CapiObjects {
    /** The EKS Distro build the nodes of each Kubernetes minor run. */
    private static final Map<String, String> NODE_VERSIONS = Map.of(
            "1.31", "v1.31.2-eks-1-31-9",
            "1.32", "v1.32.3-eks-1-32-10");

    private final String capiNamespace;

    CapiObjects(String capiNamespace) {
        this.capiNamespace = capiNamespace;
    }

    // Statuses, as the CAPI controllers write them: observedGeneration is the generation the server holds.

    Map<String, Object> kubeadmControlPlaneStatus(SimulatedCluster cluster, long observedGeneration) {
        MachineSet set = cluster.controlPlane;
        int replicas = set.machines.size();
        int ready = set.ready();
        Map<String, Object> status = map(
                "observedGeneration", observedGeneration,
                "selector", ObjectDecoder.CLUSTER_NAME_LABEL + "=" + cluster.name + "," + FleetSimulator.CONTROL_PLANE_LABEL,
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "unavailableReplicas", replicas - ready,
                "initialized", cluster.initialized(),
                "ready", ready > 0);
        set.machines.stream().map(m -> m.version).min(Comparator.naturalOrder()).ifPresent(v -> status.put("version", v));
        status.put("conditions", List.of(
                condition("Available", cluster.initialized(), "WaitingForKubeadmInit", "Info", ""),
                condition("ControlPlaneComponentsHealthy", replicas > 0 && ready == replicas, "PodProvisioning", "Info",
                        "Waiting for control plane components on " + (replicas - ready) + " machine(s)"),
                condition("MachinesReady", replicas > 0 && ready == replicas, "WaitingForNodeRef", "Info",
                        (replicas - ready) + " of " + replicas + " machines are not ready yet")));
        return status;
    }

    Map<String, Object> machineDeploymentStatus(MachineSet set, long observedGeneration) {
        int replicas = set.machines.size();
        int ready = set.ready();
        boolean available = ready >= set.replicas;
        String phase = replicas < set.replicas ? "ScalingUp" : replicas > set.replicas ? "ScalingDown" : "Running";
        String waiting = "Minimum availability requires " + set.replicas + " replicas, current " + ready + " available";
        return map(
                "observedGeneration", observedGeneration,
                "selector", ObjectDecoder.CLUSTER_NAME_LABEL + "=" + set.clusterName + ","
                        + ObjectDecoder.DEPLOYMENT_NAME_LABEL + "=" + set.objectName,
                "phase", phase,
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "availableReplicas", ready,
                "unavailableReplicas", Math.max(0, set.replicas - ready),
                "conditions", List.of(
                        condition("Available", available, "WaitingForAvailableMachines", "Warning", waiting),
                        condition("Ready", available, "WaitingForAvailableMachines", "Warning", waiting)));
    }

    Map<String, Object> machineStatus(SimMachine machine) {
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

    Map<String, Object> capiClusterStatus(SimulatedCluster cluster, long observedGeneration) {
        return map(
                "observedGeneration", observedGeneration,
                "phase", cluster.initialized() ? "Provisioned" : "Provisioning",
                "infrastructureReady", true,
                "controlPlaneReady", cluster.initialized(),
                "conditions", List.of(
                        condition("ControlPlaneInitialized", cluster.initialized(), "WaitingForControlPlaneProviderInitialized", "Info",
                                "Waiting for control plane provider to indicate the control plane has been initialized"),
                        condition("InfrastructureReady", true, "", "", "")));
    }

    /** A CAPI condition; reason, severity and message only when it is not True. */
    private static Map<String, Object> condition(String type, boolean ok, String reason, String severity, String message) {
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

    // The objects.

    Map<String, Object> eksaCluster(SimulatedCluster cluster) {
        return map(
                "apiVersion", ObjectKind.EKSA_CLUSTER.apiVersion(),
                "kind", ObjectKind.EKSA_CLUSTER.kind(),
                "metadata", map("namespace", FleetSimulator.CLUSTER_NAMESPACE, "name", cluster.name),
                "spec", eksaClusterSpec(cluster));
    }

    static Map<String, Object> eksaClusterSpec(SimulatedCluster cluster) {
        List<Map<String, Object>> groups = new ArrayList<>();
        for (Group group : cluster.groups) {
            Map<String, Object> g = map("name", group.name, "count", group.count);
            if (group.kubernetesVersion != null) {
                g.put("kubernetesVersion", group.kubernetesVersion);
            }
            groups.add(g);
        }
        return map(
                "kubernetesVersion", cluster.kubernetesVersion,
                "eksaVersion", FleetSimulator.EKSA_VERSION,
                "datacenterRef", map("kind", "DockerDatacenterConfig", "name", cluster.name),
                "controlPlaneConfiguration", map("count", cluster.controlPlaneCount),
                "workerNodeGroupConfigurations", groups,
                "clusterNetwork", map(
                        "cniConfig", map("cilium", map()),
                        "pods", map("cidrBlocks", List.of("192.168.0.0/16")),
                        "services", map("cidrBlocks", List.of("10.96.0.0/12"))));
    }

    /** An object of {@code kind} in the CAPI namespace, as CAPI and EKS-A shape them: apiVersion, kind, metadata, spec. */
    private Map<String, Object> capiObject(ObjectKind kind, String name, Map<String, Object> labels, Map<String, Object> spec) {
        return map(
                "apiVersion", kind.apiVersion(),
                "kind", kind.kind(),
                "metadata", map("namespace", capiNamespace, "name", name, "labels", labels),
                "spec", spec);
    }

    Map<String, Object> capiCluster(SimulatedCluster cluster) {
        return capiObject(ObjectKind.CAPI_CLUSTER, cluster.name, map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name), map(
                "clusterNetwork", map(
                        "pods", map("cidrBlocks", List.of("192.168.0.0/16")),
                        "services", map("cidrBlocks", List.of("10.96.0.0/12"))),
                "controlPlaneRef", map("apiVersion", ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(),
                        "kind", ObjectKind.KUBEADM_CONTROL_PLANE.kind(), "namespace", capiNamespace, "name", cluster.name),
                "infrastructureRef", map("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind", "DockerCluster", "namespace", capiNamespace, "name", cluster.name)));
    }

    Map<String, Object> kubeadmControlPlane(SimulatedCluster cluster) {
        return capiObject(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name, map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name),
                kubeadmControlPlaneSpec(cluster));
    }

    static Map<String, Object> kubeadmControlPlaneSpec(SimulatedCluster cluster) {
        return map(
                "replicas", cluster.controlPlane.replicas,
                "version", cluster.controlPlane.version,
                "machineTemplate", map("infrastructureRef", map("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind", "DockerMachineTemplate", "name", cluster.name + "-control-plane")),
                "rolloutStrategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1)));
    }

    Map<String, Object> machineDeployment(SimulatedCluster cluster, Group group) {
        return capiObject(ObjectKind.MACHINE_DEPLOYMENT, group.machines.objectName, map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name),
                machineDeploymentSpec(cluster, group));
    }

    static Map<String, Object> machineDeploymentSpec(SimulatedCluster cluster, Group group) {
        MachineSet set = group.machines;
        Map<String, Object> selector = map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name,
                ObjectDecoder.DEPLOYMENT_NAME_LABEL, set.objectName);
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
                                "bootstrap", map("configRef", map("kind", "KubeadmConfigTemplate", "name", set.objectName)),
                                "infrastructureRef", map("kind", "DockerMachineTemplate", "name", set.objectName))));
    }

    Map<String, Object> machine(MachineSet set, String name) {
        Map<String, Object> labels = map(ObjectDecoder.CLUSTER_NAME_LABEL, set.clusterName);
        labels.put(set.controlPlane ? FleetSimulator.CONTROL_PLANE_LABEL : ObjectDecoder.DEPLOYMENT_NAME_LABEL,
                set.controlPlane ? "" : set.objectName);
        return capiObject(ObjectKind.MACHINE, name, labels, map(
                "clusterName", set.clusterName,
                "version", set.version,
                "bootstrap", map("configRef", map("kind", "KubeadmConfig", "name", name)),
                "infrastructureRef", map("kind", "DockerMachine", "name", name)));
    }

    static String nodeVersion(String kubernetesVersion) {
        String version = NODE_VERSIONS.get(kubernetesVersion);
        if (version == null) {
            throw new IllegalArgumentException("no node build known for Kubernetes " + kubernetesVersion);
        }
        return version;
    }

    /** An ordered map of alternating keys and values, for building objects that read like their YAML. */
    static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
