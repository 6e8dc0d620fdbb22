package io.statusaggregator.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import org.junit.jupiter.api.Test;

/**
 * A record of one CAPI object stays far under the topic's 1 MiB whatever a field holds: its send would otherwise fail
 * and be retried for ever, and the object's cluster would never be told. The EKS-A Cluster's spec is kept whole, of
 * its annotations only those the rules read.
 */
class ObjectReductionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aCapiObjectsLongTextIsCutAndWhatWasCutStillSaysWhatIsWrong() throws Exception {
        ObjectNode machine = JSON.createObjectNode()
                .put("apiVersion", "cluster.x-k8s.io/v1beta1").put("kind", "Machine");
        machine.putObject("metadata").put("namespace", "eksa-system").put("name", "m1").putObject("labels")
                .put(ObjectDecoder.CLUSTER_NAME_LABEL, "alpha");
        machine.putObject("spec").put("clusterName", "alpha").put("version", "v1.31.0" + "9".repeat(1_200_000));
        ObjectNode reduced = ObjectReduction.reduce(ObjectKind.MACHINE, machine);
        assertEquals(ObjectReduction.LONGEST_TEXT + 3, reduced.path("spec").path("version").textValue().length());
        assertTrue(reduced.toString().length() < 40_000, reduced.toString().length() + " characters");
        String problem = assertThrows(MalformedObjectException.class, () -> ObjectDecoder.decode(reduced)).getMessage();
        assertTrue(problem.startsWith("spec.version: not a Kubernetes version"), problem);

        ObjectNode controlPlane = JSON.createObjectNode().put("apiVersion", "controlplane.cluster.x-k8s.io/v1beta1")
                .put("kind", "KubeadmControlPlane");
        controlPlane.putObject("metadata").put("namespace", "eksa-system").put("name", "alpha");
        controlPlane.putObject("status").putArray("conditions").addObject().put("type", "Ready").put("status", "False")
                .put("message", "m".repeat(100_000));
        String message = ObjectReduction.reduce(ObjectKind.KUBEADM_CONTROL_PLANE, controlPlane)
                .path("status").path("conditions").path(0).path("message").textValue();
        assertEquals("m".repeat(ObjectReduction.LONGEST_TEXT) + "...", message);
        String usual = "1 of 3 Machines are not ready";
        ((ObjectNode) controlPlane.path("status").path("conditions").path(0)).put("message", usual);
        assertEquals(usual, ObjectReduction.reduce(ObjectKind.KUBEADM_CONTROL_PLANE, controlPlane)
                .path("status").path("conditions").path(0).path("message").textValue(), "an ordinary message whole");

        ObjectNode cluster = JSON.createObjectNode()
                .put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        cluster.putObject("metadata").put("namespace", "default").put("name", "alpha");
        String caBundle = "c".repeat(40_000);
        cluster.putObject("spec").put("kubernetesVersion", "1.31").putObject("registryMirrorConfiguration").put("caCertContent", caBundle);
        assertEquals(caBundle, ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster).path("spec").path("registryMirrorConfiguration")
                .path("caCertContent").textValue(), "the EKS-A Cluster's spec as stored: its hash is the version history's");
    }

    /**
     * A CAPI v1beta2 object as CAPI v1.13 writes it: what the rules read of it survives the reduction (the record reads
     * as the object does), and its {@code status.deprecated.v1beta1} block, never read, is not sent.
     */
    @Test
    void aV1beta2ObjectKeepsWhatTheRulesReadAndDropsTheDeprecatedBlock() throws Exception {
        ObjectNode controlPlane = (ObjectNode) JSON.readTree("""
                {"apiVersion":"controlplane.cluster.x-k8s.io/v1beta2","kind":"KubeadmControlPlane",
                 "metadata":{"namespace":"eksa-system","name":"alpha","generation":2,"uid":"u-1",
                  "labels":{"cluster.x-k8s.io/cluster-name":"alpha"}},
                 "spec":{"replicas":3,"version":"v1.33.1"},
                 "status":{"observedGeneration":2,"replicas":3,"readyReplicas":2,"availableReplicas":2,
                  "upToDateReplicas":3,"initialization":{"controlPlaneInitialized":true},"version":"v1.33.1",
                  "conditions":[{"type":"Available","status":"True","reason":"Available","message":"",
                   "observedGeneration":2,"lastTransitionTime":"2026-12-01T10:00:00Z"},
                   {"type":"ControlPlaneComponentsHealthy","status":"False","reason":"NotHealthy",
                   "message":"* Machine alpha-x:\\n  * EtcdPodHealthy: pod is not ready","observedGeneration":2,
                   "lastTransitionTime":"2026-12-01T10:00:00Z"}],
                  "deprecated":{"v1beta1":{"updatedReplicas":1,"readyReplicas":0,"unavailableReplicas":3,
                   "failureReason":"Old","conditions":[{"type":"Ready","status":"False","severity":"Error"}]}}}}""");
        ObjectNode machineDeployment = (ObjectNode) JSON.readTree("""
                {"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachineDeployment",
                 "metadata":{"namespace":"eksa-system","name":"alpha-md-0","generation":4},
                 "spec":{"clusterName":"alpha","replicas":2},
                 "status":{"observedGeneration":4,"replicas":2,"readyReplicas":2,"availableReplicas":1,
                  "upToDateReplicas":2,"conditions":[{"type":"Available","status":"False","reason":"NotAvailable",
                   "message":"1 available replica, at least 2 required","lastTransitionTime":"2026-12-01T10:00:00Z"}],
                  "deprecated":{"v1beta1":{"updatedReplicas":0}}}}""");
        ObjectNode cluster = (ObjectNode) JSON.readTree("""
                {"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"Cluster",
                 "metadata":{"namespace":"eksa-system","name":"alpha"},
                 "spec":{"controlPlaneRef":{"apiGroup":"controlplane.cluster.x-k8s.io","kind":"KubeadmControlPlane",
                  "name":"alpha-cp"}},
                 "status":{"initialization":{"infrastructureProvisioned":true,"controlPlaneInitialized":true},
                  "conditions":[{"type":"RemoteConnectionProbe","status":"False","reason":"ProbeFailed",
                   "message":"Remote connection probe failed","lastTransitionTime":"2026-12-01T10:00:00Z"}],
                  "deprecated":{"v1beta1":{"failureReason":"Old"}}}}""");
        for (ObjectNode object : java.util.List.of(controlPlane, machineDeployment, cluster)) {
            ObjectKind kind = ObjectDecoder.kindOf(object).orElseThrow();
            ObjectNode reduced = ObjectReduction.reduce(kind, object);
            assertEquals(ObjectDecoder.decode(object), ObjectDecoder.decode(reduced), "read the same: " + reduced);
            assertTrue(reduced.path("status").path("deprecated").isMissingNode(), "no deprecated block: " + reduced);
            assertEquals(object.path("apiVersion"), reduced.path("apiVersion"), "the record says its version");
        }
        var read = (io.statusaggregator.model.KubeadmControlPlane) ObjectDecoder.decode(
                ObjectReduction.reduce(ObjectKind.KUBEADM_CONTROL_PLANE, controlPlane)).orElseThrow();
        assertEquals(3, read.updatedReplicas(), "upToDateReplicas, not the deprecated updatedReplicas");
        assertEquals(2, read.readyReplicas());
        assertTrue(read.initialized(), "initialization.controlPlaneInitialized");
        assertEquals("* Machine alpha-x:\n  * EtcdPodHealthy: pod is not ready",
                read.conditions().get("ControlPlaneComponentsHealthy").orElseThrow().message(), "kept as lines");
        var capi = (io.statusaggregator.model.CapiCluster) ObjectDecoder.decode(
                ObjectReduction.reduce(ObjectKind.CAPI_CLUSTER, cluster)).orElseThrow();
        assertEquals(java.util.Optional.of("alpha-cp"), capi.controlPlaneRef(), "{apiGroup, kind, name}");
        assertTrue(capi.controlPlaneInitialized());
        assertTrue(capi.conditions().isFalse("RemoteConnectionProbe"));
    }

    @Test
    void anEksaClusterKeepsOnlyTheAnnotationsTheRulesRead() {
        ObjectNode cluster = JSON.createObjectNode()
                .put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        ObjectNode annotations = cluster.putObject("metadata").put("namespace", "default").put("name", "alpha")
                .putObject("annotations");
        annotations.put("anywhere.eks.amazonaws.com/notes", "n".repeat(1_500_000));
        annotations.put("kubectl.kubernetes.io/last-applied-configuration", "{}");
        annotations.put("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check", "true");
        cluster.putObject("spec").put("kubernetesVersion", "1.31");
        ObjectNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster);
        assertEquals(JSON.createObjectNode().put("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check", "true"),
                reduced.path("metadata").path("annotations"));
        assertTrue(reduced.toString().length() < 1_000, reduced.toString().length() + " characters");

        annotations.put("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check", "t".repeat(100_000));
        assertEquals(ObjectReduction.LONGEST_TEXT + 3, ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster)
                .path("metadata").path("annotations").path("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check")
                .textValue().length(),
                "a long value is cut, as a CAPI object's text is");
    }
}
