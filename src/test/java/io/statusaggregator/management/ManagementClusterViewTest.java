package io.statusaggregator.management;

import io.statusaggregator.kubernetes.KubernetesResources;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.ForgetfulRestart;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The management view on the mock API server, restarted as a server that compacted its history. */
class ManagementClusterViewTest {
    private static final String CAPI = "eksa-system";
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private EmbeddedKubernetes kubernetes;
    private KubernetesClient client;
    private final ManagementClusterView view = new ManagementClusterView();

    @BeforeEach
    void start() {
        kubernetes = EmbeddedKubernetes.start(0);
        client = kubernetes.newClient();
    }

    @AfterEach
    void stop() {
        view.close();
        client.close();
        kubernetes.close();
    }

    private void release(String name, String version) {
        kubernetes.client().genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(CAPI).resource(object("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: EKSARelease
                metadata: {name: %s, namespace: eksa-system}
                spec: {version: %s, bundlesRef: {name: bundles-1, namespace: eksa-system}}
                """.formatted(name, version))).create();
    }

    /** A Cluster that manages itself, at EKS-A {@code version}. */
    private void managementCluster(String name, String version) {
        kubernetes.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default").resource(object("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: %1$s}
                spec:
                  kubernetesVersion: "1.31"
                  eksaVersion: %2$s
                  managementCluster: {name: %1$s}
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: 1}]
                  clusterNetwork: {cniConfig: {cilium: {}}}
                """.formatted(name, version))).createOr(existing -> existing.update());
    }

    private GenericKubernetesResource object(String yaml) {
        return kubernetes.client().getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
    }

    private void awaitView(Set<String> releases, Map<String, String> versions, String when) {
        Waiting.until(DEADLINE, () -> view.get().releaseNames().equals(Optional.of(releases))
                && view.get().managementEksaVersions().equals(versions), () -> {
                    ManagementCluster seen = view.get();
                    return when + ": the view should hold releases " + releases + " and management versions " + versions
                            + ", holds " + seen.releaseNames() + " and " + seen.managementEksaVersions();
                });
    }

    @Test
    void followsReleasesAndManagementClustersAfterTheApiServerRefusedItsWatches() throws Exception {
        release("eksa-v0-22-0", "v0.22.0");
        release("eksa-v0-23-1", "v0.23.1");
        managementCluster("mgmt", "v0.23.1");
        view.watch(client, CAPI, List.of(), Duration.ofSeconds(1));
        view.synced().get(10, TimeUnit.SECONDS);
        awaitView(Set.of("eksa-v0-22-0", "eksa-v0-23-1"), Map.of("mgmt", "v0.23.1"), "at start");

        AtomicInteger refused = ForgetfulRestart.restart(kubernetes);
        Waiting.until(DEADLINE, () -> refused.get() > 0, () -> "no watch was refused");
        kubernetes.client().genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(CAPI).withName("eksa-v0-22-0").delete();
        release("eksa-v0-24-0", "v0.24.0");
        managementCluster("mgmt", "v0.24.0");

        awaitView(Set.of("eksa-v0-23-1", "eksa-v0-24-0"), Map.of("mgmt", "v0.24.0"), "after the restart");
    }

    /** A Cluster at EKS-A {@code version} whose {@code spec.managementCluster} is {@code managementCluster} (YAML). */
    private GenericKubernetesResource cluster(String name, String version, String managementCluster) {
        return object("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: %s}
                spec:
                  kubernetesVersion: "1.31"
                  eksaVersion: %s
                  %s
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: 1}]
                  clusterNetwork: {cniConfig: {cilium: {}}}
                """.formatted(name, version, managementCluster));
    }

    @Test
    void holdsTheVersionsOfClustersThatManageThemselvesOnly() throws Exception {
        release("eksa-v0-23-1", "v0.23.1");
        var clusters = kubernetes.client().genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default");
        clusters.resource(cluster("mgmt", "v0.23.1", "managementCluster: {name: mgmt}")).create();
        clusters.resource(cluster("w1", "v0.22.0", "managementCluster: {name: mgmt}")).create();
        clusters.resource(cluster("unnamed", "v0.21.0", "")).create();
        clusters.resource(cluster("empty", "v0.20.0", "managementCluster: {name: \"\"}")).create();
        view.watch(client, CAPI, List.of(), Duration.ofSeconds(30));
        view.synced().get(10, TimeUnit.SECONDS);
        awaitView(Set.of("eksa-v0-23-1"), Map.of("mgmt", "v0.23.1", "unnamed", "v0.21.0", "empty", "v0.20.0"), "at start");

        // A workload cluster that becomes its own manager is one; one that gets a manager is one no longer.
        clusters.resource(cluster("w1", "v0.22.0", "managementCluster: {name: w1}")).update();
        clusters.resource(cluster("unnamed", "v0.21.0", "managementCluster: {name: mgmt}")).update();
        awaitView(Set.of("eksa-v0-23-1"), Map.of("mgmt", "v0.23.1", "w1", "v0.22.0", "empty", "v0.20.0"), "after the changes");
    }

    @Test
    void readsAManagerWithoutDecodingAsTheDecoderWould() throws Exception {
        for (String managementCluster : List.of("managementCluster: {name: mgmt}", "managementCluster: {name: c}", "", "managementCluster: {}",
                "managementCluster: {name: \"\"}", "managementCluster: {name: 7}", "managementCluster: mgmt")) {
            GenericKubernetesResource object = cluster("c", "v0.23.1", managementCluster);
            boolean another = ManagementClusterView.managedByAnother(object);
            boolean decodedAsManagement;
            try {
                decodedAsManagement = io.statusaggregator.model.json.ObjectDecoder.decode(
                        client.getKubernetesSerialization().convertValue(object, com.fasterxml.jackson.databind.JsonNode.class))
                        .map(o -> ((io.statusaggregator.model.EksaCluster) o).isManagement()).orElse(false);
            } catch (io.statusaggregator.model.json.MalformedObjectException e) {
                decodedAsManagement = false;
            }
            if (another && decodedAsManagement) {
                throw new AssertionError("'" + managementCluster + "' was taken for another's cluster, but the decoder reads a management cluster");
            }
            boolean expectedAnother = managementCluster.equals("managementCluster: {name: mgmt}");
            if (another != expectedAnother) {
                throw new AssertionError("'" + managementCluster + "': managed by another should be " + expectedAnother);
            }
        }
    }
}
