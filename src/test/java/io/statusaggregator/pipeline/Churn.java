package io.statusaggregator.pipeline;

import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random changes to a fleet, as CAPI controllers and users make them: control planes and node groups coming
 * up and rolling, counts changed in the spec, node groups deleted and recreated, whole clusters deleted and
 * recreated, at the fleet's Cluster API version. The same seed gives the same sequence of changes.
 */
final class Churn {
    /** Warnings only from the CNI (skipped upgrades): no workload cluster needs to be reachable. */
    static final String CNI = "{cilium: {skipUpgrade: true}}";

    private final Fleet fleet;
    private final Random random;
    private final List<String> clusters = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final List<String> withoutWorkers = new ArrayList<>();
    private int changes;

    Churn(Fleet fleet, long seed, int clusters) {
        this.fleet = fleet;
        this.random = new Random(seed);
        for (int i = 0; i < clusters; i++) {
            String name = "c" + i;
            fleet.createCluster(name, 1, 1, CNI);
            this.clusters.add(name);
        }
    }

    int changes() {
        return changes;
    }

    List<String> clusters() {
        return List.copyOf(clusters);
    }

    /** One random change; a change the API server refuses (the object is gone) is a change not made. */
    void step() {
        changes++;
        String name = clusters.get(random.nextInt(clusters.size()));
        int choice = random.nextInt(100);
        try {
            if (choice < 30) {
                int replicas = 1 + random.nextInt(3);
                int ready = random.nextInt(replicas + 1);
                // In the order the seed's sequence draws them.
                boolean initialized = ready > 0 || random.nextBoolean();
                fleet.controlPlaneStatus(name, initialized, replicas, random.nextInt(replicas + 1), ready,
                        ready == replicas);
            } else if (choice < 60 && !withoutWorkers.contains(name)) {
                int replicas = random.nextInt(4);
                int ready = random.nextInt(replicas + 1);
                fleet.workers(name, 1 + random.nextInt(2), replicas, random.nextInt(replicas + 1), ready);
            } else if (choice < 75) {
                fleet.patch(ObjectKind.EKSA_CLUSTER, "default", name, """
                        {"spec": {"controlPlaneConfiguration": {"count": %d}, "workerNodeGroupConfigurations": [{"name": "md-0", "count": %d}]}}"""
                        .formatted(1 + 2 * random.nextInt(2), random.nextInt(4)));
            } else if (choice < 82) {
                if (withoutWorkers.remove(name)) {
                    fleet.createMachineDeployment(name, 1);
                } else {
                    fleet.delete(ObjectKind.MACHINE_DEPLOYMENT, Fleet.CAPI, name + "-md-0");
                    withoutWorkers.add(name);
                }
            } else if (choice < 88) {
                if (deleted.remove(name)) {
                    withoutWorkers.remove(name);
                    fleet.createCluster(name, 1, 1, CNI);
                } else {
                    fleet.delete(ObjectKind.EKSA_CLUSTER, "default", name);
                    fleet.delete(ObjectKind.KUBEADM_CONTROL_PLANE, Fleet.CAPI, name);
                    fleet.delete(ObjectKind.MACHINE_DEPLOYMENT, Fleet.CAPI, name + "-md-0");
                    deleted.add(name);
                }
            } else {
                // Out of the CAPI controllers' reach for a while: a control plane that was ready is not any more.
                fleet.controlPlaneLost(name);
            }
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 409) {
                throw e;
            }
        }
    }
}
