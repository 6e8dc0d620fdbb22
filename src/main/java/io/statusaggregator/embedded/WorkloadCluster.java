package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;

/**
 * One simulated workload cluster of the demo fleet: an API server of its own in this process (Fabric8's mock server
 * in CRUD mode, on a free loopback port) holding what the aggregator's CNI observer reads there, the DaemonSet of
 * the cluster's Cilium in {@code kube-system}. No Nodes, no pods: the DaemonSet's status says how many nodes run
 * Cilium and how many of those are ready.
 */
final class WorkloadCluster implements AutoCloseable {
    static final String CNI_NAMESPACE = "kube-system";
    static final String CILIUM = "cilium";
    static final String CILIUM_AGENT = "cilium-agent";
    static final String CILIUM_IMAGE_REPOSITORY = "public.ecr.aws/isovalent/cilium";

    private final String name;
    private final KubernetesMockServer server;
    private final NamespacedKubernetesClient client;
    /**
     * The generation of the DaemonSet as created: the simulator never changes its spec. 0 until Cilium is installed.
     */
    private long ciliumGeneration;
    /** The status last written, so that only a change is written (and watchers see no empty updates). */
    private DaemonSetStatus writtenStatus;

    private WorkloadCluster(String name, KubernetesMockServer server) {
        this.name = name;
        this.server = server;
        this.client = server.createClient();
    }

    /** Starts the cluster's API server, empty: as a cluster whose control plane is still being provisioned. */
    static WorkloadCluster start(String name) {
        // Plain CRUD dispatcher: DaemonSets are built in, and the simulator writes no JSON merge patch here.
        KubernetesMockServer server = new KubernetesMockServer(
                new Context(),
                new WatchStreamingWebServer(),
                new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()),
                false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return new WorkloadCluster(name, server);
    }

    KubernetesClient client() {
        return client;
    }

    String url() {
        return "http://" + server.getHostName() + ":" + server.getPort();
    }

    /** A kubeconfig for this API server, named as CAPI names the one of its {@code C-kubeconfig} secret. */
    String kubeconfig() {
        return EmbeddedKubernetes.kubeconfig(url(), name, name + "-admin", name + "-admin@" + name);
    }

    /**
     * What the cluster's CNI installation does once its API server is up: the Cilium DaemonSet, then its status as
     * the DaemonSet controller writes it, with a pod scheduled on every node and none ready yet.
     */
    void installCilium(String version, int nodes) {
        if (client.namespaces().withName(CNI_NAMESPACE).get() == null) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(CNI_NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
        }
        // Created without a status, as a real API server would store it whatever it is given; the status follows.
        DaemonSet created = client.apps()
                .daemonSets()
                .inNamespace(CNI_NAMESPACE)
                .resource(ciliumDaemonSet(version))
                .create();
        ciliumGeneration = created.getMetadata().getGeneration();
        writeCiliumStatus(nodes, false);
    }

    /**
     * Sets the Cilium DaemonSet's status as its controller would: scheduled on {@code nodes} nodes, every pod up to
     * date, ready on all of them or on none. Written only when it changed.
     */
    void writeCiliumStatus(int nodes, boolean ready) {
        DaemonSetStatus status = ciliumStatus(ciliumGeneration, nodes, ready);
        if (status.equals(writtenStatus)) {
            return;
        }
        // A JSON Patch of the status subresource, replacing the status whole: a real server takes a status only there,
        // and the mock applies it alike (generation unchanged); its JSON merge patch would append to lists instead.
        JsonNode json = client.getKubernetesSerialization().convertValue(status, JsonNode.class);
        client.apps().daemonSets().inNamespace(CNI_NAMESPACE).withName(CILIUM).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), ManagementClusterApi.replace("/status", json));
        writtenStatus = status;
    }

    private static DaemonSet ciliumDaemonSet(String version) {
        return new DaemonSetBuilder()
                .withNewMetadata()
                .withNamespace(CNI_NAMESPACE)
                .withName(CILIUM)
                .addToLabels("k8s-app", CILIUM)
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("k8s-app", CILIUM)
                .endSelector()
                .withNewUpdateStrategy()
                .withType("RollingUpdate")
                .endUpdateStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("k8s-app", CILIUM)
                .endMetadata()
                .withNewSpec()
                .withHostNetwork(true)
                .addNewContainer()
                .withName(CILIUM_AGENT)
                .withImage(CILIUM_IMAGE_REPOSITORY + ":" + version)
                .withCommand("cilium-agent")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** A DaemonSet status as the controller writes it once it has seen the given generation. */
    private static DaemonSetStatus ciliumStatus(long generation, int nodes, boolean ready) {
        int readyPods = ready ? nodes : 0;
        DaemonSetStatusBuilder status = new DaemonSetStatusBuilder()
                .withObservedGeneration(generation)
                .withDesiredNumberScheduled(nodes)
                .withCurrentNumberScheduled(nodes)
                .withUpdatedNumberScheduled(nodes)
                .withNumberMisscheduled(0)
                .withNumberReady(readyPods)
                .withNumberAvailable(readyPods);
        if (nodes > readyPods) {
            status.withNumberUnavailable(nodes - readyPods);
        }
        return status.build();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
