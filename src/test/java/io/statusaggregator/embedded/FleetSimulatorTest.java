package io.statusaggregator.embedded;

import static io.statusaggregator.embedded.SimulatedFleet.CAPI;
import static io.statusaggregator.embedded.SimulatedFleet.LIVE;
import static io.statusaggregator.embedded.SimulatedFleet.NS;
import static io.statusaggregator.embedded.SimulatedFleet.cniReady;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Drives the simulator tick by tick against the embedded API server, and looks at what the server holds: the embedded
 * default, Cluster API objects at v1beta2 ({@link SimulatedCapiVersionsTest} compares both versions).
 */
class FleetSimulatorTest {
    private SimulatedFleet fleet;
    private FleetSimulator simulator;

    @BeforeEach
    void setUp() {
        fleet = SimulatedFleet.start();
        simulator = fleet.simulator();
    }

    @AfterEach
    void tearDown() {
        fleet.close();
    }

    @Test
    void stepsAreNumberedFromOne() {
        assertEquals(0, simulator.ticks());
        assertEquals(1, simulator.step());
        assertEquals(2, simulator.step());
        assertEquals(2, simulator.ticks());
    }

    @Test
    void clustersStartStaggeredAndTheWholeFleetIsReadyAtTick15() {
        fleet.runTo(1);
        assertNotNull(fleet.get(ObjectKind.EKSA_CLUSTER, NS, "alpha"));
        assertNull(fleet.get(ObjectKind.EKSA_CLUSTER, NS, "bravo"));

        fleet.runTo(5);
        // alpha initialized at tick 3 and grows its workers; bravo's control plane is on its first machine.
        JsonNode alpha = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "alpha");
        assertTrue(initialized(alpha));
        assertEquals(2, fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0").path("status").path("replicas").asInt());
        assertEquals(1, fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0").path("status").path("readyReplicas").asInt());
        JsonNode bravo = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(1, bravo.path("status").path("replicas").asInt());
        assertEquals(0, bravo.path("status").path("readyReplicas").asInt(), "ready lags replicas by one tick");
        assertFalse(initialized(bravo));
        assertEquals("False", condition(bravo, "Available").path("status").asText());
        assertEquals(0, fleet.list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).startsWith("bravo-")).count(),
                "workers wait for the control plane");

        fleet.runTo(14);
        assertFalse(fleetReady(List.of("alpha", "bravo", "charlie", "delta")), "delta's Cilium is not ready yet");
        fleet.runTo(15);
        assertTrue(fleetReady(List.of("alpha", "bravo", "charlie", "delta")));
        JsonNode bravoReady = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(3, bravoReady.path("status").path("readyReplicas").asInt());
        assertEquals("True", condition(bravoReady, "Available").path("status").asText());
        assertEquals("True", condition(fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0"), "Available")
                .path("status").asText());
        assertEquals("Provisioned", fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("status").path("phase").asText());
        assertEquals("bravo", fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("spec").path("controlPlaneRef").path("name").asText());
    }

    @Test
    void theEksaClustersHaveTheSpecTheStatusRulesRead() {
        fleet.runTo(10);
        JsonNode bravo = fleet.get(ObjectKind.EKSA_CLUSTER, NS, "bravo");
        assertEquals("1.31", bravo.path("spec").path("kubernetesVersion").asText());
        assertEquals("v0.23.1", bravo.path("spec").path("eksaVersion").asText());
        assertEquals(3, bravo.path("spec").path("controlPlaneConfiguration").path("count").asInt());
        assertTrue(bravo.path("spec").path("clusterNetwork").path("cniConfig").path("cilium").isObject());
        JsonNode groups = bravo.path("spec").path("workerNodeGroupConfigurations");
        assertEquals("md-0", groups.get(0).path("name").asText());
        assertEquals(2, groups.get(0).path("count").asInt());
        assertEquals("1.31", groups.get(0).path("kubernetesVersion").asText(), "md-0 is pinned from the start");
        assertEquals("md-1", groups.get(1).path("name").asText());
        assertTrue(groups.get(1).path("kubernetesVersion").isMissingNode());
        JsonNode machine = fleet.list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).equals("bravo-md-1")).findFirst().orElseThrow();
        assertEquals("bravo", machine.path("spec").path("clusterName").asText());
        assertTrue(machine.path("spec").path("version").asText().startsWith("v1.31."));
        assertTrue(fleet.list(ObjectKind.MACHINE).stream()
                .anyMatch(m -> m.path("metadata").path("labels").has(FleetSimulator.CONTROL_PLANE_LABEL)
                        && m.path("spec").path("clusterName").asText().equals("bravo")));
    }

    @Test
    void deltaIsScaledUpThroughTheEksaSpecThenItsMachineDeployment() {
        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK - 1);
        assertEquals(1, generation(fleet.get(ObjectKind.EKSA_CLUSTER, NS, "delta")));
        assertEquals(1, generation(fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0")));

        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK);
        JsonNode delta = fleet.get(ObjectKind.EKSA_CLUSTER, NS, "delta");
        assertEquals(2, generation(delta));
        assertEquals(3, delta.path("spec").path("workerNodeGroupConfigurations").get(0).path("count").asInt());

        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 1);
        JsonNode md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(2, generation(md));
        assertEquals(3, md.path("spec").path("replicas").asInt());
        assertEquals(1, md.path("status").path("observedGeneration").asLong(), "CAPI observes the change the next tick");

        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 2);
        md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(2, md.path("status").path("observedGeneration").asLong());
        assertEquals(2, md.path("status").path("replicas").asInt());
        assertEquals(1, md.path("status").path("readyReplicas").asInt());
        assertEquals("False", condition(md, "Available").path("status").asText());

        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 4);
        md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(3, md.path("status").path("readyReplicas").asInt());
        assertEquals(3, md.path("status").path("upToDateReplicas").asInt());
        assertEquals("True", condition(md, "Available").path("status").asText());
        assertEquals(3, machinesOf("delta-md-0").size());
    }

    @Test
    void bravoRollsItsControlPlaneThenMd1ToTheNewVersionWhileMd0StaysPinned() {
        fleet.runTo(FleetSimulator.BRAVO_UPGRADE_TICK);
        JsonNode bravo = fleet.get(ObjectKind.EKSA_CLUSTER, NS, "bravo");
        assertEquals(2, generation(bravo));
        assertEquals("1.32", bravo.path("spec").path("kubernetesVersion").asText());
        assertEquals("1.31", bravo.path("spec").path("workerNodeGroupConfigurations").get(0).path("kubernetesVersion").asText());

        int maxControlPlane = 0;
        int maxMd1 = 0;
        for (int tick = FleetSimulator.BRAVO_UPGRADE_TICK + 1; tick <= FleetSimulator.SETTLED_TICK; tick++) {
            simulator.step();
            JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo").path("status");
            JsonNode md1 = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-1").path("status");
            maxControlPlane = Math.max(maxControlPlane, kcp.path("replicas").asInt());
            maxMd1 = Math.max(maxMd1, md1.path("replicas").asInt());
            assertTrue(kcp.path("readyReplicas").asInt() >= 3, "tick " + tick + ": no control plane node is taken away early");
            assertTrue(md1.path("readyReplicas").asInt() >= 1, "tick " + tick + ": no md-1 worker is taken away early");
            boolean controlPlaneOnOld = versionsOf(controlPlaneMachines("bravo")).stream().anyMatch(v -> v.startsWith("v1.31."));
            boolean workerOnNew = versionsOf(machinesOf("bravo-md-1")).stream().anyMatch(v -> v.startsWith("v1.32."));
            assertFalse(controlPlaneOnOld && workerOnNew, "tick " + tick + ": a worker ahead of its control plane");
        }
        assertEquals(4, maxControlPlane, "one surge control plane machine");
        assertEquals(2, maxMd1, "one surge md-1 machine");

        JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(2, generation(kcp));
        assertEquals(2, kcp.path("status").path("observedGeneration").asLong());
        assertEquals(3, kcp.path("status").path("replicas").asInt());
        assertEquals(3, kcp.path("status").path("upToDateReplicas").asInt());
        assertEquals(List.of("v1.32", "v1.32", "v1.32"), minors(controlPlaneMachines("bravo")));

        JsonNode md1 = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-1");
        assertEquals(2, generation(md1));
        assertEquals(2, md1.path("status").path("observedGeneration").asLong());
        assertEquals(1, md1.path("status").path("replicas").asInt());
        assertEquals(1, md1.path("status").path("upToDateReplicas").asInt());
        assertEquals(1, md1.path("status").path("readyReplicas").asInt());
        assertEquals(List.of("v1.32"), minors(machinesOf("bravo-md-1")));

        assertEquals(1, generation(fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0")));
        assertEquals(List.of("v1.31", "v1.31"), minors(machinesOf("bravo-md-0")));
    }

    @Test
    void charlieIsDeletedWithAllItsObjectsItsKubeconfigSecretAndItsApi() throws IOException {
        fleet.runTo(FleetSimulator.CHARLIE_DELETE_TICK - 1);
        assertNotNull(fleet.get(ObjectKind.EKSA_CLUSTER, NS, "charlie"));
        assertFalse(objectsOf("charlie").isEmpty());
        assertNotNull(fleet.kubeconfigSecret("charlie"));
        URI api = URI.create(simulator.workloadUrl("charlie").orElseThrow());
        new Socket(api.getHost(), api.getPort()).close();

        fleet.runTo(FleetSimulator.CHARLIE_DELETE_TICK);
        assertNull(fleet.get(ObjectKind.EKSA_CLUSTER, NS, "charlie"));
        assertNull(fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "charlie"));
        assertNull(fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "charlie"));
        assertEquals(List.of(), objectsOf("charlie"));
        assertNull(fleet.kubeconfigSecret("charlie"));
        assertTrue(simulator.workloadClient("charlie").isEmpty());
        assertThrows(ConnectException.class, () -> new Socket(api.getHost(), api.getPort()).close(), "its API server is gone");

        fleet.runTo(FleetSimulator.SETTLED_TICK);
        assertEquals(List.of(), objectsOf("charlie"), "and it does not come back");
        assertNull(fleet.kubeconfigSecret("charlie"));
    }

    @Test
    void theFleetSettlesNeverWritingAnEksaStatus() {
        fleet.runTo(FleetSimulator.SETTLED_TICK - 1);
        assertFalse(simulator.settled());
        fleet.runTo(FleetSimulator.SETTLED_TICK);
        assertTrue(simulator.settled());
        assertTrue(fleetReady(LIVE));

        for (String cluster : LIVE) {
            JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, cluster);
            assertEquals(kcp.path("spec").path("replicas").asInt(), kcp.path("status").path("readyReplicas").asInt(), cluster);
            assertTrue(initialized(kcp), cluster);
            assertEquals(generation(kcp), kcp.path("status").path("observedGeneration").asLong(), cluster);
        }
        for (JsonNode md : fleet.list(ObjectKind.MACHINE_DEPLOYMENT)) {
            String name = md.path("metadata").path("name").asText();
            assertEquals(md.path("spec").path("replicas").asInt(), md.path("status").path("readyReplicas").asInt(), name);
            assertEquals(generation(md), md.path("status").path("observedGeneration").asLong(), name);
            assertEquals("True", condition(md, "Available").path("status").asText(), name);
        }
        for (JsonNode cluster : fleet.list(ObjectKind.EKSA_CLUSTER)) {
            assertTrue(cluster.path("status").isMissingNode() || cluster.path("status").isEmpty(),
                    "the aggregator's to write: " + cluster.path("status"));
        }

        // Nothing changes any more: no write reaches the server.
        Map<String, String> versions = resourceVersions();
        simulator.step();
        simulator.step();
        assertEquals(versions, resourceVersions());
    }

    @Test
    void twoRunsAreAlike() {
        fleet.runTo(FleetSimulator.SETTLED_TICK);
        List<String> first = snapshot();
        tearDown();
        setUp();
        fleet.runTo(FleetSimulator.SETTLED_TICK);
        assertEquals(first, snapshot());
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Every cluster's control plane and groups at their desired counts, ready, Cilium ready. */
    private boolean fleetReady(List<String> clusters) {
        for (String name : clusters) {
            JsonNode cluster = fleet.get(ObjectKind.EKSA_CLUSTER, NS, name);
            JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, name);
            if (cluster == null || kcp == null) {
                return false;
            }
            int desired = cluster.path("spec").path("controlPlaneConfiguration").path("count").asInt();
            if (kcp.path("status").path("readyReplicas").asInt() != desired || kcp.path("status").path("replicas").asInt() != desired
                    || !initialized(kcp)) {
                return false;
            }
            for (JsonNode group : cluster.path("spec").path("workerNodeGroupConfigurations")) {
                JsonNode md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, name + "-" + group.path("name").asText());
                if (md == null || md.path("status").path("readyReplicas").asInt() != group.path("count").asInt()
                        || !"True".equals(condition(md, "Available").path("status").asText())) {
                    return false;
                }
            }
            if (!cniReady(fleet.cilium(name))) {
                return false;
            }
        }
        return true;
    }

    /** What CAPI v1.13 says of a KubeadmControlPlane at v1beta2: its first control plane node is up. */
    private static boolean initialized(JsonNode kcp) {
        return kcp.path("status").path("initialization").path("controlPlaneInitialized").asBoolean();
    }

    private static long generation(JsonNode object) {
        return object.path("metadata").path("generation").asLong();
    }

    private static JsonNode condition(JsonNode object, String type) {
        for (JsonNode condition : object.path("status").path("conditions")) {
            if (type.equals(condition.path("type").asText())) {
                return condition;
            }
        }
        return object.path("status").path("no-such-condition");
    }

    private static String deploymentOf(JsonNode machine) {
        return machine.path("metadata").path("labels").path("cluster.x-k8s.io/deployment-name").asText();
    }

    private List<JsonNode> machinesOf(String machineDeployment) {
        return fleet.list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).equals(machineDeployment)).toList();
    }

    private List<JsonNode> controlPlaneMachines(String cluster) {
        return fleet.list(ObjectKind.MACHINE).stream()
                .filter(m -> m.path("metadata").path("labels").has(FleetSimulator.CONTROL_PLANE_LABEL))
                .filter(m -> m.path("spec").path("clusterName").asText().equals(cluster))
                .toList();
    }

    private static List<String> versionsOf(List<JsonNode> machines) {
        return machines.stream().map(m -> m.path("spec").path("version").asText()).toList();
    }

    /** {@code v1.32} of {@code v1.32.3-eks-1-32-10}, per machine. */
    private static List<String> minors(List<JsonNode> machines) {
        return versionsOf(machines).stream().map(v -> v.substring(0, v.indexOf('.', v.indexOf('.') + 1))).toList();
    }

    /** Every CAPI object that names the cluster, by label, spec.clusterName or name. */
    private List<String> objectsOf(String cluster) {
        List<String> found = new ArrayList<>();
        for (ObjectKind kind : List.of(ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT,
                ObjectKind.MACHINE, ObjectKind.EKSA_CLUSTER)) {
            for (JsonNode object : fleet.list(kind)) {
                JsonNode metadata = object.path("metadata");
                if (metadata.path("name").asText().equals(cluster) || metadata.path("name").asText().startsWith(cluster + "-")
                        || metadata.path("labels").path("cluster.x-k8s.io/cluster-name").asText().equals(cluster)
                        || object.path("spec").path("clusterName").asText().equals(cluster)) {
                    found.add(kind.kind() + " " + metadata.path("name").asText());
                }
            }
        }
        return found;
    }

    private Map<String, String> resourceVersions() {
        Map<String, String> versions = new HashMap<>();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (JsonNode object : fleet.list(kind)) {
                versions.put(kind + "/" + object.path("metadata").path("name").asText(),
                        object.path("metadata").path("resourceVersion").asText());
            }
        }
        for (String cluster : LIVE) {
            versions.put("Secret/" + cluster, fleet.kubeconfigSecret(cluster).getMetadata().getResourceVersion());
            versions.put("DaemonSet/" + cluster, fleet.cilium(cluster).getMetadata().getResourceVersion());
        }
        return versions;
    }

    /** What the server holds, without what differs between runs (times, uids, resource versions). */
    private List<String> snapshot() {
        List<String> objects = new ArrayList<>();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (JsonNode object : fleet.list(kind)) {
                JsonNode status = object.path("status").deepCopy();
                status.path("conditions").forEach(c -> ((ObjectNode) c).remove("lastTransitionTime"));
                status.path("deprecated").path("v1beta1").path("conditions")
                        .forEach(c -> ((ObjectNode) c).remove("lastTransitionTime"));
                objects.add(kind + " " + object.path("metadata").path("name").asText() + " gen "
                        + generation(object) + " " + object.path("spec") + " " + status);
            }
        }
        for (String cluster : LIVE) {
            DaemonSet cilium = fleet.cilium(cluster);
            objects.add("DaemonSet " + cluster + " gen " + cilium.getMetadata().getGeneration() + " " + cilium.getStatus());
        }
        objects.sort(null);
        return objects;
    }
}
