package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.writeback.StatusWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The limit of figure 2's path: a controller that needs no Kafka, the least a status can take from a change. Its
 * informers on the five kinds the rules read keep every cluster's objects; each event computes its cluster's status at
 * once with the same rules, and a status that differs from the one shown (or being written) goes to the API server
 * through the aggregator's own status writer (the same merge patch, 4 writers, one write at a time per cluster). No
 * coalescing, no topic, no second process: an API server round trip plus the rules. It holds every object in memory
 * and computes on every event, which is why it is a bound and not a design: one replica, no failover, no feeds, and a
 * computation (and possibly a write) per event.
 */
final class DirectController implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ObjectKind> KINDS = List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER,
            ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE);

    private final KubernetesClient client;
    private final StatusCheck check;
    private final StatusWriter writer;
    /** Guarded by this: the informers call in on threads of their own. */
    private final Map<String, ClusterState> clusters = new HashMap<>();
    /** The status last handed to the writer, by cluster: it counts as shown until the Cluster shows another. */
    private final Map<String, ClusterStatus> submitted = new HashMap<>();
    private final List<SharedIndexInformer<GenericKubernetesResource>> informers = new ArrayList<>();
    private boolean synced;
    private long computations;

    DirectController(EmbeddedKubernetes kubernetes, StatusCheck check) {
        this.client = kubernetes.newClient();
        this.check = check;
        this.writer = new StatusWriter(client, new StatusWriter.Settings(4, Duration.ofMillis(200), Duration.ofSeconds(30)),
                outcome -> { });
    }

    /** Lists and watches every kind; then computes every cluster once (writing what is out of date). */
    void start() {
        for (ObjectKind kind : KINDS) {
            String namespace = kind == ObjectKind.EKSA_CLUSTER ? FleetWorkload.NAMESPACE : FleetWorkload.CAPI;
            informers.add(client.genericKubernetesResources(FleetWorkload.resource(kind)).inNamespace(namespace)
                    .inform(new ResourceEventHandler<>() {
                        @Override
                        public void onAdd(GenericKubernetesResource object) {
                            changed(object, false);
                        }

                        @Override
                        public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
                            changed(after, false);
                        }

                        @Override
                        public void onDelete(GenericKubernetesResource object, boolean unknown) {
                            changed(object, true);
                        }
                    }));
        }
        synchronized (this) {
            synced = true;
            clusters.keySet().forEach(this::compute);
        }
    }

    /** Status writes made. */
    long writes() {
        return writer.writes();
    }

    synchronized long computations() {
        return computations;
    }

    private synchronized void changed(GenericKubernetesResource resource, boolean deleted) {
        JsonNode node = JSON.valueToTree(resource);
        try {
            Optional<ObjectKind> kind = ObjectDecoder.kindOf(node);
            Optional<KubernetesObject> object = ObjectDecoder.decode(node);
            if (kind.isEmpty() || object.isEmpty()) {
                return;
            }
            String cluster = ObjectDecoder.clusterNameOf(kind.get(), node).orElseThrow();
            ClusterState state = clusters.computeIfAbsent(cluster, ClusterState::new);
            if (deleted) {
                state.remove(kind.get(), object.get().key());
            } else {
                state.put(object.get());
                if (object.get() instanceof EksaCluster eksa && eksa.status().equals(submitted.get(cluster))) {
                    submitted.remove(cluster); // its echo: the Cluster shows it now
                }
            }
            if (synced) {
                compute(cluster);
            }
        } catch (MalformedObjectException e) {
            throw new IllegalStateException("the harness wrote a malformed object: " + e.getMessage(), e);
        }
    }

    private void compute(String cluster) {
        ClusterState state = clusters.get(cluster);
        Optional<EksaCluster> eksa = state.cluster();
        if (eksa.isEmpty()) {
            return;
        }
        ClusterStatus shown = submitted.getOrDefault(cluster, eksa.get().status());
        ClusterStatus computed = check.compute(state, shown);
        computations++;
        if (!computed.equals(shown)) {
            submitted.put(cluster, computed);
            writer.submit(eksa.get().key(), computed, "");
        }
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        writer.finish(Duration.ofSeconds(10));
        writer.close();
        client.close();
    }
}
