package io.statusaggregator.embedded;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.Lifecycle;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.jboss.logging.Logger;

/**
 * The controllers of the demo fleet ({@link FleetSimulator}): EKS Anywhere's, which carries a Cluster's spec down to
 * its CAPI objects; Cluster API's, which makes, readies, rolls and removes machines and writes the objects' statuses;
 * and what happens in each workload cluster (its kubeconfig secret, Cilium). The script, what a user does, is the
 * simulator's.
 */
final class SimulatedControllers {
    /** The simulator's: its log tells one story, the script's steps and the controllers' among each other. */
    private static final Logger LOG = Logger.getLogger(FleetSimulator.class);

    private final KubernetesClient client;
    private final String capiNamespace;
    private final CapiObjects objects;
    private final ManagementClusterApi api;

    SimulatedControllers(KubernetesClient client, String capiNamespace, CapiObjects objects, ManagementClusterApi api) {
        this.client = client;
        this.capiNamespace = capiNamespace;
        this.objects = objects;
        this.api = api;
    }

    /**
     * One step of a live cluster's CAPI controllers and workload cluster: its machines, its CNI, the statuses they
     * write, and the log line once it is ready.
     */
    void step(SimulatedCluster cluster, int now) {
        stepControlPlane(cluster, now);
        stepWorkers(cluster, now);
        stepCni(cluster, now);
        writeStatuses(cluster);
        reportReadiness(cluster, now);
    }

    // ---------------------------------------------------------------------------------------------------------
    // EKS-A's controller: the CAPI specs follow the EKS-A spec, the workers after the control plane.

    void reconcileCapiSpecs(SimulatedCluster cluster, int now) {
        MachineSet controlPlane = cluster.controlPlane;
        String controlPlaneVersion = CapiObjects.nodeVersion(cluster.kubernetesVersion);
        if (controlPlane.replicas != cluster.controlPlaneCount || !controlPlane.version.equals(controlPlaneVersion)) {
            controlPlane.replicas = cluster.controlPlaneCount;
            controlPlane.version = controlPlaneVersion;
            api.patchSpec(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name, objects.kubeadmControlPlaneSpec(cluster));
            LOG.infof("tick %d: cluster %s: KubeadmControlPlane %s moved to %s, %d replicas", now, cluster.name,
                    cluster.name, controlPlaneVersion, controlPlane.replicas);
        }
        for (Group group : cluster.groups) {
            MachineSet machines = group.machines;
            if (machines.replicas != group.count) {
                machines.replicas = group.count;
                api.patchSpec(ObjectKind.MACHINE_DEPLOYMENT, machines.objectName,
                        objects.machineDeploymentSpec(cluster, group));
                LOG.infof("tick %d: cluster %s: MachineDeployment %s scaled to %d replicas", now, cluster.name,
                        machines.objectName, machines.replicas);
            }
            String wanted = CapiObjects.nodeVersion(cluster.versionOf(group));
            // Workers are upgraded once the control plane runs the new version: never ahead of it.
            if (!machines.version.equals(wanted) && controlPlane.done()) {
                machines.version = wanted;
                api.patchSpec(ObjectKind.MACHINE_DEPLOYMENT, machines.objectName,
                        objects.machineDeploymentSpec(cluster, group));
                LOG.infof("tick %d: cluster %s: MachineDeployment %s rolling to %s", now, cluster.name,
                        machines.objectName, wanted);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // CAPI and the workload clusters: one step per tick.

    private void stepControlPlane(SimulatedCluster cluster, int now) {
        stepMachines(cluster.controlPlane);
        if (!cluster.initialized() && cluster.controlPlane.ready() > 0) {
            cluster.initializedAt = now;
            LOG.infof("tick %d: cluster %s: control plane initialized", now, cluster.name);
        }
    }

    /** Workers start the tick after the control plane is initialized: they need an API server to join. */
    private void stepWorkers(SimulatedCluster cluster, int now) {
        if (cluster.initialized() && cluster.initializedAt < now) {
            for (Group group : cluster.groups) {
                stepMachines(group.machines);
            }
        }
    }

    /**
     * One reconcile of a machine set, in this order: an old machine is deleted when its replacement was already ready
     * as the tick began; machines created in an earlier tick become ready; a machine is created when the set is short
     * of its replicas, or, to roll, when it has an outdated machine and no surge machine yet.
     */
    private void stepMachines(MachineSet set) {
        boolean replacementsReady =
                set.machines.stream().filter(m -> m.version.equals(set.version)).allMatch(m -> m.ready);
        if (set.machines.size() > set.replicas && replacementsReady) {
            SimMachine retired = set.machines.stream().filter(m -> !m.version.equals(set.version)).findFirst()
                    .orElse(set.machines.get(set.machines.size() - 1));
            deleteMachine(set, retired);
        }
        set.machines.forEach(m -> m.ready = true);
        if (set.machines.size() < set.replicas || (set.machines.size() == set.replicas && set.hasOutdated())) {
            createMachine(set);
        }
    }

    /**
     * The workload cluster once its control plane is initialized: its kubeconfig secret appears and Cilium starts;
     * Cilium is ready {@value FleetSimulator#CNI_READY_AFTER} ticks later. Its DaemonSet's status follows the ready
     * nodes every tick (only a change is written).
     */
    private void stepCni(SimulatedCluster cluster, int now) {
        if (cluster.initializedAt == now) {
            publishKubeconfig(cluster);
            cluster.workload.installCilium(FleetSimulator.CILIUM_VERSION, cluster.nodes());
            LOG.infof(
                    "tick %d: cluster %s: kubeconfig secret written, Cilium %s starting",
                    now, cluster.name, FleetSimulator.CILIUM_VERSION);
        } else if (cluster.initialized() && !cluster.cniReady
                && now >= cluster.initializedAt + FleetSimulator.CNI_READY_AFTER) {
            cluster.cniReady = true;
            LOG.infof("tick %d: cluster %s: Cilium %s ready", now, cluster.name, FleetSimulator.CILIUM_VERSION);
        }
        if (cluster.initialized()) {
            cluster.workload.writeCiliumStatus(cluster.nodes(), cluster.cniReady);
        }
    }

    private void reportReadiness(SimulatedCluster cluster, int now) {
        if (!cluster.reportedReady && ready(cluster)) {
            cluster.reportedReady = true;
            LOG.infof("tick %d: cluster %s: all nodes ready and up to date", now, cluster.name);
        }
    }

    /** Every node of the cluster ready and up to date, at the counts and versions its EKS-A spec asks for. */
    static boolean ready(SimulatedCluster cluster) {
        return cluster.lifecycle == Lifecycle.LIVE
                && cluster.cniReady
                && cluster.controlPlane.replicas == cluster.controlPlaneCount
                && cluster.controlPlane.version.equals(CapiObjects.nodeVersion(cluster.kubernetesVersion))
                && cluster.controlPlane.done()
                && cluster.groups.stream()
                        .allMatch(g -> g.machines.replicas == g.count
                                && g.machines.version.equals(CapiObjects.nodeVersion(cluster.versionOf(g)))
                                && g.machines.done());
    }

    /**
     * The secret CAPI writes once a cluster's control plane is initialized: {@code C-kubeconfig} in the CAPI
     * namespace, the workload API's kubeconfig in {@code data.value} (base64, as every secret's data).
     */
    private void publishKubeconfig(SimulatedCluster cluster) {
        String kubeconfig =
                Base64.getEncoder().encodeToString(cluster.workload.kubeconfig().getBytes(StandardCharsets.UTF_8));
        Secret secret = new SecretBuilder()
                .withNewMetadata().withNamespace(capiNamespace).withName(kubeconfigSecretName(cluster))
                .addToLabels(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name).endMetadata()
                .withType(FleetSimulator.CAPI_SECRET_TYPE)
                .addToData("value", kubeconfig)
                .build();
        client.secrets().inNamespace(capiNamespace).resource(secret).create();
    }

    static String kubeconfigSecretName(SimulatedCluster cluster) {
        return cluster.name + "-kubeconfig";
    }

    static void stopWorkload(SimulatedCluster cluster) {
        if (cluster.workload != null) {
            cluster.workload.close();
            cluster.workload = null;
        }
    }

    private void createMachine(MachineSet set) {
        set.created++;
        String name = set.objectName + (set.controlPlane ? "-cp-" : "-") + set.created;
        SimMachine machine = new SimMachine(name, set.version);
        set.machines.add(machine);
        api.create(ObjectKind.MACHINE, objects.machine(set, name));
        LOG.debugf("machine %s created (%s)", name, set.version);
    }

    void deleteMachine(MachineSet set, SimMachine machine) {
        set.machines.remove(machine);
        api.delete(ObjectKind.MACHINE, capiNamespace, machine.name);
        LOG.debugf("machine %s deleted", machine.name);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Statuses, as the CAPI controllers write them: observedGeneration is the generation the server holds.

    private void writeStatuses(SimulatedCluster cluster) {
        for (SimMachine machine : cluster.controlPlane.machines) {
            api.writeStatus(ObjectKind.MACHINE, machine.name, objects.machineStatus(machine, cluster.controlPlane));
        }
        for (Group group : cluster.groups) {
            for (SimMachine machine : group.machines.machines) {
                api.writeStatus(ObjectKind.MACHINE, machine.name, objects.machineStatus(machine, group.machines));
            }
        }
        api.writeStatus(
                ObjectKind.KUBEADM_CONTROL_PLANE,
                cluster.name,
                objects.kubeadmControlPlaneStatus(
                        cluster, api.generationOf(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name)));
        for (Group group : cluster.groups) {
            api.writeStatus(
                    ObjectKind.MACHINE_DEPLOYMENT,
                    group.machines.objectName,
                    objects.machineDeploymentStatus(
                            group.machines,
                            api.generationOf(ObjectKind.MACHINE_DEPLOYMENT, group.machines.objectName)));
        }
        api.writeStatus(
                ObjectKind.CAPI_CLUSTER,
                cluster.name,
                objects.capiClusterStatus(cluster, api.generationOf(ObjectKind.CAPI_CLUSTER, cluster.name)));
    }
}
