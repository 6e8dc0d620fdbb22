package io.statusaggregator.ingest;

import io.statusaggregator.kubernetes.KubernetesResources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.pipeline.Waiting;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import io.statusaggregator.topics.ObjectReduction;

/** Ingest's informer store: what it keeps is what ingest publishes, so publishing from it equals publishing the object. */
class ReducedObjectStoreTest {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final String CAPI = "eksa-system";

    /** Full objects, as CAPI and EKS-A write them: owner references, managed fields, addresses, node info. */
    private static final Map<ObjectKind, String> FULL = Map.of(
            ObjectKind.MACHINE, """
                    {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine",
                     "metadata": {"namespace": "eksa-system", "name": "alpha-md-0-7d9f8-x2k4p", "generation": 3, "resourceVersion": "48213",
                       "uid": "6f1c2d3e-0000-4000-8000-000000000001", "creationTimestamp": "2025-05-01T10:00:00Z",
                       "labels": {"cluster.x-k8s.io/cluster-name": "alpha", "cluster.x-k8s.io/deployment-name": "alpha-md-0",
                         "cluster.x-k8s.io/set-name": "alpha-md-0-7d9f8", "machine-template-hash": "3859241"},
                       "annotations": {"controlplane.cluster.x-k8s.io/remediation-for": "{}"},
                       "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachineSet", "name": "alpha-md-0-7d9f8",
                         "uid": "6f1c2d3e-0000-4000-8000-000000000002", "controller": true, "blockOwnerDeletion": true}],
                       "finalizers": ["machine.cluster.x-k8s.io"],
                       "managedFields": [{"manager": "manager", "operation": "Update", "apiVersion": "cluster.x-k8s.io/v1beta1",
                         "time": "2025-05-01T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]},
                     "spec": {"clusterName": "alpha", "version": "v1.31.4-eks-1-31-12", "providerID": "vsphere://4203-aa",
                       "bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfig",
                         "name": "alpha-md-0-x2k4p"}, "dataSecretName": "alpha-md-0-x2k4p"},
                       "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "VSphereMachine",
                         "name": "alpha-md-0-x2k4p"}, "nodeDeletionTimeout": "10s"},
                     "status": {"phase": "Running", "bootstrapReady": true, "infrastructureReady": true,
                       "nodeRef": {"kind": "Node", "name": "alpha-md-0-x2k4p"},
                       "addresses": [{"type": "ExternalIP", "address": "10.0.0.12"}, {"type": "InternalIP", "address": "10.0.0.12"}],
                       "nodeInfo": {"kubeletVersion": "v1.31.4-eks-1-31-12", "osImage": "Bottlerocket OS 1.26.1", "architecture": "amd64"},
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-05-01T10:03:00Z"}]}}
                    """,
            ObjectKind.KUBEADM_CONTROL_PLANE, """
                    {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "KubeadmControlPlane",
                     "metadata": {"namespace": "eksa-system", "name": "alpha", "generation": 2, "resourceVersion": "48100",
                       "uid": "6f1c2d3e-0000-4000-8000-000000000003",
                       "labels": {"cluster.x-k8s.io/cluster-name": "alpha"},
                       "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster", "name": "alpha",
                         "uid": "6f1c2d3e-0000-4000-8000-000000000004"}]},
                     "spec": {"replicas": 3, "version": "v1.31.4-eks-1-31-12",
                       "machineTemplate": {"infrastructureRef": {"kind": "VSphereMachineTemplate", "name": "alpha-control-plane-1"}},
                       "kubeadmConfigSpec": {"clusterConfiguration": {"etcd": {"local": {"imageTag": "v3.5.16-eks-1-31-12"}}}}},
                     "status": {"observedGeneration": 2, "initialized": true, "ready": true, "replicas": 3, "readyReplicas": 3,
                       "updatedReplicas": 3, "unavailableReplicas": 0, "selector": "cluster.x-k8s.io/cluster-name=alpha",
                       "version": "v1.31.4-eks-1-31-12",
                       "conditions": [{"type": "Available", "status": "True", "lastTransitionTime": "2025-05-01T10:05:00Z",
                           "observedGeneration": 2},
                         {"type": "MachinesReady", "status": "False", "reason": "Draining", "message": "1 of 3 draining",
                           "severity": "Info", "lastTransitionTime": "2025-05-01T11:00:00Z"}]}}
                    """,
            ObjectKind.EKSA_CLUSTER, """
                    {"apiVersion": "anywhere.eks.amazonaws.com/v1alpha1", "kind": "Cluster",
                     "metadata": {"namespace": "default", "name": "alpha", "generation": 4, "resourceVersion": "48300",
                       "uid": "6f1c2d3e-0000-4000-8000-000000000005",
                       "annotations": {"anywhere.eks.amazonaws.com/paused": "false",
                         "kubectl.kubernetes.io/last-applied-configuration": "{\\"apiVersion\\": \\"anywhere.eks.amazonaws.com/v1alpha1\\"}"},
                       "labels": {"cluster.anywhere.eks.amazonaws.com/tier": "prod"},
                       "finalizers": ["clusters.anywhere.eks.amazonaws.com/finalizer"]},
                     "spec": {"kubernetesVersion": "1.31", "eksaVersion": "v0.23.1", "managementCluster": {"name": "mgmt"},
                       "controlPlaneConfiguration": {"count": 3, "endpoint": {"host": "10.0.0.2"}},
                       "workerNodeGroupConfigurations": [{"name": "md-0", "count": 7, "labels": {"node.kubernetes.io/role": "worker"}}],
                       "clusterNetwork": {"cniConfig": {"cilium": {}}, "pods": {"cidrBlocks": ["192.168.0.0/16"]}}},
                     "status": {"observedGeneration": 4, "defaultCNI": "Configured", "reconciledGeneration": 4,
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-05-01T10:10:00Z"}]}}
                    """);

    private static GenericKubernetesResource parse(String json) {
        return SERIALIZATION.unmarshal(json, GenericKubernetesResource.class);
    }

    private static JsonNode json(GenericKubernetesResource object) {
        return SERIALIZATION.convertValue(object, JsonNode.class);
    }

    private static GenericKubernetesResource machine(String name, String resourceVersion) {
        return parse("""
                {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine",
                 "metadata": {"namespace": "eksa-system", "name": "%s", "resourceVersion": "%s",
                   "labels": {"cluster.x-k8s.io/cluster-name": "alpha"}},
                 "spec": {"clusterName": "alpha", "version": "v1.31.4-eks-1-31-12"}}
                """.formatted(name, resourceVersion));
    }

    /** What a publisher sends for the object: every record's key and value, in order. */
    private static List<String> published(ObjectKind kind, GenericKubernetesResource object, boolean deleted) {
        MockProducer<String, String> producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        ObjectStatePublisher publisher = new ObjectStatePublisher(producer, "states", key -> {
            throw new AssertionError("no send fails here");
        });
        if (deleted) {
            publisher.delete(kind, json(object));
        } else {
            publisher.publish(kind, json(object));
        }
        return producer.history().stream().map(r -> r.key() + " = " + r.value()).toList();
    }

    @Test
    void putGetListRemoveKeySetAndSizeRoundTrip() {
        ReducedObjectStore store = new ReducedObjectStore(ObjectKind.MACHINE, SERIALIZATION);
        GenericKubernetesResource a = machine("alpha-md-0-a", "10");
        GenericKubernetesResource b = machine("alpha-md-0-b", "11");
        assertEquals("eksa-system/alpha-md-0-a", store.getKey(a), "the informer's key: namespace/name");
        assertNull(store.put(store.getKey(a), a), "nothing was there");
        assertNull(store.put(store.getKey(b), b));
        assertEquals(2, store.size());
        assertEquals(Set.of("eksa-system/alpha-md-0-a", "eksa-system/alpha-md-0-b"), store.keySet().collect(Collectors.toSet()));
        assertEquals(json(a), json(store.get("eksa-system/alpha-md-0-a")));
        assertEquals(Set.of(json(a), json(b)), store.values().map(ReducedObjectStoreTest::json).collect(Collectors.toSet()));

        // An update hands back the identity of the state it replaces: the informer tells an update by its
        // resourceVersion and keeps its namespace index by the namespace.
        GenericKubernetesResource before = store.put(store.getKey(a), machine("alpha-md-0-a", "12"));
        assertEquals("10", before.getMetadata().getResourceVersion());
        assertEquals("eksa-system/alpha-md-0-a", store.getKey(before));
        assertEquals(a.getApiVersion() + " " + a.getKind(), before.getApiVersion() + " " + before.getKind());
        assertEquals("12", store.get("eksa-system/alpha-md-0-a").getMetadata().getResourceVersion());
        assertEquals(2, store.size());

        GenericKubernetesResource removed = store.remove("eksa-system/alpha-md-0-b");
        assertEquals("eksa-system/alpha-md-0-b", store.getKey(removed));
        assertEquals("11", removed.getMetadata().getResourceVersion());
        assertNull(store.get("eksa-system/alpha-md-0-b"));
        assertNull(store.remove("eksa-system/alpha-md-0-b"), "already gone");
        assertEquals(Set.of("eksa-system/alpha-md-0-a"), store.keySet().collect(Collectors.toSet()));
        assertEquals(1, store.size());
        assertFalse(store.isFullState(), "the informer must hand the watch's own objects to onAdd, not the store's");
    }

    @ParameterizedTest
    @EnumSource(names = {"MACHINE", "KUBEADM_CONTROL_PLANE", "EKSA_CLUSTER"})
    void aStoredObjectIsItsReductionAndPublishesAsTheFullObjectDoes(ObjectKind kind) {
        GenericKubernetesResource full = parse(FULL.get(kind));
        ReducedObjectStore store = new ReducedObjectStore(kind, SERIALIZATION);
        store.put(store.getKey(full), full);
        GenericKubernetesResource stored = store.get(store.getKey(full));

        assertEquals(ObjectReduction.reduce(kind, json(full)), json(stored));
        assertEquals(full.getMetadata().getResourceVersion(), stored.getMetadata().getResourceVersion());
        assertEquals(store.getKey(full), store.getKey(stored));
        assertTrue(stored.getMetadata().getOwnerReferences().isEmpty(), "owner references are not kept");
        List<String> fromFull = published(kind, full, false);
        assertEquals(1, fromFull.size(), fromFull.toString());
        assertEquals(fromFull, published(kind, stored, false));
        assertEquals(published(kind, full, true), published(kind, stored, true), "the same tombstone");
    }

    @Test
    void labelsWithDotsInTheirKeysSurvive() {
        GenericKubernetesResource full = parse(FULL.get(ObjectKind.MACHINE));
        ReducedObjectStore store = new ReducedObjectStore(ObjectKind.MACHINE, SERIALIZATION);
        store.put(store.getKey(full), full);
        assertEquals(Map.of("cluster.x-k8s.io/cluster-name", "alpha", "cluster.x-k8s.io/deployment-name", "alpha-md-0"),
                store.get(store.getKey(full)).getMetadata().getLabels());
        GenericKubernetesResource eksa = parse(FULL.get(ObjectKind.EKSA_CLUSTER));
        eksa.getMetadata().getAnnotations().put("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check", "true");
        ReducedObjectStore clusters = new ReducedObjectStore(ObjectKind.EKSA_CLUSTER, SERIALIZATION);
        clusters.put(clusters.getKey(eksa), eksa);
        GenericKubernetesResource stored = clusters.get(clusters.getKey(eksa));
        // The annotation the rules read; anywhere.eks.amazonaws.com/paused, which they do not, is not kept.
        assertEquals(Map.of("anywhere.eks.amazonaws.com/skip-eksa-version-skew-check", "true"),
                stored.getMetadata().getAnnotations());
        assertEquals(Map.of("node.kubernetes.io/role", "worker"),
                SERIALIZATION.convertValue(json(stored).at("/spec/workerNodeGroupConfigurations/0/labels"), Map.class), "inside the spec");
    }

    @Test
    void anObjectWhoseValuesCannotBeReadIsStoredAndPublishedAsBefore() {
        // Bad values the reduction keeps: aggregation dead-letters them and shows them on the cluster.
        GenericKubernetesResource machine = parse(FULL.get(ObjectKind.MACHINE).replace("\"v1.31.4-eks-1-31-12\", \"providerID\"",
                "\"1.x\", \"providerID\""));
        GenericKubernetesResource kcp = parse(FULL.get(ObjectKind.KUBEADM_CONTROL_PLANE).replace("\"readyReplicas\": 3", "\"readyReplicas\": -3")
                .replace("\"conditions\": [", "\"conditions\": \"none\", \"x\": ["));
        for (var entry : Map.of(ObjectKind.MACHINE, machine, ObjectKind.KUBEADM_CONTROL_PLANE, kcp).entrySet()) {
            ReducedObjectStore store = new ReducedObjectStore(entry.getKey(), SERIALIZATION);
            store.put(store.getKey(entry.getValue()), entry.getValue());
            GenericKubernetesResource stored = store.get(store.getKey(entry.getValue()));
            List<String> fromFull = published(entry.getKey(), entry.getValue(), false);
            assertEquals(fromFull, published(entry.getKey(), stored, false));
            assertEquals(1, fromFull.size(), fromFull.toString());
        }
        assertTrue(published(ObjectKind.MACHINE, machine, false).get(0).contains("\"version\":\"1.x\""));
        assertTrue(published(ObjectKind.KUBEADM_CONTROL_PLANE, kcp, false).get(0).contains("\"readyReplicas\":-3,"));
        assertTrue(published(ObjectKind.KUBEADM_CONTROL_PLANE, kcp, false).get(0).contains("\"conditions\":\"none\""));
    }

    @Test
    void anObjectWhoseClusterCannotBeReadIsKeptWholeAndSkippedAsBefore() {
        // spec is not an object: the publisher cannot read spec.clusterName, so it cannot route the object and skips
        // it. Reduced, spec would be gone and the label would route it; kept whole, it is skipped from the store too.
        GenericKubernetesResource full = parse(FULL.get(ObjectKind.MACHINE).replace("\"spec\": {\"clusterName\": \"alpha\",",
                "\"spec\": \"oops\", \"was\": {\"clusterName\": \"alpha\","));
        ReducedObjectStore store = new ReducedObjectStore(ObjectKind.MACHINE, SERIALIZATION);
        store.put(store.getKey(full), full);
        GenericKubernetesResource stored = store.get(store.getKey(full));
        assertEquals(json(full), json(stored));
        assertEquals(List.of(), published(ObjectKind.MACHINE, full, false));
        assertEquals(List.of(), published(ObjectKind.MACHINE, stored, false));
        assertEquals(List.of(), published(ObjectKind.MACHINE, stored, true));
        GenericKubernetesResource reduced = SERIALIZATION.convertValue(ObjectReduction.reduce(ObjectKind.MACHINE, json(full)),
                GenericKubernetesResource.class);
        assertEquals(1, published(ObjectKind.MACHINE, reduced, false).size(), "what a reduced copy would do: routed by its label");
    }

    /**
     * Ingest on an API server: the handler still gets the full objects, and a send that fails is sent again from the
     * store with the same value as the first send, read from the full object.
     */
    @Test
    void ingestSendsAgainFromTheStoreWhatItSentFromTheObject() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        MockProducer<String, String> producer = new MockProducer<>(false, null, new StringSerializer(), new StringSerializer());
        try (KubernetesClient client = server.createClient();
                ObjectIngest ingest = new ObjectIngest(client, new ObjectIngest.Settings(CAPI, List.of(), Duration.ofMinutes(1)),
                        onFailure -> new ObjectStatePublisher(producer, "states", onFailure))) {
            GenericKubernetesResource full = parse(FULL.get(ObjectKind.MACHINE));
            full.getMetadata().setResourceVersion(null);
            client.genericKubernetesResources(KubernetesResources.of(ObjectKind.MACHINE)).inNamespace(CAPI).resource(full).create();
            List<JsonNode> changed = new java.util.concurrent.CopyOnWriteArrayList<>();
            ingest.addListener(new ObjectIngest.Listener() {
                @Override
                public void changed(ObjectKind kind, JsonNode object) {
                    changed.add(object);
                }

                @Override
                public void deleted(ObjectKind kind, JsonNode lastKnown) {
                }
            });
            ingest.start().get(30, java.util.concurrent.TimeUnit.SECONDS);
            // Ingest publishes before it tells its listeners: wait for both.
            Waiting.until(Duration.ofSeconds(10), () -> producer.history().size() == 1 && changed.size() == 1,
                    () -> "sent: " + producer.history() + ", listened: " + changed.size());
            assertFalse(changed.get(0).at("/metadata/ownerReferences").isMissingNode(), "the listener gets the full object: " + changed.get(0));
            ProducerRecord<String, String> first = producer.history().get(0);
            assertEquals(ObjectReduction.reduce(ObjectKind.MACHINE, changed.get(0)).toString(), first.value());

            assertTrue(producer.errorNext(new TimeoutException("the broker is away")));
            Waiting.until(Duration.ofSeconds(10), () -> producer.history().size() == 2, () -> "sent: " + producer.history());
            ProducerRecord<String, String> again = producer.history().get(1);
            assertEquals(first.key(), again.key());
            assertEquals(first.value(), again.value(), "sent again from the store, the same state");
            assertNotNull(first.value());
        } finally {
            server.destroy();
        }
    }
}
