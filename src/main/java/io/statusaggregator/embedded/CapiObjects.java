package io.statusaggregator.embedded;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo fleet's objects as EKS-A and CAPI shape them, specs and statuses, built from a {@link SimulatedCluster}:
 * maps that read like their YAML, the Cluster API ones at the version the simulated management cluster writes them
 * at ({@link CapiShapes}). No I/O; {@link FleetSimulator} writes them.
 */
final class CapiObjects {
    /** The EKS Distro build the nodes of each Kubernetes minor run. */
    private static final Map<String, String> NODE_VERSIONS = Map.of(
            "1.31", "v1.31.2-eks-1-31-9",
            "1.32", "v1.32.3-eks-1-32-10");

    private final String capiNamespace;
    private final CapiShapes shapes;

    CapiObjects(String capiNamespace, CapiApiVersion version) {
        this.capiNamespace = capiNamespace;
        this.shapes = CapiShapes.of(version, capiNamespace);
    }

    /** The version the Cluster API objects are written at. */
    CapiApiVersion version() {
        return shapes.version();
    }

    // Statuses, as the CAPI controllers write them: observedGeneration is the generation the server holds.

    Map<String, Object> kubeadmControlPlaneStatus(SimulatedCluster cluster, long observedGeneration) {
        return shapes.kubeadmControlPlaneStatus(cluster, observedGeneration);
    }

    Map<String, Object> machineDeploymentStatus(MachineSet set, long observedGeneration) {
        return shapes.machineDeploymentStatus(set, observedGeneration);
    }

    Map<String, Object> machineStatus(SimMachine machine, MachineSet set) {
        return shapes.machineStatus(machine, set);
    }

    Map<String, Object> capiClusterStatus(SimulatedCluster cluster, long observedGeneration) {
        return shapes.capiClusterStatus(cluster, observedGeneration);
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
        Map<String, Object> network = map("cniConfig", map("cilium", map()));
        network.putAll(clusterNetwork());
        return map(
                "kubernetesVersion", cluster.kubernetesVersion,
                "eksaVersion", FleetSimulator.EKSA_VERSION,
                "datacenterRef", map("kind", "DockerDatacenterConfig", "name", cluster.name),
                "controlPlaneConfiguration", map("count", cluster.controlPlaneCount),
                "workerNodeGroupConfigurations", groups,
                "clusterNetwork", network);
    }

    /**
     * An object of {@code kind} in the CAPI namespace, as CAPI and EKS-A shape them: apiVersion (the version written
     * at), kind, metadata, spec.
     */
    private Map<String, Object> capiObject(
            ObjectKind kind, String name, Map<String, Object> labels, Map<String, Object> spec) {
        return map(
                "apiVersion", kind.apiVersion(shapes.version().version()),
                "kind", kind.kind(),
                "metadata", map("namespace", capiNamespace, "name", name, "labels", labels),
                "spec", spec);
    }

    Map<String, Object> capiCluster(SimulatedCluster cluster) {
        return capiObject(ObjectKind.CAPI_CLUSTER, cluster.name, map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name),
                shapes.capiClusterSpec(cluster));
    }

    Map<String, Object> kubeadmControlPlane(SimulatedCluster cluster) {
        return capiObject(
                ObjectKind.KUBEADM_CONTROL_PLANE,
                cluster.name,
                map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name),
                kubeadmControlPlaneSpec(cluster));
    }

    Map<String, Object> kubeadmControlPlaneSpec(SimulatedCluster cluster) {
        return shapes.kubeadmControlPlaneSpec(cluster);
    }

    Map<String, Object> machineDeployment(SimulatedCluster cluster, Group group) {
        return capiObject(
                ObjectKind.MACHINE_DEPLOYMENT,
                group.machines.objectName,
                map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name),
                machineDeploymentSpec(cluster, group));
    }

    Map<String, Object> machineDeploymentSpec(SimulatedCluster cluster, Group group) {
        return shapes.machineDeploymentSpec(cluster, group);
    }

    Map<String, Object> machine(MachineSet set, String name) {
        Map<String, Object> labels = map(ObjectDecoder.CLUSTER_NAME_LABEL, set.clusterName);
        labels.put(set.controlPlane ? FleetSimulator.CONTROL_PLANE_LABEL : ObjectDecoder.DEPLOYMENT_NAME_LABEL,
                set.controlPlane ? "" : set.objectName);
        return capiObject(ObjectKind.MACHINE, name, labels, shapes.machineSpec(set, name));
    }

    // Parts every version shares.

    static Map<String, Object> clusterNetwork() {
        return map(
                "pods", map("cidrBlocks", List.of("192.168.0.0/16")),
                "services", map("cidrBlocks", List.of("10.96.0.0/12")));
    }

    /** The labels of a MachineDeployment's machines, its selector. */
    static Map<String, Object> deploymentLabels(MachineSet set) {
        return map(ObjectDecoder.CLUSTER_NAME_LABEL, set.clusterName, ObjectDecoder.DEPLOYMENT_NAME_LABEL,
                set.objectName);
    }

    /** A MachineDeployment's {@code status.phase}. */
    static String phase(MachineSet set) {
        int replicas = set.machines.size();
        return replicas < set.replicas ? "ScalingUp" : replicas > set.replicas ? "ScalingDown" : "Running";
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
