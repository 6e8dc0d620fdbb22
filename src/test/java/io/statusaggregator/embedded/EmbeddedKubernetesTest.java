package io.statusaggregator.embedded;

import io.statusaggregator.kubernetes.KubernetesResources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
            var clusters = kubernetes.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default");
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

    /**
     * Cluster API served at v1beta1 only (up to CAPI v1.10), then both (v1.11 to v1.15), then v1beta2 only (v1.16 on),
     * as discovery, the CRDs and the answers to requests show it. Unlike a real API server, which converts between the
     * versions, the mock keeps an object at the version it was written at.
     */
    @Test
    void clusterApiIsServedAtTheVersionsSetAndChangedWhileItRuns() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0, List.of("v1beta1"))) {
            var client = kubernetes.client();
            var atV1beta2 = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.MACHINE, "v1beta2"))
                    .inNamespace("eksa-system");
            var atV1beta1 = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.MACHINE, "v1beta1"))
                    .inNamespace("eksa-system");
            assertEquals(List.of("v1beta1"), versionsOf(kubernetes, "cluster.x-k8s.io"));
            assertEquals(null, client.getApiResources("cluster.x-k8s.io/v1beta2"), "no discovery document: 404");
            assertEquals(404, assertThrows(KubernetesClientException.class, () -> atV1beta2.list()).getCode());
            assertEquals(List.of(), atV1beta1.list().getItems());

            kubernetes.serveCapiVersions(List.of("v1beta2", "v1beta1"));
            assertEquals(List.of("v1beta2", "v1beta1"), versionsOf(kubernetes, "cluster.x-k8s.io"));
            assertEquals("cluster.x-k8s.io/v1beta2",
                    client.getApiGroup("cluster.x-k8s.io").getPreferredVersion().getGroupVersion());
            assertTrue(client.getApiResources("cluster.x-k8s.io/v1beta2").getResources().stream()
                    .anyMatch(r -> r.getName().equals("machines")));
            assertEquals(List.of("v1beta1"), versionsOf(kubernetes, "etcdcluster.cluster.x-k8s.io"),
                    "EtcdadmCluster has no v1beta2");
            assertEquals(List.of("v1beta2", "v1beta1"), client.apiextensions().v1().customResourceDefinitions()
                    .withName("machines.cluster.x-k8s.io").get().getSpec().getVersions().stream()
                    .map(v -> v.getName()).toList());
            atV1beta2.resource(client.getKubernetesSerialization().unmarshal("""
                    apiVersion: cluster.x-k8s.io/v1beta2
                    kind: Machine
                    metadata: {namespace: eksa-system, name: m}
                    spec: {clusterName: c}
                    """, GenericKubernetesResource.class)).create();
            atV1beta2.withName("m").subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), """
                    {"status": {"phase": "Running"}}""");
            assertEquals(Map.of("phase", "Running"),
                    atV1beta2.withName("m").get().getAdditionalProperties().get("status"),
                    "the status subresource at a version that is not the first one served");
            assertEquals(List.of(), atV1beta1.list().getItems(), "the mock converts nothing");

            kubernetes.serveCapiVersions(List.of("v1beta2"));
            assertEquals(List.of("v1beta2"), versionsOf(kubernetes, "cluster.x-k8s.io"));
            assertEquals(404, assertThrows(KubernetesClientException.class, () -> atV1beta1.list()).getCode());
            assertEquals(1, atV1beta2.list().getItems().size());
            assertThrows(IllegalArgumentException.class, () -> kubernetes.serveCapiVersions(List.of("v1alpha4")));
        }
    }

    private static List<String> versionsOf(EmbeddedKubernetes kubernetes, String group) {
        return kubernetes.client().getApiGroup(group).getVersions().stream().map(v -> v.getVersion()).toList();
    }

    /** The embedded API finds objects by name through an index of its own; it must answer as a real API server does. */
    @Test
    void objectsOfTheSameNameInOtherKindsOrNamespacesAreNeverConfused() {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            var client = kubernetes.client();
            var eksa = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER));
            var capi = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.CAPI_CLUSTER));
            sameNameInTwoNamespacesAndAnotherKind(client);
            eksa.inNamespace("a").withName("same").subresource("status")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\": {\"failureReason\": \"only-a\"}}");
            assertEquals("only-a", statusOf(eksa.inNamespace("a").withName("same").get()).get("failureReason"));
            assertFalse(statusOf(eksa.inNamespace("b").withName("same").get()).containsKey("failureReason"), "the same name in another namespace");
            assertFalse(statusOf(capi.inNamespace("a").withName("same").get()).containsKey("failureReason"), "the same name of another kind");

            var duplicate = assertThrows(io.fabric8.kubernetes.client.KubernetesClientException.class,
                    () -> eksa.inNamespace("a").resource(cluster(ObjectKind.EKSA_CLUSTER, "same")).create());
            assertEquals(409, duplicate.getCode());
            eksa.inNamespace("a").withName("same").delete();
            var gone = assertThrows(io.fabric8.kubernetes.client.KubernetesClientException.class, () -> eksa.inNamespace("a").withName("same")
                    .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\": {\"failureReason\": \"x\"}}"));
            assertEquals(404, gone.getCode());
            eksa.inNamespace("a").resource(cluster(ObjectKind.EKSA_CLUSTER, "same")).create();
            assertFalse(statusOf(eksa.inNamespace("a").withName("same").get()).containsKey("failureReason"), "created anew");
            assertEquals(2, eksa.inAnyNamespace().list().getItems().size());
        }
    }

    /** A delete by name goes through the index too: only that object goes, watchers see it go, finalizers hold it. */
    @Test
    void aDeleteByNameRemovesThatObjectOnlyAndItsWatchersSeeIt() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            var client = kubernetes.client();
            var eksa = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER));
            var capi = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.CAPI_CLUSTER));
            sameNameInTwoNamespacesAndAnotherKind(client);
            GenericKubernetesResource held = cluster(ObjectKind.EKSA_CLUSTER, "held");
            held.getMetadata().setFinalizers(List.of("example.com/cleanup"));
            eksa.inNamespace("a").resource(held).create();

            java.util.concurrent.BlockingQueue<String> seen = new java.util.concurrent.LinkedBlockingQueue<>();
            try (var watch = eksa.inNamespace("a").watch(new io.fabric8.kubernetes.client.Watcher<GenericKubernetesResource>() {
                @Override
                public void eventReceived(Action action, GenericKubernetesResource resource) {
                    seen.add(action + " " + resource.getMetadata().getName());
                }

                @Override
                public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {
                }
            })) {
                assertFalse(eksa.inNamespace("a").withName("same").delete().isEmpty(), "deleted");
                String event;
                do {
                    event = seen.poll(20, java.util.concurrent.TimeUnit.SECONDS);
                } while (event != null && !event.equals("DELETED same"));
                assertEquals("DELETED same", event, "the watch on namespace a sees the deletion");
            }
            assertEquals(null, eksa.inNamespace("a").withName("same").get());
            assertTrue(eksa.inNamespace("a").withName("same").delete().isEmpty(), "a second delete finds nothing (404)");
            assertEquals("same", eksa.inNamespace("b").withName("same").get().getMetadata().getName(), "the same name in another namespace stays");
            assertEquals("same", capi.inNamespace("a").withName("same").get().getMetadata().getName(), "the same name of another kind stays");

            eksa.inNamespace("a").withName("held").delete();
            GenericKubernetesResource marked = eksa.inNamespace("a").withName("held").get();
            assertTrue(marked != null && marked.getMetadata().getDeletionTimestamp() != null,
                    "an object with a finalizer is marked for deletion and stays: " + marked);
        }
    }

    /** EKS-A Clusters a/same and b/same, and a CAPI Cluster a/same. */
    private static void sameNameInTwoNamespacesAndAnotherKind(io.fabric8.kubernetes.client.KubernetesClient client) {
        var eksa = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER));
        eksa.inNamespace("a").resource(cluster(ObjectKind.EKSA_CLUSTER, "same")).create();
        eksa.inNamespace("b").resource(cluster(ObjectKind.EKSA_CLUSTER, "same")).create();
        client.genericKubernetesResources(KubernetesResources.of(ObjectKind.CAPI_CLUSTER)).inNamespace("a")
                .resource(cluster(ObjectKind.CAPI_CLUSTER, "same")).create();
    }

    private static GenericKubernetesResource cluster(ObjectKind kind, String name) {
        GenericKubernetesResource cluster = new GenericKubernetesResource();
        cluster.setApiVersion(kind.apiVersion());
        cluster.setKind(kind.kind());
        cluster.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).build());
        cluster.setAdditionalProperty("spec", Map.of());
        return cluster;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> statusOf(GenericKubernetesResource object) {
        return (Map<String, Object>) object.getAdditionalProperties().getOrDefault("status", Map.of());
    }
}
