package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.embedded.EmbeddedKubernetes.ClusterCrd;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The embedded API serving EKS-A Clusters with EKS Anywhere's own CRD: a status written loses what its schema lacks,
 * and one over its limits is refused, as on a real API server (the Fabric8 mock server itself applies no schema).
 */
class StockClusterCrdTest {
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
    private static final String STATUS = """
            {"status": {"observedGeneration": 1, "failureReason": "X", "failureMessage": "m",
              "defaultCNI": {"name": "cilium"}, "workerNodeGroups": [{"name": "md-0"}],
              "versions": {"current": "v0.21.0#abc"},
              "conditions": [{"type": "Ready", "status": "False", "reason": "R", "message": "%s", "severity": "Error",
                              "lastTransitionTime": "2026-12-06T10:00:00Z", "unknownField": 1}]}}""";

    @Test
    @SuppressWarnings("unchecked")
    void aStatusWrittenLosesTheFieldsTheStockSchemaLacksWhetherPatchedOrReplaced() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            kubernetes.serveClusterStatus(ClusterCrd.EKSA);
            Resource<GenericKubernetesResource> cluster = cluster(kubernetes);
            cluster.subresource("status").patch(MERGE, STATUS.formatted("short"));

            Map<String, Object> status = (Map<String, Object>) cluster.get().getAdditionalProperties().get("status");
            assertEquals(Map.of("observedGeneration", 1, "failureReason", "X", "failureMessage", "m", "conditions",
                    List.of(Map.of("type", "Ready", "status", "False", "reason", "R", "message", "short",
                            "severity", "Error", "lastTransitionTime", "2026-12-06T10:00:00Z"))), status);

            GenericKubernetesResource replaced = kubernetes.client().getKubernetesSerialization()
                    .unmarshal(STATUS.formatted("again"), GenericKubernetesResource.class);
            GenericKubernetesResource current = cluster.get();
            current.setAdditionalProperty("status", replaced.getAdditionalProperties().get("status"));
            kubernetes.client().resource(current).updateStatus();
            Map<String, Object> put = (Map<String, Object>) cluster.get().getAdditionalProperties().get("status");
            assertFalse(put.containsKey("versions") || put.containsKey("defaultCNI")
                    || put.containsKey("workerNodeGroups"), put.toString());
        }
    }

    @Test
    void aConditionMessageOverTheSchemasLimitIsRefusedAsInvalid() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            kubernetes.serveClusterStatus(ClusterCrd.EKSA);
            Resource<GenericKubernetesResource> cluster = cluster(kubernetes);
            cluster.subresource("status").patch(MERGE, STATUS.formatted("m".repeat(10_240)));

            KubernetesClientException refused = assertThrows(KubernetesClientException.class,
                    () -> cluster.subresource("status").patch(MERGE, STATUS.formatted("é".repeat(10_241))));
            assertEquals(422, refused.getCode());
            assertEquals("Invalid", refused.getStatus().getReason());
            assertTrue(refused.getMessage().contains("Cluster.anywhere.eks.amazonaws.com \"c1\" is invalid: "
                    + "status.conditions[0].message: Too long: may not be longer than 10240"), refused.getMessage());
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theFullSchemaKeepsEveryField() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            kubernetes.serveClusterStatus(ClusterCrd.FULL);
            Resource<GenericKubernetesResource> cluster = cluster(kubernetes);
            cluster.subresource("status").patch(MERGE, STATUS.formatted("m".repeat(10_241)));
            Map<String, Object> status = (Map<String, Object>) cluster.get().getAdditionalProperties().get("status");
            assertEquals(Map.of("current", "v0.21.0#abc"), status.get("versions"));
        }
    }

    private static Resource<GenericKubernetesResource> cluster(EmbeddedKubernetes kubernetes) {
        var clusters = kubernetes.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace("default");
        clusters.resource(kubernetes.client().getKubernetesSerialization().unmarshal("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: c1}
                spec: {controlPlaneConfiguration: {count: 1}}
                """, GenericKubernetesResource.class)).create();
        return clusters.withName("c1");
    }
}
