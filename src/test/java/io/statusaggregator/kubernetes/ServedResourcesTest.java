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
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.kubernetes.ApiVersionChoice.Setting;
import io.statusaggregator.model.ObjectKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the start asks discovery before it waits on informers: whether the API server serves what the aggregator reads. */
class ServedResourcesTest {
    private static final List<ObjectKind> CAPI = ObjectIngest.CAPI_KINDS;

    @Test
    void aManagementClusterServesEverythingAtEitherClusterApiVersion() throws Exception {
        for (List<String> capi : List.of(List.of("v1beta1"), List.of("v1beta2", "v1beta1"), List.of("v1beta2"))) {
            try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0, capi);
                    KubernetesClient client = api.newClient()) {
                assertEquals(new ServedResources.Answer(List.of(), List.of()),
                        ServedResources.check(client, Pipeline.resourcesRead(), CAPI, Setting.AUTO), "serving " + capi);
                Map<ObjectKind, Set<String>> versions = ServedResources.versions(client, CAPI).orElseThrow();
                assertEquals(Set.copyOf(capi), versions.get(ObjectKind.MACHINE), "serving " + capi);
                assertEquals(Set.of("v1beta1"), versions.get(ObjectKind.ETCDADM_CLUSTER), "etcdadm has no v1beta2");
            }
        }
    }

    @Test
    void aVersionForcedThatIsNotServedIsSaidInOneLinePerKind() throws Exception {
        try (EmbeddedKubernetes api = EmbeddedKubernetes.start(0, List.of("v1beta1"));
                KubernetesClient client = api.newClient()) {
            ServedResources.Answer answer =
                    ServedResources.check(client, Pipeline.resourcesRead(), CAPI, Setting.V1BETA2);
            assertEquals(List.of(), answer.missing());
            assertEquals(List.of(
                    "aggregator.capi.api-version is v1beta2, but the API server serves "
                            + "clusters.cluster.x-k8s.io at v1beta1 only",
                    "aggregator.capi.api-version is v1beta2, but the API server serves "
                            + "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io at v1beta1 only",
                    "aggregator.capi.api-version is v1beta2, but the API server serves "
                            + "machinedeployments.cluster.x-k8s.io at v1beta1 only",
                    "aggregator.capi.api-version is v1beta2, but the API server serves "
                            + "machines.cluster.x-k8s.io at v1beta1 only"),
                    answer.forced(), "EtcdadmCluster has no v1beta2: read at v1beta1 whatever the setting");
            assertEquals(new ServedResources.Answer(List.of(), List.of()),
                    ServedResources.check(client, Pipeline.resourcesRead(), CAPI, Setting.V1BETA1));
        }
    }

    @Test
    void aClusterWithoutEksaAndWithPartOfClusterApiMissesThemByName() {
        KubernetesMockServer server = new KubernetesMockServer(false); // expectations: anything else is 404
        server.init();
        try (KubernetesClient client = server.createClient()) {
            // A Cluster API that serves v1beta2 only (v1beta1 removed) and of it only machines, its control plane
            // group not at all.
            server.expect().get().withPath("/apis/cluster.x-k8s.io/v1beta2").andReturn(200, new APIResourceListBuilder()
                    .withGroupVersion("cluster.x-k8s.io/v1beta2").addNewResource().withName("machines").withKind("Machine")
                    .withNamespaced(true).endResource().build()).always();
            server.expect().get().withPath("/apis/etcdcluster.cluster.x-k8s.io/v1beta1").andReturn(200, new APIResourceListBuilder()
                    .withGroupVersion("etcdcluster.cluster.x-k8s.io/v1beta1").addNewResource().withName("etcdadmclusters")
                    .withKind("EtcdadmCluster").withNamespaced(true).endResource().build()).always();

            assertEquals(new ServedResources.Answer(List.of("clusters.anywhere.eks.amazonaws.com/v1alpha1",
                    "eksareleases.anywhere.eks.amazonaws.com/v1alpha1", "clusters.cluster.x-k8s.io/v1beta2 or v1beta1",
                    "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io/v1beta2 or v1beta1",
                    "machinedeployments.cluster.x-k8s.io/v1beta2 or v1beta1"), List.of()),
                    ServedResources.check(client, Pipeline.resourcesRead(), CAPI, Setting.AUTO),
                    "machines are served at v1beta2, which is read");
        } finally {
            server.destroy();
        }
    }

    @Test
    void anApiServerThatDoesNotAnswerCannotTell() {
        Config unreachable = new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").withRequestTimeout(2_000)
                .withConnectionTimeout(2_000).withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(unreachable).build()) {
            assertEquals(new ServedResources.Answer(List.of(), List.of()),
                    ServedResources.check(client, Pipeline.resourcesRead(), CAPI, Setting.V1BETA2),
                    "the start's own timeout says so");
        }
    }
}
