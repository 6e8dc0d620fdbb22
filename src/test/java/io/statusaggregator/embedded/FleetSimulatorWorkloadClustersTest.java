package io.statusaggregator.embedded;

import static io.statusaggregator.embedded.SimulatedFleet.LIVE;
import static io.statusaggregator.embedded.SimulatedFleet.cniReady;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Drives the simulator tick by tick and looks at each cluster's workload API: its own API server from the cluster's
 * creation, its kubeconfig secret in the management API and its Cilium DaemonSet from initialization.
 */
class FleetSimulatorWorkloadClustersTest {
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
    void eachClusterHasItsOwnApiFromCreationAndItsKubeconfigSecretFromInitialization() {
        fleet.runTo(2);
        assertTrue(simulator.workloadClient("alpha").isPresent(), "alpha's API runs from its creation, tick 1");
        assertTrue(simulator.workloadClient("bravo").isEmpty(), "bravo is created at tick 4");
        assertNull(fleet.kubeconfigSecret("alpha"), "not before the control plane is initialized");
        assertNull(fleet.cilium("alpha"));

        fleet.runTo(3);
        Secret secret = fleet.kubeconfigSecret("alpha");
        assertNotNull(secret, "alpha initialized at tick 3");
        assertEquals("cluster.x-k8s.io/secret", secret.getType());
        assertEquals(Map.of("cluster.x-k8s.io/cluster-name", "alpha"), secret.getMetadata().getLabels());
        String kubeconfig = new String(Base64.getDecoder().decode(secret.getData().get("value")), StandardCharsets.UTF_8);
        assertEquals(simulator.workloadUrl("alpha").orElseThrow(), server(kubeconfig));

        // Read as the aggregator's CNI observer does: with a client of its own, made of the secret's kubeconfig.
        try (KubernetesClient workload = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
            DaemonSet cilium = workload.apps().daemonSets().inNamespace("kube-system").withName("cilium").get();
            assertNotNull(cilium);
            assertEquals("public.ecr.aws/isovalent/cilium:v1.15.16-eksa.1", ciliumAgent(cilium).getImage());
        }

        fleet.runTo(4);
        assertNotEquals(simulator.workloadUrl("alpha").orElseThrow(), simulator.workloadUrl("bravo").orElseThrow(),
                "one API per cluster");
    }

    @Test
    void ciliumStartsAtInitializationAndIsReadyThreeTicksLater() {
        fleet.runTo(3);
        DaemonSet starting = fleet.cilium("alpha");
        assertNotNull(starting, "alpha initialized at tick 3");
        assertFalse(cniReady(starting));
        assertEquals(1, starting.getStatus().getDesiredNumberScheduled(), "one node: the first control plane machine");
        assertEquals(0, starting.getStatus().getNumberReady());
        assertEquals(starting.getMetadata().getGeneration(), starting.getStatus().getObservedGeneration());

        fleet.runTo(3 + FleetSimulator.CNI_READY_AFTER - 1);
        assertFalse(cniReady(fleet.cilium("alpha")));
        assertEquals(nodes("alpha"), fleet.cilium("alpha").getStatus().getDesiredNumberScheduled(), "follows the workers joining");
        fleet.runTo(3 + FleetSimulator.CNI_READY_AFTER);
        DaemonSet ready = fleet.cilium("alpha");
        assertTrue(cniReady(ready), "ready " + FleetSimulator.CNI_READY_AFTER + " ticks after initialization: " + ready.getStatus());
        assertEquals(3, ready.getStatus().getDesiredNumberScheduled(), "1 control plane node, 2 workers");
        assertEquals("public.ecr.aws/isovalent/cilium:v1.15.16-eksa.1", ciliumAgent(ready).getImage());

        fleet.runTo(FleetSimulator.SETTLED_TICK + 2);
        for (String cluster : LIVE) {
            DaemonSet cilium = fleet.cilium(cluster);
            assertTrue(cniReady(cilium), cluster);
            assertEquals(nodes(cluster), cilium.getStatus().getDesiredNumberScheduled(), cluster);
        }
    }

    @Test
    void ciliumStaysReadyWhileDeltaScalesUpAndBravoRolls() {
        fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK - 1);
        assertEquals(2, fleet.cilium("delta").getStatus().getDesiredNumberScheduled());
        for (int tick = FleetSimulator.DELTA_SCALE_UP_TICK; tick <= FleetSimulator.SETTLED_TICK; tick++) {
            simulator.step();
            for (String cluster : List.of("delta", "bravo")) {
                DaemonSet cilium = fleet.cilium(cluster);
                assertTrue(cniReady(cilium), "tick " + tick + ", " + cluster + ": " + cilium.getStatus());
                assertEquals(nodes(cluster), cilium.getStatus().getDesiredNumberScheduled(), "tick " + tick + ", " + cluster);
            }
        }
        assertEquals(1 + FleetSimulator.DELTA_SCALED_WORKERS, fleet.cilium("delta").getStatus().getDesiredNumberScheduled());
        assertEquals(1, fleet.cilium("delta").getMetadata().getGeneration(), "its spec never changed");
    }

    /** The server URL of a kubeconfig's first cluster. */
    private static String server(String kubeconfig) {
        try {
            return new YAMLMapper().readTree(kubeconfig).path("clusters").path(0).path("cluster").path("server").asText();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Container ciliumAgent(DaemonSet cilium) {
        return cilium.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals("cilium-agent")).findFirst().orElseThrow();
    }

    /** The cluster's nodes, as the management API shows them: its Machines with a nodeRef. */
    private int nodes(String cluster) {
        return (int) fleet.list(ObjectKind.MACHINE).stream()
                .filter(m -> m.path("spec").path("clusterName").asText().equals(cluster))
                .filter(m -> m.path("status").has("nodeRef"))
                .count();
    }
}
