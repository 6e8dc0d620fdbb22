package io.statusaggregator.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the start asks discovery before it waits on informers: whether the API server serves what the aggregator reads. */
class ServedResourcesTest {
    @Test
    void aManagementClusterServesEverything() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0); KubernetesClient client = api.newClient()) {
            assertEquals(List.of(), ServedResources.missing(client, Pipeline.resourcesRead(true)));
        }
    }

    @Test
    void aClusterWithoutEksaAndWithClusterApisV1beta2OnlyMissesThemByName() {
        KubernetesMockServer server = new KubernetesMockServer(false); // expectations: anything else is 404
        server.init();
        try (KubernetesClient client = server.createClient()) {
            // A Cluster API that serves v1beta2 only (v1beta1 removed), and its control plane group not at all.
            server.expect().get().withPath("/apis/cluster.x-k8s.io/v1beta2").andReturn(200, new APIResourceListBuilder()
                    .withGroupVersion("cluster.x-k8s.io/v1beta2").addNewResource().withName("machines").withKind("Machine")
                    .withNamespaced(true).endResource().build()).always();
            server.expect().get().withPath("/apis/etcdcluster.cluster.x-k8s.io/v1beta1").andReturn(200, new APIResourceListBuilder()
                    .withGroupVersion("etcdcluster.cluster.x-k8s.io/v1beta1").addNewResource().withName("etcdadmclusters")
                    .withKind("EtcdadmCluster").withNamespaced(true).endResource().build()).always();

            assertEquals(List.of("clusters.anywhere.eks.amazonaws.com/v1alpha1", "eksareleases.anywhere.eks.amazonaws.com/v1alpha1",
                    "clusters.cluster.x-k8s.io/v1beta1", "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io/v1beta1",
                    "machinedeployments.cluster.x-k8s.io/v1beta1", "machines.cluster.x-k8s.io/v1beta1"),
                    ServedResources.missing(client, Pipeline.resourcesRead(true)));
        } finally {
            server.destroy();
        }
    }

    @Test
    void anApiServerThatDoesNotAnswerCannotTell() {
        Config unreachable = new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").withRequestTimeout(2_000)
                .withConnectionTimeout(2_000).withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(unreachable).build()) {
            assertEquals(List.of(), ServedResources.missing(client, Pipeline.resourcesRead(true)), "the start's own timeout says so");
        }
    }
}
