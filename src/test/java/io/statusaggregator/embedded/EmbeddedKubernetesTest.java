package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.model.ObjectKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The embedded API applies JSON merge patches as a real API server does (RFC 7386), on the status subresource too. */
class EmbeddedKubernetesTest {
    @Test
    @SuppressWarnings("unchecked")
    void aStatusMergePatchReplacesListsRemovesNullsAndLeavesTheSpecAlone() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            var clusters = kubernetes.client().genericKubernetesResources(ObjectIngest.context(ObjectKind.EKSA_CLUSTER)).inNamespace("default");
            clusters.resource(kubernetes.client().getKubernetesSerialization().unmarshal("""
                    apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                    kind: Cluster
                    metadata: {namespace: default, name: c1}
                    spec: {controlPlaneConfiguration: {count: 1}}
                    """, GenericKubernetesResource.class)).create();
            var status = clusters.withName("c1").subresource("status");
            status.patch(PatchContext.of(PatchType.JSON_MERGE), """
                    {"spec": {"controlPlaneConfiguration": {"count": 5}},
                     "status": {"failureReason": "X", "conditions": [{"type": "A", "status": "False"}, {"type": "B", "status": "False"}]}}""");
            status.patch(PatchContext.of(PatchType.JSON_MERGE), """
                    {"status": {"failureReason": null, "conditions": [{"type": "A", "status": "True"}]}}""");

            GenericKubernetesResource stored = clusters.withName("c1").get();
            Map<String, Object> storedStatus = (Map<String, Object>) stored.getAdditionalProperties().get("status");
            assertEquals(List.of(Map.of("type", "A", "status", "True")), storedStatus.get("conditions"));
            assertFalse(storedStatus.containsKey("failureReason"));
            assertEquals(Map.of("controlPlaneConfiguration", Map.of("count", 1)), stored.getAdditionalProperties().get("spec"),
                    "a patch of the status subresource does not touch the spec");
        }
    }

    @Test
    void discoveryListsTheServedKindsSoThatKubectlFindsThem() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            var groups = kubernetes.client().getApiGroups().getGroups().stream().map(g -> g.getName()).toList();
            assertTrue(groups.containsAll(List.of("anywhere.eks.amazonaws.com", "cluster.x-k8s.io", "controlplane.cluster.x-k8s.io")), groups.toString());
            var resources = kubernetes.client().getApiResources("controlplane.cluster.x-k8s.io/v1beta1").getResources();
            var kcp = resources.stream().filter(r -> r.getName().equals("kubeadmcontrolplanes")).findFirst().orElseThrow();
            assertEquals(List.of("kcp"), kcp.getShortNames());
            assertTrue(kcp.getVerbs().containsAll(List.of("get", "list", "watch")), kcp.getVerbs().toString());
            assertTrue(resources.stream().anyMatch(r -> r.getName().equals("kubeadmcontrolplanes/status")));
        }
    }
}
