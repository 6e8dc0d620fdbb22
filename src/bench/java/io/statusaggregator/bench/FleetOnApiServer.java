package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The workload's fleet on the in-process API server (Fabric8's CRUD mock), and the harness in its controllers' place:
 * it creates the fleet, writes each step of a churn as CAPI's controllers would (each cluster's steps in order, in one
 * of a few lanes), starts each change's clock as its lane writes it, and follows what the EKS-A Clusters show. The
 * figures that run on it are {@link ApiServerFigures}'.
 */
final class FleetOnApiServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Writers of the workload: each cluster's steps go to one of them, in order. */
    private static final int LANES = 4;

    private final FleetWorkload workload;
    private final StatusCheck check;
    private EmbeddedKubernetes kubernetes;
    private final List<KubernetesClient> laneClients = new ArrayList<>();
    private final List<ExecutorService> lanes = new ArrayList<>();
    /** What each cluster's status says after the last change written, as the rules compute it from the workload. */
    private final Map<String, ClusterStatus> expected = new ConcurrentHashMap<>();
    /** The churn's notes on each cluster, while a churn is timed: what the slow changes' log shows. */
    private volatile ClusterTimeline timeline;

    FleetOnApiServer(FleetWorkload workload, StatusCheck check) {
        this.workload = workload;
        this.check = check;
    }

    EmbeddedKubernetes kubernetes() {
        return kubernetes;
    }

    /** Notes each cluster's steps, writes and statuses in {@code notes} from now on; none when null. */
    void noteIn(ClusterTimeline notes) {
        this.timeline = notes;
    }

    /** Starts the API server and creates the fleet in it. */
    void create() throws Exception {
        kubernetes = EmbeddedKubernetes.start(0, FleetWorkload.CAPI_VERSIONS_SERVED);
        for (int i = 0; i < LANES; i++) {
            laneClients.add(kubernetes.newClient());
            lanes.add(Executors.newSingleThreadExecutor());
        }
        kubernetes.client().genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(FleetWorkload.CAPI)
                .resource(kubernetes.client().getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: eksa-v0-23-1, namespace: eksa-system}
                        spec: {version: v0.23.1, bundlesRef: {name: bundles-1, namespace: eksa-system}}
                        """, GenericKubernetesResource.class)).create();
        long t = System.nanoTime();
        List<Future<?>> created = new ArrayList<>();
        Map<String, List<FleetWorkload.Write>> byCluster = new HashMap<>();
        for (FleetWorkload.Write write : workload.initialFleet()) {
            byCluster.computeIfAbsent(clusterOf(write), c -> new ArrayList<>()).add(write);
        }
        byCluster.forEach((cluster, writes) -> created.add(lane(cluster).submit(() -> writes.forEach(w -> apply(cluster, w)))));
        for (Future<?> f : created) {
            f.get();
        }
        Bench.log("API server: %d clusters, %,d Machines created in %.1f s", workload.clusters().size(), workload.machines(),
                (System.nanoTime() - t) / 1e9);
    }

    private static String clusterOf(FleetWorkload.Write write) {
        JsonNode labels = write.object().path("metadata").path("labels");
        return labels.has(ObjectDecoder.CLUSTER_NAME_LABEL) ? labels.get(ObjectDecoder.CLUSTER_NAME_LABEL).asText()
                : write.object().path("metadata").path("name").asText();
    }

    private ExecutorService lane(String cluster) {
        return lanes.get(Math.floorMod(cluster.hashCode(), LANES));
    }

    private KubernetesClient laneClient(String cluster) {
        return laneClients.get(Math.floorMod(cluster.hashCode(), LANES));
    }

    /** One write as its controller makes it: create (then the status, which a create ignores), spec, status, delete. */
    private void apply(String cluster, FleetWorkload.Write write) {
        KubernetesClient client = laneClient(cluster);
        var resources = client.genericKubernetesResources(FleetWorkload.resource(write.kind()))
                .inNamespace(write.object().path("metadata").path("namespace").asText());
        String name = write.object().path("metadata").path("name").asText();
        switch (write.op()) {
            case CREATE -> {
                ObjectNode object = write.object().deepCopy();
                // The API server would wait for the controller that owns a finalizer before deleting; none runs here.
                ((ObjectNode) object.get("metadata")).remove(List.of("finalizers", "generation", "uid", "creationTimestamp"));
                answered(cluster, write, resources.resource(JSON.convertValue(object, GenericKubernetesResource.class)).create());
                if (object.has("status")) {
                    answered(cluster, write, resources.withName(name).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                            JSON.createObjectNode().set("status", object.get("status")).toString()));
                }
            }
            case SPEC -> answered(cluster, write, resources.withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
                    JSON.createObjectNode().set("spec", write.object().get("spec")).toString()));
            case STATUS -> answered(cluster, write, resources.withName(name).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
                    JSON.createObjectNode().set("status", write.object().get("status")).toString()));
            case DELETE -> {
                resources.withName(name).delete();
                answered(cluster, write, null);
            }
        }
    }

    private void answered(String cluster, FleetWorkload.Write write, GenericKubernetesResource answer) {
        ClusterTimeline notes = timeline;
        if (notes != null) {
            notes.note(cluster, "written: %s %s %s%s".formatted(write.op(), write.kind().kind(), write.object().path("metadata").path("name").asText(),
                    answer == null ? "" : " (rv " + answer.getMetadata().getResourceVersion() + ")"));
        }
    }

    /** From now on each cluster's status is expected to stay what the API server shows now, until a change is written. */
    Map<String, ClusterStatus> expectShown() {
        expected.clear();
        clusters().forEach((name, state) -> state.cluster().ifPresent(c -> expected.put(name, c.status())));
        return expected;
    }

    /** Every cluster as the API server holds it now. */
    Map<String, ClusterState> clusters() {
        List<JsonNode> objects = new ArrayList<>();
        for (ObjectKind kind : List.of(ObjectKind.EKSA_CLUSTER, ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
                ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE)) {
            for (GenericKubernetesResource r
                    : kubernetes.client().genericKubernetesResources(FleetWorkload.resource(kind)).inAnyNamespace()
                    .list().getItems()) {
                objects.add(JSON.valueToTree(r));
            }
        }
        return StatusCheck.clusters(objects);
    }

    /**
     * Writes {@code step}'s changes in its cluster's lane, then tells {@code clock} what the status should say now;
     * returns whether the status changes with it.
     */
    private boolean write(FleetWorkload.Step step, ChangeClock clock) {
        FleetWorkload.Cluster cluster = step.cluster();
        List<JsonNode> objects = new ArrayList<>(List.of(cluster.eksa(), cluster.capiCluster(), cluster.kcp(), cluster.md()));
        objects.addAll(cluster.controlPlaneMachines);
        objects.addAll(cluster.workerMachines);
        ClusterStatus before = expected.get(cluster.name());
        ClusterStatus after = check.compute(StatusCheck.clusters(objects).get(cluster.name()), before);
        expected.put(cluster.name(), after);
        boolean changes = !StatusCheck.signature(after).equals(StatusCheck.signature(before));
        ClusterTimeline notes = timeline;
        if (notes != null) {
            notes.note(cluster.name(), "drawn: a step of %d writes%s".formatted(step.writes().size(),
                    changes ? ", the status to say " + StatusCheck.signature(after) : ", the status unchanged"));
        }
        lane(cluster.name()).execute(() -> {
            if (notes != null) {
                notes.note(cluster.name(), "its lane runs it");
            }
            step.writes().forEach(w -> apply(cluster.name(), w));
            // The change happens when the API server has taken its last write: how long the server took to answer
            // (seconds, when the mock server stalls) is not the aggregator's.
            if (changes && clock != null) {
                clock.changed(cluster.name(), after, System.nanoTime());
                if (notes != null) {
                    notes.note(cluster.name(), "its writes answered: the change's clock starts");
                }
            }
        });
        return changes;
    }

    /** Steps at {@code rate} per second for {@code seconds} (or until {@code next} has none); returns the rate achieved. */
    double churn(int rate, double seconds, java.util.function.Supplier<FleetWorkload.Step> next, ChangeClock clock, long[] counts)
            throws Exception {
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long n = 0;
        while (System.nanoTime() < end) {
            long due = start + n * period;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            FleetWorkload.Step step = next.get();
            if (step == null) {
                break;
            }
            if (write(step, clock)) {
                counts[1]++;
            }
            counts[0]++;
            n++;
        }
        drainLanes();
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private void drainLanes() throws Exception {
        for (ExecutorService lane : lanes) {
            lane.submit(() -> { }).get();
        }
    }

    /** Tells {@code clock} of every status the EKS-A Clusters show, from an informer of {@code watcher}'s. */
    SharedIndexInformer<GenericKubernetesResource> follow(KubernetesClient watcher, ChangeClock clock) {
        return watcher.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace(FleetWorkload.NAMESPACE).inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(GenericKubernetesResource cluster) {
                    }

                    @Override
                    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
                        long now = System.nanoTime();
                        try {
                            ObjectDecoder.decode(JSON.valueToTree(after)).ifPresent(c -> {
                                ClusterTimeline notes = timeline;
                                if (notes != null) {
                                    notes.note(after.getMetadata().getName(), now, "the Cluster shows (rv %s): %s".formatted(
                                            after.getMetadata().getResourceVersion(), StatusCheck.signature(((EksaCluster) c).status())));
                                }
                                clock.shown(after.getMetadata().getName(), ((EksaCluster) c).status(), now);
                            });
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }

                    @Override
                    public void onDelete(GenericKubernetesResource cluster, boolean unknown) {
                    }
                });
    }

    @Override
    public void close() {
        lanes.forEach(ExecutorService::shutdownNow);
        laneClients.forEach(KubernetesClient::close);
        if (kubernetes != null) {
            kubernetes.close();
        }
    }
}
