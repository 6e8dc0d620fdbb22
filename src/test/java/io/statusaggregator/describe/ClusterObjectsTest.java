package io.statusaggregator.describe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.statusaggregator.model.ObjectKey;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which API version {@code describe} and the fleet page read each CAPI kind at, against a mock API server in
 * expectations mode (anything not expected answers 404, as a real server does for a version it does not serve).
 */
class ClusterObjectsTest {
    private static final String LABEL = "?labelSelector=cluster.x-k8s.io%2Fcluster-name%3Dalpha";
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient();
        server.expect().get().withPath("/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/alpha")
                .andReturn(200, object("anywhere.eks.amazonaws.com/v1alpha1", "Cluster", "default", "alpha")).always();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void aClusterApiThatServesV1beta2OnlyIsReadThereAndAKindWithNoObjectsIsNoError() {
        // CAPI v1.16 on: v1beta2 only. This cluster has no workers: its MachineDeployments and Machines list empty.
        list("cluster.x-k8s.io/v1beta2", "clusters", LABEL, capi("cluster.x-k8s.io/v1beta2", "Cluster"));
        list("controlplane.cluster.x-k8s.io/v1beta2", "kubeadmcontrolplanes", LABEL,
                capi("controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane"));
        list("cluster.x-k8s.io/v1beta2", "machinedeployments", LABEL);
        list("cluster.x-k8s.io/v1beta2", "machines", LABEL);
        list("etcdcluster.cluster.x-k8s.io/v1beta1", "etcdadmclusters", LABEL);
        list("etcdcluster.cluster.x-k8s.io/v1beta1", "etcdadmclusters", "");

        assertEquals(List.of("cluster.x-k8s.io/v1beta2 Cluster",
                        "controlplane.cluster.x-k8s.io/v1beta2 KubeadmControlPlane"), kinds(read()),
                "v1beta1 answers 404 for the empty kinds: their empty v1beta2 answer stands");
    }

    @Test
    void aClusterApiThatServesBothIsReadAtV1beta2AndAtV1beta1WhenV1beta2HasNone() {
        list("cluster.x-k8s.io/v1beta2", "clusters", LABEL, capi("cluster.x-k8s.io/v1beta2", "Cluster"));
        list("cluster.x-k8s.io/v1beta1", "clusters", LABEL, capi("cluster.x-k8s.io/v1beta1", "Cluster"));
        // A server keeping each version's objects apart (the embedded and mock ones): the KubeadmControlPlane is
        // v1beta1's.
        list("controlplane.cluster.x-k8s.io/v1beta2", "kubeadmcontrolplanes", LABEL);
        list("controlplane.cluster.x-k8s.io/v1beta1", "kubeadmcontrolplanes", LABEL,
                capi("controlplane.cluster.x-k8s.io/v1beta1", "KubeadmControlPlane"));
        for (String version : List.of("v1beta2", "v1beta1")) {
            list("cluster.x-k8s.io/" + version, "machinedeployments", LABEL);
            list("cluster.x-k8s.io/" + version, "machines", LABEL);
        }
        list("etcdcluster.cluster.x-k8s.io/v1beta1", "etcdadmclusters", LABEL);
        list("etcdcluster.cluster.x-k8s.io/v1beta1", "etcdadmclusters", "");

        assertEquals(List.of("cluster.x-k8s.io/v1beta2 Cluster",
                "controlplane.cluster.x-k8s.io/v1beta1 KubeadmControlPlane"), kinds(read()));
    }

    @Test
    void aKindServedAtNoVersionIsTheApiServersAnswer() {
        // No Cluster API at all: every CAPI list answers 404, and describe says so rather than show an empty tree.
        KubernetesClientException refused = assertThrows(KubernetesClientException.class, this::read);
        assertEquals(404, refused.getCode());
    }

    private void list(String apiVersion, String plural, String query, GenericKubernetesResource... items) {
        GenericKubernetesResourceList list = new GenericKubernetesResourceList();
        list.setApiVersion("v1");
        list.setKind("List");
        list.setItems(List.of(items));
        server.expect().get().withPath("/apis/" + apiVersion + "/namespaces/eksa-system/" + plural + query)
                .andReturn(200, list).always();
    }

    private static GenericKubernetesResource object(String apiVersion, String kind, String namespace, String name) {
        GenericKubernetesResource object = new GenericKubernetesResource();
        object.setApiVersion(apiVersion);
        object.setKind(kind);
        object.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .addToLabels("cluster.x-k8s.io/cluster-name", "alpha").build());
        return object;
    }

    private ClusterObjects.Found read() {
        return new ClusterObjects(client, "eksa-system").read(new ObjectKey("default", "alpha")).orElseThrow();
    }

    private static GenericKubernetesResource capi(String apiVersion, String kind) {
        return object(apiVersion, kind, "eksa-system", "alpha");
    }

    private static List<String> kinds(ClusterObjects.Found found) {
        return found.capi().stream().map(o -> o.path("apiVersion").asText() + " " + o.path("kind").asText()).toList();
    }
}
