package io.statusaggregator.embedded;

import io.statusaggregator.kubernetes.KubernetesResources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.embedded.LiveTable.Row;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveTableTest {
    private static final String CAPI = "eksa-system";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-05-04T10:00:12.345Z"), ZoneOffset.UTC);

    @Test
    void rendersAlignedColumnsThreeSpacesApart() {
        String table = LiveTable.render(List.of(
                new Row("default", "alpha", 1, 1, 2, 2, "True", "-"),
                new Row("default", "bravo", 2, 3, 0, 3, "False", "ScalingUp"),
                new Row("team-a", "c", 0, 1, 0, 12, "-", "-")));
        assertEquals("""
                CLUSTER         CONTROL PLANE   WORKERS   READY   REASON
                default/alpha   1/1             2/2       True    -
                default/bravo   2/3             0/3       False   ScalingUp
                team-a/c        0/1             0/12      -       -
                """, table);
    }

    @Test
    void anEmptyFleetIsTheHeaderAlone() {
        assertEquals("CLUSTER   CONTROL PLANE   WORKERS   READY   REASON\n", LiveTable.render(List.of()));
    }

    @Test
    void printsUnderATimestampOnlyWhenTheTableChanged() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            LiveTable table = new LiveTable(kubernetes.client(), CAPI, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                    Duration.ofSeconds(1), CLOCK);
            List<Row> rows = List.of(new Row("default", "alpha", 0, 1, 0, 2, "-", "-"));
            assertTrue(table.show(rows));
            assertFalse(table.show(rows));
            assertFalse(table.show(List.of(new Row("default", "alpha", 0, 1, 0, 2, "-", "-"))), "equal rows, same table");
            assertTrue(table.show(List.of(new Row("default", "alpha", 1, 1, 0, 2, "-", "-"))));
            assertEquals("""
                    2026-05-04T10:00:12Z
                    CLUSTER         CONTROL PLANE   WORKERS   READY   REASON
                    default/alpha   0/1             0/2       -       -

                    2026-05-04T10:00:12Z
                    CLUSTER         CONTROL PLANE   WORKERS   READY   REASON
                    default/alpha   1/1             0/2       -       -

                    """, bytes.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void readsTheRowsFromTheApiServer() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            KubernetesClient client = kubernetes.client();
            create(client, ObjectKind.EKSA_CLUSTER, """
                    apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                    kind: Cluster
                    metadata: {namespace: default, name: prod}
                    spec:
                      kubernetesVersion: "1.31"
                      controlPlaneConfiguration: {count: 3}
                      workerNodeGroupConfigurations: [{name: md-0, count: 2}, {name: md-1}]
                    """);
            patchStatus(client, ObjectKind.EKSA_CLUSTER, "default", "prod", """
                    {"status": {"conditions": [
                      {"type": "ControlPlaneReady", "status": "False", "reason": "ScalingUp"},
                      {"type": "Ready", "status": "False", "reason": "RollingUpgradeInProgress"}]}}
                    """);
            create(client, ObjectKind.EKSA_CLUSTER, """
                    apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                    kind: Cluster
                    metadata: {namespace: team-a, name: dev}
                    spec:
                      kubernetesVersion: "1.31"
                      controlPlaneConfiguration: {count: 1}
                    """);
            create(client, ObjectKind.KUBEADM_CONTROL_PLANE, """
                    apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                    kind: KubeadmControlPlane
                    metadata: {namespace: eksa-system, name: prod, labels: {cluster.x-k8s.io/cluster-name: prod}}
                    spec: {replicas: 3}
                    """);
            patchStatus(client, ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "prod", "{\"status\": {\"replicas\": 3, \"readyReplicas\": 2}}");
            for (String group : List.of("md-0", "md-1")) {
                create(client, ObjectKind.MACHINE_DEPLOYMENT, """
                        apiVersion: cluster.x-k8s.io/v1beta1
                        kind: MachineDeployment
                        metadata: {namespace: eksa-system, name: prod-%s}
                        spec: {clusterName: prod}
                        """.formatted(group));
                patchStatus(client, ObjectKind.MACHINE_DEPLOYMENT, CAPI, "prod-" + group, "{\"status\": {\"readyReplicas\": 1}}");
            }
            // Another cluster's objects count for it alone.
            create(client, ObjectKind.MACHINE_DEPLOYMENT, """
                    apiVersion: cluster.x-k8s.io/v1beta1
                    kind: MachineDeployment
                    metadata: {namespace: eksa-system, name: other-md-0}
                    spec: {clusterName: other}
                    """);
            patchStatus(client, ObjectKind.MACHINE_DEPLOYMENT, CAPI, "other-md-0", "{\"status\": {\"readyReplicas\": 5}}");

            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            LiveTable table = new LiveTable(client, CAPI, new PrintStream(bytes, true, StandardCharsets.UTF_8), Duration.ofSeconds(1), CLOCK);
            assertEquals(List.of(
                    new Row("default", "prod", 2, 3, 2, 3, "False", "RollingUpgradeInProgress"),
                    new Row("team-a", "dev", 0, 1, 0, 0, "-", "-")), table.readRows());

            assertTrue(table.refresh());
            assertFalse(table.refresh(), "nothing changed");
            patchStatus(client, ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "prod", "{\"status\": {\"readyReplicas\": 3}}");
            assertTrue(table.refresh());
            String output = bytes.toString(StandardCharsets.UTF_8);
            assertEquals(2, output.split("2026-05-04T10:00:12Z", -1).length - 1, output);
            assertTrue(output.endsWith("""
                    CLUSTER        CONTROL PLANE   WORKERS   READY   REASON
                    default/prod   3/3             2/3       False   RollingUpgradeInProgress
                    team-a/dev     0/1             0/0       -       -

                    """), output);
        }
    }

    @Test
    void showsTheSimulatedFleet() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0,
                        FleetSimulator.capiVersionsServed(CapiApiVersion.V1BETA2));
                FleetSimulator simulator = new FleetSimulator(kubernetes.client(), CAPI, Duration.ofSeconds(1),
                        CapiApiVersion.V1BETA2)) {
            LiveTable table = new LiveTable(kubernetes.client(), CAPI, new PrintStream(new ByteArrayOutputStream(), true,
                    StandardCharsets.UTF_8), Duration.ofSeconds(1), CLOCK);
            while (simulator.ticks() < 8) {
                simulator.step();
            }
            assertEquals(List.of(
                    new Row("default", "alpha", 1, 1, 2, 2, "-", "-"),
                    new Row("default", "bravo", 3, 3, 2, 3, "-", "-"),
                    new Row("default", "charlie", 0, 1, 0, 1, "-", "-")), table.readRows());
        }
    }

    private static void create(KubernetesClient client, ObjectKind kind, String yaml) {
        GenericKubernetesResource object = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        client.genericKubernetesResources(KubernetesResources.of(kind)).inNamespace(object.getMetadata().getNamespace())
                .resource(object).create();
    }

    private static void patchStatus(KubernetesClient client, ObjectKind kind, String namespace, String name, String patch) {
        client.genericKubernetesResources(KubernetesResources.of(kind)).inNamespace(namespace).withName(name)
                .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
}
