package io.statusaggregator.embedded;

import static io.statusaggregator.embedded.SimulatedFleet.CAPI;
import static io.statusaggregator.embedded.SimulatedFleet.LIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.cli.ComputeRunner;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The simulated management cluster at either Cluster API version: by default a CAPI v1.13 one, its objects at
 * {@code v1beta2} as CAPI writes them, the deprecated {@code v1beta1} block included; with
 * {@code aggregator.embedded.capi-api-version=v1beta1} a CAPI v1.10 one. The status rules come to the same verdicts on
 * either, at every tick of the script.
 */
class SimulatedCapiVersionsTest {
    private static final Instant NOW = Instant.parse("2026-05-04T10:00:00Z");
    private static final List<ObjectKind> CAPI_KINDS = List.of(ObjectKind.CAPI_CLUSTER,
            ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE);

    @Test
    void theDefaultWritesV1beta2ObjectsAsCapiV113Does() {
        try (SimulatedFleet fleet = SimulatedFleet.start()) {
            // Tick 27: bravo's control plane rolls to 1.32 (a surge machine, not ready yet); delta scales up earlier.
            fleet.runTo(FleetSimulator.BRAVO_UPGRADE_TICK + 2);
            for (ObjectKind kind : CAPI_KINDS) {
                for (JsonNode object : fleet.list(kind)) {
                    assertEquals(kind.apiVersion("v1beta2"), object.path("apiVersion").asText());
                    assertMetav1Conditions(object);
                }
            }

            JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
            JsonNode status = kcp.path("status");
            assertEquals(4, status.path("replicas").asInt(), "three old machines and a surge one");
            assertEquals(1, status.path("upToDateReplicas").asInt());
            assertEquals(3, status.path("readyReplicas").asInt());
            assertEquals(3, status.path("availableReplicas").asInt());
            assertTrue(status.path("initialization").path("controlPlaneInitialized").asBoolean());
            for (String v1beta1Only : List.of("updatedReplicas", "unavailableReplicas", "initialized", "ready")) {
                assertFalse(status.has(v1beta1Only), v1beta1Only + " is only kept under deprecated.v1beta1");
            }
            assertEquals("True", condition(status, "RollingOut").path("status").asText());
            assertEquals("True", condition(status, "ScalingDown").path("status").asText(), "4 machines for 3 replicas");
            JsonNode deprecated = status.path("deprecated").path("v1beta1");
            assertEquals(1, deprecated.path("updatedReplicas").asInt());
            assertEquals(3, deprecated.path("readyReplicas").asInt());
            assertEquals(1, deprecated.path("unavailableReplicas").asInt());
            JsonNode oldHealthy = condition(deprecated, "ControlPlaneComponentsHealthy");
            assertEquals("False", oldHealthy.path("status").asText());
            assertEquals("Info", oldHealthy.path("severity").asText(), "v1beta1 conditions keep their severity");
            assertTrue(oldHealthy.has("lastTransitionTime"));
            assertEquals("True", condition(deprecated, "Available").path("status").asText());
            assertEquals("RollingUpdate", kcp.path("spec").path("rollout").path("strategy").path("type").asText());
            assertFalse(kcp.path("spec").has("rolloutStrategy"));
            assertEquals("infrastructure.cluster.x-k8s.io",
                    kcp.path("spec").path("machineTemplate").path("spec").path("infrastructureRef").path("apiGroup")
                            .asText());

            JsonNode cluster = fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo");
            JsonNode controlPlaneRef = cluster.path("spec").path("controlPlaneRef");
            assertEquals(Set.of("apiGroup", "kind", "name"), names(controlPlaneRef));
            assertEquals("controlplane.cluster.x-k8s.io", controlPlaneRef.path("apiGroup").asText());
            assertEquals(Set.of("apiGroup", "kind", "name"), names(cluster.path("spec").path("infrastructureRef")));
            assertTrue(cluster.path("status").path("initialization").path("controlPlaneInitialized").asBoolean());
            assertTrue(cluster.path("status").path("initialization").path("infrastructureProvisioned").asBoolean());
            for (String type : List.of("ControlPlaneInitialized", "RemoteConnectionProbe", "InfrastructureReady")) {
                assertEquals("True", condition(cluster.path("status"), type).path("status").asText(), type);
            }
            assertEquals("ProbeSucceeded", condition(cluster.path("status"), "RemoteConnectionProbe").path("reason")
                    .asText());
            assertEquals(4, cluster.path("status").path("controlPlane").path("replicas").asInt());
            assertTrue(condition(cluster.path("status").path("deprecated").path("v1beta1"), "ControlPlaneInitialized")
                    .isObject());

            JsonNode md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "delta-md-0");
            assertEquals("True", condition(md.path("status"), "Available").path("status").asText());
            assertTrue(condition(md.path("status"), "Ready").isMissingNode(),
                    "v1beta2 has no Ready on a MachineDeployment");
            assertEquals("True", condition(md.path("status").path("deprecated").path("v1beta1"), "Ready").path("status")
                    .asText());
            assertEquals(3, md.path("status").path("upToDateReplicas").asInt());
            assertEquals(3, md.path("status").path("deprecated").path("v1beta1").path("availableReplicas").asInt());
            assertEquals(0, md.path("spec").path("rollout").path("strategy").path("rollingUpdate")
                    .path("maxUnavailable").asInt(-1));

            JsonNode machine = fleet.list(ObjectKind.MACHINE).stream()
                    .filter(m -> m.path("metadata").path("name").asText().startsWith("bravo-cp-"))
                    .filter(m -> m.path("spec").path("version").asText().startsWith("v1.31."))
                    .findFirst().orElseThrow();
            assertEquals("False", condition(machine.path("status"), "UpToDate").path("status").asText(),
                    "an old machine");
            assertEquals("True", condition(machine.path("status"), "Ready").path("status").asText());
            assertEquals(Set.of("name"), names(machine.path("status").path("nodeRef")));
            assertTrue(machine.path("status").path("deprecated").path("v1beta1").path("conditions").isArray());
        }
    }

    @Test
    void aNotReadyConditionSaysWhyOnePerLineAsCapiDoes() {
        try (SimulatedFleet fleet = SimulatedFleet.start()) {
            fleet.runTo(5);
            // bravo, created at tick 4: its first control plane machine, made at tick 5, is not ready yet.
            JsonNode status = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo").path("status");
            JsonNode healthy = condition(status, "ControlPlaneComponentsHealthy");
            assertEquals("False", healthy.path("status").asText());
            assertEquals("NotHealthy", healthy.path("reason").asText());
            assertEquals("* Machine bravo-cp-1:\n  * APIServerPodHealthy: Waiting for a Node to exist",
                    healthy.path("message").asText());
            assertFalse(status.has("initialization"), "not initialized: CAPI leaves the field out");
            JsonNode cluster = fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("status");
            assertEquals("Remote connection not established yet",
                    condition(cluster, "RemoteConnectionProbe").path("message").asText());
            assertEquals("NotInitialized", condition(cluster, "ControlPlaneInitialized").path("reason").asText());
            List<String> why = List.of(condition(cluster, "Available").path("message").asText().split("\n"));
            assertEquals("* ControlPlaneAvailable: Control plane not yet initialized", why.get(0), why.toString());
            assertEquals("* WorkersAvailable:", why.get(1), why.toString());
            assertTrue(why.get(2).startsWith("  * MachineDeployment bravo-md-0: 0 available replicas, at least 2 required"),
                    why.toString());
            assertEquals("* RemoteConnectionProbe: Remote connection not established yet", why.get(why.size() - 1));
        }
    }

    @Test
    void theStatusRulesGiveTheSameVerdictsAtEitherVersionThroughTheWholeScript() throws IOException {
        Map<String, Set<String>> reasonsSeen = new TreeMap<>();
        try (SimulatedFleet v1beta2 = SimulatedFleet.start(CapiApiVersion.V1BETA2);
                SimulatedFleet v1beta1 = SimulatedFleet.start(CapiApiVersion.V1BETA1)) {
            for (int tick = 1; tick <= FleetSimulator.SETTLED_TICK; tick++) {
                v1beta2.runTo(tick);
                v1beta1.runTo(tick);
                Map<String, JsonNode> atV1beta2 = statuses(v1beta2);
                assertEquals(statuses(v1beta1), atV1beta2, "tick " + tick);
                atV1beta2.forEach((cluster, status) -> status.path("conditions").forEach(c -> reasonsSeen
                        .computeIfAbsent(cluster + " " + c.path("type").asText(), k -> new TreeSet<>())
                        .add(c.path("status").asText() + " " + c.path("reason").asText(""))));
            }
            Map<String, JsonNode> settled = statuses(v1beta2);
            assertEquals(LIVE.size(), settled.size());
            for (String cluster : LIVE) {
                for (String type : List.of("ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady")) {
                    assertEquals("True", condition(settled.get(cluster), type).path("status").asText(),
                            cluster + " " + type);
                }
            }
        }
        // The script's events, as the rules read them off the v1beta2 objects.
        assertTrue(reasonsSeen.get("bravo ControlPlaneReady").contains("False RollingUpgradeInProgress"),
                reasonsSeen.toString());
        assertTrue(reasonsSeen.get("bravo WorkersReady").contains("False RollingUpgradeInProgress"),
                reasonsSeen.toString());
        assertTrue(reasonsSeen.get("delta WorkersReady").contains("False ScalingUp"), reasonsSeen.toString());
        assertTrue(reasonsSeen.get("alpha ControlPlaneInitialized").contains("False WaitingForControlPlaneInitialized"),
                reasonsSeen.toString());
    }

    @Test
    void theV1beta1SettingServesAndWritesV1beta1Only() {
        try (SimulatedFleet fleet = SimulatedFleet.start(CapiApiVersion.V1BETA1)) {
            fleet.runTo(FleetSimulator.DELTA_SCALE_UP_TICK);
            for (ObjectKind kind : CAPI_KINDS) {
                assertFalse(fleet.list(kind).isEmpty(), kind.toString());
                for (JsonNode object : fleet.list(kind)) {
                    assertEquals(kind.apiVersion("v1beta1"), object.path("apiVersion").asText());
                    assertFalse(object.path("status").has("deprecated"));
                }
            }
            JsonNode kcp = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo").path("status");
            assertTrue(kcp.path("initialized").asBoolean());
            assertEquals(3, kcp.path("updatedReplicas").asInt());
            assertFalse(kcp.has("upToDateReplicas"));
            JsonNode md = fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0");
            assertEquals("True", condition(md.path("status"), "Ready")
                    .path("status").asText());
            JsonNode ref = fleet.get(ObjectKind.CAPI_CLUSTER, CAPI, "bravo").path("spec").path("controlPlaneRef");
            assertEquals("controlplane.cluster.x-k8s.io/v1beta1", ref.path("apiVersion").asText());
            KubernetesClientException notServed = assertThrows(KubernetesClientException.class,
                    () -> fleet.kubernetes().client().genericKubernetesResources(
                            KubernetesResources.of(ObjectKind.KUBEADM_CONTROL_PLANE, "v1beta2"))
                            .inNamespace(CAPI).list());
            assertEquals(404, notServed.getCode(), "a CAPI v1.10 management cluster serves no v1beta2");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** The statuses {@code compute} gives the fleet's objects, by cluster, without the times. */
    private static Map<String, JsonNode> statuses(SimulatedFleet fleet) throws IOException {
        ComputeRunner.Result result = ComputeRunner.compute(fleet.yaml(), NOW, CAPI);
        assertEquals(0, result.exitCode(), result.err());
        Map<String, JsonNode> statuses = new TreeMap<>();
        for (JsonNode document : result.documents()) {
            JsonNode status = document.path("status").deepCopy();
            status.path("conditions").forEach(c -> ((ObjectNode) c).remove("lastTransitionTime"));
            statuses.put(document.path("metadata").path("name").asText(), status);
        }
        return statuses;
    }

    /** Every condition a metav1.Condition: a reason always, a message, an observedGeneration, no severity. */
    private static void assertMetav1Conditions(JsonNode object) {
        String what = object.path("kind").asText() + " " + object.path("metadata").path("name").asText();
        JsonNode conditions = object.path("status").path("conditions");
        assertTrue(conditions.size() > 0, what);
        for (JsonNode condition : conditions) {
            String type = what + " " + condition.path("type").asText();
            assertFalse(condition.path("reason").asText().isEmpty(), type + ": reason");
            assertTrue(condition.path("message").isTextual(), type + ": message");
            assertTrue(condition.path("observedGeneration").asLong() >= 1, type + ": observedGeneration");
            assertTrue(condition.path("lastTransitionTime").isTextual(), type + ": lastTransitionTime");
            assertFalse(condition.has("severity"), type + ": no severity at v1beta2");
        }
    }

    private static JsonNode condition(JsonNode status, String type) {
        for (JsonNode condition : status.path("conditions")) {
            if (type.equals(condition.path("type").asText())) {
                return condition;
            }
        }
        return status.path("no-such-condition");
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
