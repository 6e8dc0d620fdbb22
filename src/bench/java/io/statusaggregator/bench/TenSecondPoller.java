package io.statusaggregator.bench;

import io.statusaggregator.kubernetes.KubernetesResources;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The freshness baseline, a controller as EKS-A's cluster controller is: it reconciles a Cluster when its spec
 * changes (a watch on EKS-A Clusters, generation changes only), and while the Cluster is not Ready it reconciles it
 * again 10 s later (RequeueAfter). A reconcile re-reads the Cluster and its CAPI objects from the API server and
 * computes the status with the same rules. Its writes are recorded, not sent, so that it never disturbs the API
 * server the aggregator runs on; that leaves out a write's own latency (a few ms here), in the baseline's favour.
 */
final class TenSecondPoller implements AutoCloseable {
    static final long REQUEUE_SECONDS = 10;
    /** controller-runtime's default is one reconcile at a time; two keep up with the default churn on this machine. */
    private static final int WORKERS = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final StatusCheck check;
    private final ChangeClock clock;
    private final ScheduledExecutorService workers = Executors.newScheduledThreadPool(WORKERS);
    private final Map<String, ScheduledFuture<?>> requeued = new ConcurrentHashMap<>();
    private final Map<String, ClusterStatus> written = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private SharedIndexInformer<GenericKubernetesResource> clusters;

    TenSecondPoller(EmbeddedKubernetes kubernetes, StatusCheck check, ChangeClock clock) {
        this.client = kubernetes.newClient();
        this.check = check;
        this.clock = clock;
    }

    void start() {
        clusters = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace(FleetWorkload.NAMESPACE)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(GenericKubernetesResource cluster) {
                        reconcileNow(cluster.getMetadata().getName());
                    }

                    @Override
                    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
                        if (!Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration())) {
                            reconcileNow(after.getMetadata().getName());
                        }
                    }

                    @Override
                    public void onDelete(GenericKubernetesResource cluster, boolean unknown) {
                    }
                });
    }

    Map<String, ClusterStatus> statuses() {
        return written;
    }

    private void reconcileNow(String cluster) {
        ScheduledFuture<?> pending = requeued.remove(cluster);
        if (pending != null) {
            pending.cancel(false);
        }
        workers.execute(() -> reconcile(cluster));
    }

    private void reconcile(String cluster) {
        synchronized (locks.computeIfAbsent(cluster, c -> new Object())) {
            List<JsonNode> objects = new ArrayList<>();
            GenericKubernetesResource eksa = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                    .inNamespace(FleetWorkload.NAMESPACE).withName(cluster).get();
            if (eksa == null) {
                return;
            }
            objects.add(JSON.valueToTree(eksa));
            for (ObjectKind kind : List.of(ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT,
                    ObjectKind.MACHINE)) {
                client.genericKubernetesResources(FleetWorkload.resource(kind)).inNamespace(FleetWorkload.CAPI)
                        .withLabel(ObjectDecoder.CLUSTER_NAME_LABEL, cluster).list().getItems()
                        .forEach(o -> objects.add(JSON.valueToTree(o)));
            }
            ClusterState state = StatusCheck.clusters(objects).get(cluster);
            ClusterStatus shown = written.getOrDefault(cluster, state.cluster().orElseThrow().status());
            ClusterStatus computed = check.compute(state, shown);
            if (!computed.equals(shown)) {
                written.put(cluster, computed);
                clock.shown(cluster, computed, System.nanoTime());
            }
            boolean ready = computed.condition(ConditionType.READY).map(c -> c.status() == ConditionStatus.TRUE).orElse(false);
            if (!ready && !workers.isShutdown()) {
                requeued.put(cluster, workers.schedule(() -> reconcile(cluster), REQUEUE_SECONDS, TimeUnit.SECONDS));
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (clusters != null) {
            clusters.close();
        }
        workers.shutdownNow();
        workers.awaitTermination(10, TimeUnit.SECONDS);
        client.close();
    }
}
