package io.statusaggregator.embedded;

import io.statusaggregator.kubernetes.KubernetesResources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the simulator tick by tick against the embedded API server, and looks at what the server holds. */
class FleetSimulatorTest {
    private static final String CAPI = "eksa-system";
    private static final String NS = FleetSimulator.CLUSTER_NAMESPACE;
    private static final List<String> LIVE = List.of("alpha", "bravo", "delta");

    private EmbeddedKubernetes kubernetes;
    private FleetSimulator simulator;

    @BeforeEach
    void setUp() {
        kubernetes = EmbeddedKubernetes.start(0);
        simulator = new FleetSimulator(kubernetes.client(), CAPI, Duration.ofSeconds(1));
    }

    @AfterEach
    void tearDown() {
        simulator.close();
        kubernetes.close();
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
        runTo(1);
        assertNotNull(get(ObjectKind.EKSA_CLUSTER, NS, "alpha"));
        assertNull(get(ObjectKind.EKSA_CLUSTER, NS, "bravo"));

        runTo(5);
        // alpha initialized at tick 3 and grows its workers; bravo's control plane is on its first machine.
        JsonNode alpha = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "alpha");
        assertTrue(alpha.path("status").path("initialized").asBoolean());
        assertEquals(2, get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0").path("status").path("replicas").asInt());
        assertEquals(1, get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0").path("status").path("readyReplicas").asInt());
        JsonNode bravo = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(1, bravo.path("status").path("replicas").asInt());
        assertEquals(0, bravo.path("status").path("readyReplicas").asInt(), "ready lags replicas by one tick");
        assertFalse(bravo.path("status").path("initialized").asBoolean());
        assertEquals("False", condition(bravo, "Available").path("status").asText());
        assertEquals(0, list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).startsWith("bravo-")).count(),
                "workers wait for the control plane");

        runTo(14);
        assertFalse(fleetReady(List.of("alpha", "bravo", "charlie", "delta")), "delta's Cilium is not ready yet");
        runTo(15);
        assertTrue(fleetReady(List.of("alpha", "bravo", "charlie", "delta")));
        JsonNode bravoReady = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(3, bravoReady.path("status").path("readyReplicas").asInt());
        assertEquals("True", condition(bravoReady, "Available").path("status").asText());
        assertEquals("True", condition(get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0"), "Ready").path("status").asText());
        assertEquals("Provisioned", get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("status").path("phase").asText());
        assertEquals("bravo", get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("spec").path("controlPlaneRef").path("name").asText());
    }

    @Test
    void theEksaClustersHaveTheSpecTheStatusRulesRead() {
        runTo(10);
        JsonNode bravo = get(ObjectKind.EKSA_CLUSTER, NS, "bravo");
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
        JsonNode machine = list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).equals("bravo-md-1")).findFirst().orElseThrow();
        assertEquals("bravo", machine.path("spec").path("clusterName").asText());
        assertTrue(machine.path("spec").path("version").asText().startsWith("v1.31."));
        assertTrue(list(ObjectKind.MACHINE).stream()
                .anyMatch(m -> m.path("metadata").path("labels").has(FleetSimulator.CONTROL_PLANE_LABEL)
                        && m.path("spec").path("clusterName").asText().equals("bravo")));
    }

    @Test
    void deltaIsScaledUpThroughTheEksaSpecThenItsMachineDeployment() {
        runTo(FleetSimulator.DELTA_SCALE_UP_TICK - 1);
        assertEquals(1, generation(get(ObjectKind.EKSA_CLUSTER, NS, "delta")));
        assertEquals(1, generation(get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0")));

        runTo(FleetSimulator.DELTA_SCALE_UP_TICK);
        JsonNode delta = get(ObjectKind.EKSA_CLUSTER, NS, "delta");
        assertEquals(2, generation(delta));
        assertEquals(3, delta.path("spec").path("workerNodeGroupConfigurations").get(0).path("count").asInt());

        runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 1);
        JsonNode md = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(2, generation(md));
        assertEquals(3, md.path("spec").path("replicas").asInt());
        assertEquals(1, md.path("status").path("observedGeneration").asLong(), "CAPI observes the change the next tick");

        runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 2);
        md = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(2, md.path("status").path("observedGeneration").asLong());
        assertEquals(2, md.path("status").path("replicas").asInt());
        assertEquals(1, md.path("status").path("readyReplicas").asInt());
        assertEquals("False", condition(md, "Ready").path("status").asText());

        runTo(FleetSimulator.DELTA_SCALE_UP_TICK + 4);
        md = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
        assertEquals(3, md.path("status").path("readyReplicas").asInt());
        assertEquals(3, md.path("status").path("updatedReplicas").asInt());
        assertEquals("True", condition(md, "Ready").path("status").asText());
        assertEquals(3, machinesOf("delta-md-0").size());
    }

    @Test
    void bravoRollsItsControlPlaneThenMd1ToTheNewVersionWhileMd0StaysPinned() {
        runTo(FleetSimulator.BRAVO_UPGRADE_TICK);
        JsonNode bravo = get(ObjectKind.EKSA_CLUSTER, NS, "bravo");
        assertEquals(2, generation(bravo));
        assertEquals("1.32", bravo.path("spec").path("kubernetesVersion").asText());
        assertEquals("1.31", bravo.path("spec").path("workerNodeGroupConfigurations").get(0).path("kubernetesVersion").asText());

        int maxControlPlane = 0;
        int maxMd1 = 0;
        for (int tick = FleetSimulator.BRAVO_UPGRADE_TICK + 1; tick <= FleetSimulator.SETTLED_TICK; tick++) {
            simulator.step();
            JsonNode kcp = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo").path("status");
            JsonNode md1 = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-1").path("status");
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

        JsonNode kcp = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        assertEquals(2, generation(kcp));
        assertEquals(2, kcp.path("status").path("observedGeneration").asLong());
        assertEquals(3, kcp.path("status").path("replicas").asInt());
        assertEquals(3, kcp.path("status").path("updatedReplicas").asInt());
        assertEquals(List.of("v1.32", "v1.32", "v1.32"), minors(controlPlaneMachines("bravo")));

        JsonNode md1 = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-1");
        assertEquals(2, generation(md1));
        assertEquals(2, md1.path("status").path("observedGeneration").asLong());
        assertEquals(1, md1.path("status").path("replicas").asInt());
        assertEquals(1, md1.path("status").path("updatedReplicas").asInt());
        assertEquals(1, md1.path("status").path("readyReplicas").asInt());
        assertEquals(List.of("v1.32"), minors(machinesOf("bravo-md-1")));

        assertEquals(1, generation(get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0")));
        assertEquals(List.of("v1.31", "v1.31"), minors(machinesOf("bravo-md-0")));
    }

    @Test
    void charlieIsDeletedWithAllItsObjectsItsKubeconfigSecretAndItsApi() throws IOException {
        runTo(FleetSimulator.CHARLIE_DELETE_TICK - 1);
        assertNotNull(get(ObjectKind.EKSA_CLUSTER, NS, "charlie"));
        assertFalse(objectsOf("charlie").isEmpty());
        assertNotNull(kubeconfigSecret("charlie"));
        URI api = URI.create(simulator.workloadUrl("charlie").orElseThrow());
        new Socket(api.getHost(), api.getPort()).close();

        runTo(FleetSimulator.CHARLIE_DELETE_TICK);
        assertNull(get(ObjectKind.EKSA_CLUSTER, NS, "charlie"));
        assertNull(get(ObjectKind.CAPI_CLUSTER, CAPI, "charlie"));
        assertNull(get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "charlie"));
        assertEquals(List.of(), objectsOf("charlie"));
        assertNull(kubeconfigSecret("charlie"));
        assertTrue(simulator.workloadClient("charlie").isEmpty());
        assertThrows(ConnectException.class, () -> new Socket(api.getHost(), api.getPort()).close(), "its API server is gone");

        runTo(FleetSimulator.SETTLED_TICK);
        assertEquals(List.of(), objectsOf("charlie"), "and it does not come back");
        assertNull(kubeconfigSecret("charlie"));
    }

    @Test
    void eachClusterHasItsOwnApiFromCreationAndItsKubeconfigSecretFromInitialization() {
        runTo(2);
        assertTrue(simulator.workloadClient("alpha").isPresent(), "alpha's API runs from its creation, tick 1");
        assertTrue(simulator.workloadClient("bravo").isEmpty(), "bravo is created at tick 4");
        assertNull(kubeconfigSecret("alpha"), "not before the control plane is initialized");
        assertNull(cilium("alpha"));

        runTo(3);
        Secret secret = kubeconfigSecret("alpha");
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

        runTo(4);
        assertNotEquals(simulator.workloadUrl("alpha").orElseThrow(), simulator.workloadUrl("bravo").orElseThrow(),
                "one API per cluster");
    }

    @Test
    void ciliumStartsAtInitializationAndIsReadyThreeTicksLater() {
        runTo(3);
        DaemonSet starting = cilium("alpha");
        assertNotNull(starting, "alpha initialized at tick 3");
        assertFalse(cniReady(starting));
        assertEquals(1, starting.getStatus().getDesiredNumberScheduled(), "one node: the first control plane machine");
        assertEquals(0, starting.getStatus().getNumberReady());
        assertEquals(starting.getMetadata().getGeneration(), starting.getStatus().getObservedGeneration());

        runTo(3 + FleetSimulator.CNI_READY_AFTER - 1);
        assertFalse(cniReady(cilium("alpha")));
        assertEquals(nodes("alpha"), cilium("alpha").getStatus().getDesiredNumberScheduled(), "follows the workers joining");
        runTo(3 + FleetSimulator.CNI_READY_AFTER);
        DaemonSet ready = cilium("alpha");
        assertTrue(cniReady(ready), "ready " + FleetSimulator.CNI_READY_AFTER + " ticks after initialization: " + ready.getStatus());
        assertEquals(3, ready.getStatus().getDesiredNumberScheduled(), "1 control plane node, 2 workers");
        assertEquals("public.ecr.aws/isovalent/cilium:v1.15.16-eksa.1", ciliumAgent(ready).getImage());

        runTo(FleetSimulator.SETTLED_TICK + 2);
        for (String cluster : LIVE) {
            DaemonSet cilium = cilium(cluster);
            assertTrue(cniReady(cilium), cluster);
            assertEquals(nodes(cluster), cilium.getStatus().getDesiredNumberScheduled(), cluster);
        }
    }

    @Test
    void ciliumStaysReadyWhileDeltaScalesUpAndBravoRolls() {
        runTo(FleetSimulator.DELTA_SCALE_UP_TICK - 1);
        assertEquals(2, cilium("delta").getStatus().getDesiredNumberScheduled());
        for (int tick = FleetSimulator.DELTA_SCALE_UP_TICK; tick <= FleetSimulator.SETTLED_TICK; tick++) {
            simulator.step();
            for (String cluster : List.of("delta", "bravo")) {
                DaemonSet cilium = cilium(cluster);
                assertTrue(cniReady(cilium), "tick " + tick + ", " + cluster + ": " + cilium.getStatus());
                assertEquals(nodes(cluster), cilium.getStatus().getDesiredNumberScheduled(), "tick " + tick + ", " + cluster);
            }
        }
        assertEquals(1 + FleetSimulator.DELTA_SCALED_WORKERS, cilium("delta").getStatus().getDesiredNumberScheduled());
        assertEquals(1, cilium("delta").getMetadata().getGeneration(), "its spec never changed");
    }

    @Test
    void theFleetSettlesNeverWritingAnEksaStatus() {
        runTo(FleetSimulator.SETTLED_TICK - 1);
        assertFalse(simulator.settled());
        runTo(FleetSimulator.SETTLED_TICK);
        assertTrue(simulator.settled());
        assertTrue(fleetReady(LIVE));

        for (String cluster : LIVE) {
            JsonNode kcp = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, cluster);
            assertEquals(kcp.path("spec").path("replicas").asInt(), kcp.path("status").path("readyReplicas").asInt(), cluster);
            assertTrue(kcp.path("status").path("initialized").asBoolean(), cluster);
            assertEquals(generation(kcp), kcp.path("status").path("observedGeneration").asLong(), cluster);
        }
        for (JsonNode md : list(ObjectKind.MACHINE_DEPLOYMENT)) {
            String name = md.path("metadata").path("name").asText();
            assertEquals(md.path("spec").path("replicas").asInt(), md.path("status").path("readyReplicas").asInt(), name);
            assertEquals(generation(md), md.path("status").path("observedGeneration").asLong(), name);
            assertEquals("True", condition(md, "Ready").path("status").asText(), name);
        }
        for (JsonNode cluster : list(ObjectKind.EKSA_CLUSTER)) {
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
        runTo(FleetSimulator.SETTLED_TICK);
        List<String> first = snapshot();
        tearDown();
        setUp();
        runTo(FleetSimulator.SETTLED_TICK);
        assertEquals(first, snapshot());
    }

    // ---------------------------------------------------------------------------------------------------------

    private void runTo(int tick) {
        while (simulator.ticks() < tick) {
            simulator.step();
        }
    }

    /** Every cluster's control plane and groups at their desired counts, ready, Cilium ready. */
    private boolean fleetReady(List<String> clusters) {
        for (String name : clusters) {
            JsonNode cluster = get(ObjectKind.EKSA_CLUSTER, NS, name);
            JsonNode kcp = get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, name);
            if (cluster == null || kcp == null) {
                return false;
            }
            int desired = cluster.path("spec").path("controlPlaneConfiguration").path("count").asInt();
            if (kcp.path("status").path("readyReplicas").asInt() != desired || kcp.path("status").path("replicas").asInt() != desired
                    || !kcp.path("status").path("initialized").asBoolean()) {
                return false;
            }
            for (JsonNode group : cluster.path("spec").path("workerNodeGroupConfigurations")) {
                JsonNode md = get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, name + "-" + group.path("name").asText());
                if (md == null || md.path("status").path("readyReplicas").asInt() != group.path("count").asInt()
                        || !"True".equals(condition(md, "Ready").path("status").asText())) {
                    return false;
                }
            }
            if (!cniReady(cilium(name))) {
                return false;
            }
        }
        return true;
    }

    private JsonNode get(ObjectKind kind, String namespace, String name) {
        GenericKubernetesResource object = kubernetes.client().genericKubernetesResources(KubernetesResources.of(kind))
                .inNamespace(namespace).withName(name).get();
        return object == null ? null : json(object);
    }

    private List<JsonNode> list(ObjectKind kind) {
        String namespace = kind == ObjectKind.EKSA_CLUSTER ? NS : CAPI;
        return kubernetes.client().genericKubernetesResources(KubernetesResources.of(kind)).inNamespace(namespace).list()
                .getItems().stream().map(this::json).toList();
    }

    private JsonNode json(GenericKubernetesResource object) {
        return kubernetes.client().getKubernetesSerialization().convertValue(object, JsonNode.class);
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
        return list(ObjectKind.MACHINE).stream().filter(m -> deploymentOf(m).equals(machineDeployment)).toList();
    }

    private List<JsonNode> controlPlaneMachines(String cluster) {
        return list(ObjectKind.MACHINE).stream()
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
            for (JsonNode object : list(kind)) {
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

    private Secret kubeconfigSecret(String cluster) {
        return kubernetes.client().secrets().inNamespace(CAPI).withName(cluster + "-kubeconfig").get();
    }

    /** The server URL of a kubeconfig's first cluster. */
    private static String server(String kubeconfig) {
        try {
            return new YAMLMapper().readTree(kubeconfig).path("clusters").path(0).path("cluster").path("server").asText();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The Cilium DaemonSet in a cluster's workload API; null when there is none (yet). */
    private DaemonSet cilium(String cluster) {
        return simulator.workloadClient(cluster)
                .map(c -> c.apps().daemonSets().inNamespace("kube-system").withName("cilium").get())
                .orElse(null);
    }

    private static Container ciliumAgent(DaemonSet cilium) {
        return cilium.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals("cilium-agent")).findFirst().orElseThrow();
    }

    /** The aggregator's CNI observer's rule: every scheduled pod ready and up to date, on a spec it has seen. */
    private static boolean cniReady(DaemonSet cilium) {
        if (cilium == null || cilium.getStatus() == null) {
            return false;
        }
        var status = cilium.getStatus();
        int desired = status.getDesiredNumberScheduled() == null ? 0 : status.getDesiredNumberScheduled();
        return desired > 0 && Integer.valueOf(desired).equals(status.getNumberReady())
                && Integer.valueOf(desired).equals(status.getUpdatedNumberScheduled())
                && status.getObservedGeneration() != null
                && status.getObservedGeneration() >= cilium.getMetadata().getGeneration();
    }

    /** The cluster's nodes, as the management API shows them: its Machines with a nodeRef. */
    private int nodes(String cluster) {
        return (int) list(ObjectKind.MACHINE).stream()
                .filter(m -> m.path("spec").path("clusterName").asText().equals(cluster))
                .filter(m -> m.path("status").has("nodeRef"))
                .count();
    }

    private Map<String, String> resourceVersions() {
        Map<String, String> versions = new HashMap<>();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (JsonNode object : list(kind)) {
                versions.put(kind + "/" + object.path("metadata").path("name").asText(),
                        object.path("metadata").path("resourceVersion").asText());
            }
        }
        for (String cluster : LIVE) {
            versions.put("Secret/" + cluster, kubeconfigSecret(cluster).getMetadata().getResourceVersion());
            versions.put("DaemonSet/" + cluster, cilium(cluster).getMetadata().getResourceVersion());
        }
        return versions;
    }

    /** What the server holds, without what differs between runs (times, uids, resource versions). */
    private List<String> snapshot() {
        List<String> objects = new ArrayList<>();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (JsonNode object : list(kind)) {
                JsonNode status = object.path("status").deepCopy();
                status.path("conditions").forEach(c -> ((ObjectNode) c).remove("lastTransitionTime"));
                objects.add(kind + " " + object.path("metadata").path("name").asText() + " gen "
                        + generation(object) + " " + object.path("spec") + " " + status);
            }
        }
        for (String cluster : LIVE) {
            DaemonSet cilium = cilium(cluster);
            objects.add("DaemonSet " + cluster + " gen " + cilium.getMetadata().getGeneration() + " " + cilium.getStatus());
        }
        objects.sort(null);
        return objects;
    }
}
