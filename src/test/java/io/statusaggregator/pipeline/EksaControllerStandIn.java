package io.statusaggregator.pipeline;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for EKS-A's own controller (v0.17 and later) on one Cluster: each reconcile writes its own verdict into
 * the status fields the aggregator also owns (the five conditions, {@code observedGeneration}), where the Cluster does
 * not show that verdict already, as EKS-A's patch helper does. It reconciles on each change of the Cluster (an
 * informer's update, as controller-runtime's watch) and every {@code period} while its own Ready is not True (EKS-A
 * requeues every 10 s). Its writes go by the field manager {@link #MANAGER}, as controller-runtime's do by default; the
 * Fabric8 mock API server keeps no {@code managedFields}, so the aggregator cannot read that name there.
 */
final class EksaControllerStandIn implements AutoCloseable {
    static final String MANAGER = "manager";
    /** Its Ready: False, for a reason of its own. */
    static final String REASON = "ControlPlaneNotReady";
    static final String MESSAGE = "EKS-A: control plane not ready yet";

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final Duration period;
    private final ScheduledExecutorService requeue = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "eksa-controller-stand-in");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger reconciles = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private SharedIndexInformer<GenericKubernetesResource> informer;

    EksaControllerStandIn(KubernetesClient client, String namespace, String name, Duration period) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.period = period;
    }

    EksaControllerStandIn start() {
        informer = client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace(namespace).withName(name).inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(GenericKubernetesResource cluster) {
                        requeue.execute(() -> reconcile(Optional.of(cluster)));
                    }

                    @Override
                    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource cluster) {
                        requeue.execute(() -> reconcile(Optional.of(cluster)));
                    }

                    @Override
                    public void onDelete(GenericKubernetesResource cluster, boolean unknown) {
                    }
                });
        requeue.scheduleWithFixedDelay(
                () -> reconcile(Optional.ofNullable(informer.getStore().getByKey(namespace + "/" + name))),
                period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Reconciles so far. */
    int reconciles() {
        return reconciles.get();
    }

    /** Status writes so far. */
    int writes() {
        return writes.get();
    }

    private void reconcile(Optional<GenericKubernetesResource> cluster) {
        if (cluster.isEmpty()) {
            return;
        }
        reconciles.incrementAndGet();
        long generation = Optional.ofNullable(cluster.get().getMetadata().getGeneration()).orElse(1L);
        if (showsVerdict(cluster.get(), generation)) {
            return;
        }
        String verdict = """
                {"status": {"observedGeneration": %d, "conditions": [
                  {"type": "ControlPlaneInitialized", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"},
                  {"type": "ControlPlaneReady", "status": "False", "reason": "%s", "message": "%s", "severity": "Info",
                   "lastTransitionTime": "2026-12-01T00:00:00Z"},
                  {"type": "WorkersReady", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"},
                  {"type": "DefaultCNIConfigured", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"},
                  {"type": "Ready", "status": "False", "reason": "%s", "message": "%s", "severity": "Info",
                   "lastTransitionTime": "2026-12-01T00:00:00Z"}]}}"""
                .formatted(generation, REASON, MESSAGE, REASON, MESSAGE);
        try {
            client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace(namespace)
                    .withName(name).subresource("status")
                    .patch(new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).withFieldManager(MANAGER)
                            .build(), verdict);
            writes.incrementAndGet();
        } catch (KubernetesClientException e) {
            // requeued, as a controller's failed reconcile is
        }
    }

    @SuppressWarnings("unchecked")
    private static boolean showsVerdict(GenericKubernetesResource cluster, long generation) {
        Map<String, Object> status = (Map<String, Object>) cluster.getAdditionalProperties()
                .getOrDefault("status", Map.of());
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) status.getOrDefault("conditions", List.of());
        return status.get("observedGeneration") instanceof Number observed && observed.longValue() == generation
                && conditions.size() == 5 && conditions.stream().anyMatch(c -> "Ready".equals(c.get("type"))
                        && "False".equals(c.get("status")) && REASON.equals(c.get("reason")));
    }

    @Override
    public void close() {
        requeue.shutdownNow();
        if (informer != null) {
            informer.close();
        }
    }
}
