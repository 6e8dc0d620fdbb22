package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.List;

/**
 * The simulator's fleet on the embedded API server, run tick by tick, and what the server and each cluster's workload
 * API hold of it: for {@link FleetSimulatorTest} and {@link FleetSimulatorWorkloadClustersTest}.
 */
final class SimulatedFleet implements AutoCloseable {
    static final String CAPI = "eksa-system";
    static final String NS = FleetSimulator.CLUSTER_NAMESPACE;
    /** The clusters alive once the fleet has settled (charlie is deleted). */
    static final List<String> LIVE = List.of("alpha", "bravo", "delta");

    private final EmbeddedKubernetes kubernetes;
    private final FleetSimulator simulator;
    private final CapiApiVersion version;

    private SimulatedFleet(EmbeddedKubernetes kubernetes, FleetSimulator simulator, CapiApiVersion version) {
        this.kubernetes = kubernetes;
        this.simulator = simulator;
        this.version = version;
    }

    /** The embedded default: a CAPI v1.13 management cluster, its objects at v1beta2. */
    static SimulatedFleet start() {
        return start(CapiApiVersion.V1BETA2);
    }

    /**
     * The embedded API server on a free port serving what a management cluster whose CAPI writes at {@code version}
     * serves, and a simulator on it with one-second ticks, at tick 0.
     */
    static SimulatedFleet start(CapiApiVersion version) {
        EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0, FleetSimulator.capiVersionsServed(version));
        FleetSimulator simulator = new FleetSimulator(kubernetes.client(), CAPI, Duration.ofSeconds(1), version);
        return new SimulatedFleet(kubernetes, simulator,
                version);
    }

    EmbeddedKubernetes kubernetes() {
        return kubernetes;
    }

    FleetSimulator simulator() {
        return simulator;
    }

    @Override
    public void close() {
        simulator.close();
        kubernetes.close();
    }

    /** Steps the simulator until it has run {@code tick} ticks (none if it has already). */
    void runTo(int tick) {
        while (simulator.ticks() < tick) {
            simulator.step();
        }
    }

    JsonNode get(ObjectKind kind, String namespace, String name) {
        GenericKubernetesResource object = kubernetes.client()
                .genericKubernetesResources(ManagementClusterApi.resource(kind, version))
                .inNamespace(namespace).withName(name).get();
        return object == null ? null : json(object);
    }

    List<JsonNode> list(ObjectKind kind) {
        String namespace = kind == ObjectKind.EKSA_CLUSTER ? NS : CAPI;
        return kubernetes.client().genericKubernetesResources(ManagementClusterApi.resource(kind, version))
                .inNamespace(namespace).list().getItems().stream().map(this::json).toList();
    }

    private JsonNode json(GenericKubernetesResource object) {
        return kubernetes.client().getKubernetesSerialization().convertValue(object, JsonNode.class);
    }

    /** Every object the status rules read, as one YAML stream: what {@code compute} takes. */
    String yaml() {
        StringBuilder yaml = new StringBuilder();
        var serialization = kubernetes.client().getKubernetesSerialization();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER,
                ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (JsonNode object : list(kind)) {
                yaml.append("---\n").append(serialization.asYaml(object).replaceFirst("^---\n", ""));
            }
        }
        for (GenericKubernetesResource release
                : kubernetes.client().genericKubernetesResources(KubernetesResources.RELEASES)
                .inNamespace(CAPI).list().getItems()) {
            yaml.append("---\n").append(serialization.asYaml(release).replaceFirst("^---\n", ""));
        }
        return yaml.toString();
    }

    Secret kubeconfigSecret(String cluster) {
        return kubernetes.client().secrets().inNamespace(CAPI).withName(cluster + "-kubeconfig").get();
    }

    /** The Cilium DaemonSet in a cluster's workload API; null when there is none (yet). */
    DaemonSet cilium(String cluster) {
        return simulator.workloadClient(cluster)
                .map(c -> c.apps().daemonSets().inNamespace("kube-system").withName("cilium").get())
                .orElse(null);
    }

    /** The aggregator's CNI observer's rule: every scheduled pod ready and up to date, on a spec it has seen. */
    static boolean cniReady(DaemonSet cilium) {
        if (cilium == null || cilium.getStatus() == null) {
            return false;
        }
        var status = cilium.getStatus();
        int desired = status.getDesiredNumberScheduled() == null ? 0 : status.getDesiredNumberScheduled();
        return desired > 0 && Integer.valueOf(desired).equals(status.getNumberReady())
                && Integer.valueOf(desired).equals(status.getUpdatedNumberScheduled())
                && status.getObservedGeneration() != null
                && status.getObservedGeneration() >= cilium.getMetadata().getGeneration();
    }
}
