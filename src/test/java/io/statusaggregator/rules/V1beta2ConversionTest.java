package io.statusaggregator.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scenarios' v1beta2 runs are only as good as this conversion: it must be CAPI's, field for field. */
class V1beta2ConversionTest {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Instant NOW = Instant.parse("2026-08-18T12:00:00Z");

    @Test
    void aKubeadmControlPlaneIsConvertedAsCapiDoes() throws IOException {
        assertEquals(yaml("""
                apiVersion: controlplane.cluster.x-k8s.io/v1beta2
                kind: KubeadmControlPlane
                metadata: {namespace: eksa-system, name: alpha, generation: 2}
                status:
                  observedGeneration: 2
                  replicas: 3
                  readyReplicas: 2
                  upToDateReplicas: 1
                  initialization: {controlPlaneInitialized: true}
                  conditions:
                    - {type: Available, status: "True", observedGeneration: 2,
                       lastTransitionTime: "2026-08-18T12:00:00Z", reason: Available}
                    - {type: ControlPlaneComponentsHealthy, status: "False", observedGeneration: 2,
                       lastTransitionTime: "2026-08-01T00:00:00Z", reason: PodFailed, message: "etcd down"}
                  deprecated:
                    v1beta1:
                      failureReason: UpgradeFailed
                      unavailableReplicas: 1
                      readyReplicas: 2
                      updatedReplicas: 1
                      conditions:
                        - {type: Available, status: "True"}
                        - {type: ControlPlaneComponentsHealthy, status: "False", severity: Error, reason: PodFailed,
                           message: "etcd down", lastTransitionTime: "2026-08-01T00:00:00Z"}
                """), converted("""
                apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                kind: KubeadmControlPlane
                metadata: {namespace: eksa-system, name: alpha, generation: 2}
                status:
                  observedGeneration: 2
                  initialized: true
                  ready: true
                  replicas: 3
                  readyReplicas: 2
                  updatedReplicas: 1
                  unavailableReplicas: 1
                  failureReason: UpgradeFailed
                  conditions:
                    - {type: Available, status: "True"}
                    - {type: ControlPlaneComponentsHealthy, status: "False", severity: Error, reason: PodFailed,
                       message: "etcd down", lastTransitionTime: "2026-08-01T00:00:00Z"}
                """));
    }

    @Test
    void aMachineDeploymentsReadyIsItsAvailable() throws IOException {
        JsonNode md = converted("""
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {namespace: eksa-system, name: alpha-md-0}
                spec: {clusterName: alpha}
                status: {replicas: 2, updatedReplicas: 2, readyReplicas: 1,
                         conditions: [{type: Ready, status: "False", reason: WaitingForAvailableMachines}]}
                """);
        assertEquals("cluster.x-k8s.io/v1beta2", md.path("apiVersion").asText());
        assertEquals(yaml("""
                replicas: 2
                readyReplicas: 1
                upToDateReplicas: 2
                conditions: [{type: Available, status: "False", observedGeneration: 1,
                              lastTransitionTime: "2026-08-18T12:00:00Z", reason: WaitingForAvailableMachines}]
                deprecated:
                  v1beta1:
                    readyReplicas: 1
                    updatedReplicas: 2
                    conditions: [{type: Ready, status: "False", reason: WaitingForAvailableMachines}]
                """), md.path("status"));
    }

    @Test
    void theCapiClustersRefsNameAGroupAndItsControlPlaneReadyIsItsInitialization() throws IOException {
        JsonNode cluster = converted("""
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: Cluster
                metadata: {namespace: eksa-system, name: alpha}
                spec:
                  controlPlaneRef: {apiVersion: controlplane.cluster.x-k8s.io/v1beta1, kind: KubeadmControlPlane,
                                    name: alpha-cp, namespace: eksa-system}
                  managedExternalEtcdRef: {apiVersion: etcdcluster.cluster.x-k8s.io/v1beta1, kind: EtcdadmCluster,
                                           name: alpha-etcd}
                status: {controlPlaneReady: true, infrastructureReady: true}
                """);
        assertEquals(yaml("""
                controlPlaneRef: {apiGroup: controlplane.cluster.x-k8s.io, kind: KubeadmControlPlane, name: alpha-cp}
                managedExternalEtcdRef: {apiGroup: etcdcluster.cluster.x-k8s.io, kind: EtcdadmCluster, name: alpha-etcd}
                """), cluster.path("spec"));
        assertEquals(yaml("initialization: {controlPlaneInitialized: true, infrastructureProvisioned: true}"),
                cluster.path("status"));
    }

    @Test
    void whatIsNotV1beta1CapiIsLeftAsItIs() throws IOException {
        List<JsonNode> objects = List.of(
                yaml("{apiVersion: anywhere.eks.amazonaws.com/v1alpha1, kind: Cluster, metadata: {name: alpha}}"),
                yaml("{apiVersion: etcdcluster.cluster.x-k8s.io/v1beta1, kind: EtcdadmCluster, metadata: {name: e}}"),
                yaml("{apiVersion: cluster.x-k8s.io/v1beta2, kind: MachineDeployment, metadata: {name: md}}"));
        assertTrue(V1beta2Conversion.convert(objects, NOW).isEmpty());
    }

    @Test
    void whatCapiWouldReadFromTheV1beta2BlockIsRefusedRatherThanGuessed() throws IOException {
        assertThrows(IllegalArgumentException.class, () -> converted("""
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {name: md}
                status: {replicas: 1, v1beta2: {upToDateReplicas: 0}}
                """));
        assertThrows(IllegalArgumentException.class, () -> converted("""
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {name: md}
                status: {conditions: [{type: Ready, status: "True"}, {type: Available, status: "False"}]}
                """));
    }

    private static JsonNode converted(String object) throws IOException {
        return V1beta2Conversion.convert(List.of(yaml(object)), NOW).orElseThrow().get(0);
    }

    private static JsonNode yaml(String text) throws IOException {
        return YAML.readTree(text);
    }
}
