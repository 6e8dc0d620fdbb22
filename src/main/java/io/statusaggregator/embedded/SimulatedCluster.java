package io.statusaggregator.embedded;

import java.util.ArrayList;
import java.util.List;

/**
 * One cluster of the demo fleet ({@link FleetSimulator}): its EKS-A spec, its control plane and worker groups, and
 * where it is in its life. Mutable, touched by the simulator's thread only.
 */
final class SimulatedCluster {
    enum Lifecycle { PLANNED, LIVE, DELETED }

    final String name;
    final int createAt;
    final int controlPlaneCount;
    String kubernetesVersion = FleetSimulator.KUBERNETES_VERSION;
    final List<Group> groups;
    final MachineSet controlPlane;
    Lifecycle lifecycle = Lifecycle.PLANNED;
    /** The tick the first control plane node was ready; 0 while not initialized. */
    int initializedAt;
    boolean cniReady;
    boolean reportedReady;
    /** The cluster's own API server, from its creation to its deletion; null outside that. */
    WorkloadCluster workload;

    SimulatedCluster(String name, int createAt, int controlPlaneCount, List<Group> groups) {
        this.name = name;
        this.createAt = createAt;
        this.controlPlaneCount = controlPlaneCount;
        this.groups = groups;
        this.controlPlane = new MachineSet(name, name, true);
    }

    boolean initialized() {
        return initializedAt > 0;
    }

    /** The nodes of the workload cluster: a machine has a node once it is ready (its nodeRef is set then). */
    int nodes() {
        return controlPlane.ready() + groups.stream().mapToInt(g -> g.machines.ready()).sum();
    }

    /** The Kubernetes version a worker node group's nodes should run: its own, else the cluster's. */
    String versionOf(Group group) {
        return group.kubernetesVersion != null ? group.kubernetesVersion : kubernetesVersion;
    }

    /** A worker node group of the EKS-A spec and the MachineDeployment {@code C-G} that realises it. */
    static final class Group {
        final String name;
        int count;
        /** The group's own {@code kubernetesVersion}, null when it follows the cluster's. */
        final String kubernetesVersion;
        MachineSet machines;

        Group(String name, int count, String kubernetesVersion) {
            this.name = name;
            this.count = count;
            this.kubernetesVersion = kubernetesVersion;
        }
    }

    /**
     * The machines of a KubeadmControlPlane or a MachineDeployment, and what its spec asks for. Both roll the way CAPI
     * does by default (max surge 1, max unavailable 0): one new machine at a time, an old one deleted once its
     * replacement is ready.
     */
    static final class MachineSet {
        final String clusterName;
        final String objectName;
        final boolean controlPlane;
        /** {@code spec.replicas} */
        int replicas;
        /** {@code spec.version} of the KCP, {@code spec.template.spec.version} of the MachineDeployment */
        String version;
        final List<SimMachine> machines = new ArrayList<>();
        int created;

        MachineSet(String clusterName, String objectName, boolean controlPlane) {
            this.clusterName = clusterName;
            this.objectName = objectName;
            this.controlPlane = controlPlane;
        }

        int ready() {
            return (int) machines.stream().filter(m -> m.ready).count();
        }

        int updated() {
            return (int) machines.stream().filter(m -> m.version.equals(version)).count();
        }

        boolean hasOutdated() {
            return machines.stream().anyMatch(m -> !m.version.equals(version));
        }

        /** Every machine there should be, on the version asked for, and ready. */
        boolean done() {
            return machines.size() == replicas && updated() == replicas && ready() == replicas;
        }
    }

    static final class SimMachine {
        final String name;
        final String version;
        boolean ready;

        SimMachine(String name, String version) {
            this.name = name;
            this.version = version;
        }
    }

    static List<SimulatedCluster> fleet() {
        return List.of(
                new SimulatedCluster("alpha", 1, 1, List.of(new Group("md-0", 2, null))),
                new SimulatedCluster(
                        "bravo",
                        4,
                        3,
                        List.of(new Group("md-0", 2, FleetSimulator.KUBERNETES_VERSION), new Group("md-1", 1, null))),
                new SimulatedCluster("charlie", 7, 1, List.of(new Group("md-0", 1, null))),
                new SimulatedCluster("delta", 10, 1, List.of(new Group("md-0", 1, null))));
    }
}
